"""The one service: assemble_context() runs route -> gather -> fuse -> budget -> render for a message.

Agents living in the same Django site call it in-process; the API's POST /context/ is a thin view
over it. What comes back (a ContextBundle) keeps the layers apart, labelled and within budget, with a
trace of every candidate's scores, the weights applied, what was dropped and why, and stage timings.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from django.utils import timezone

from ..conf import app_settings
from ..db import retrieval_reads
from ..exceptions import InvalidInput, NotFound
from ..text import configured_language, language_of
from ..types import ContextBundle, ContextItem, LayerResult
from ..validation import MAX_ID_CHARS, validate_query, validate_user_id
from .budget import BudgetResult, fill_budget, memory_cap, select_memories
from .combine import Combined, combine_layers
from .gather import gather_layers
from .layers.working import load_working_context, turn_line
from .render import SECTION_ORDER, fixed_tokens, item_tokens, needs_marker, render_prompt
from .route import ROUTES, RouteDecision, decide_route
from .small_talk import is_small_talk


def _validate(user_id: Any, query: Any, token_budget: Any, route: Any, knowledge_bases: Any,
              agent_id: Any) -> tuple[str, str, int]:
    validate_user_id(user_id)
    if agent_id is not None and (not isinstance(agent_id, str) or len(agent_id) > MAX_ID_CHARS):
        raise InvalidInput(f"agent_id must be a string of at most {MAX_ID_CHARS} characters", field="agent_id")
    query = validate_query(query)
    budget = app_settings.CONTEXT_TOKEN_BUDGET if token_budget is None else token_budget
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise InvalidInput(f"token_budget must be a positive integer; got {token_budget!r}", field="token_budget")
    if route is not None and route not in ROUTES:
        raise InvalidInput(f"route must be one of {', '.join(ROUTES)}; got {route!r}", field="route")
    if knowledge_bases is not None and (
        not isinstance(knowledge_bases, list) or not all(isinstance(s, str) and s for s in knowledge_bases)
    ):
        raise InvalidInput("knowledge_bases must be a list of knowledge base slugs", field="knowledge_bases")
    return user_id, query, budget


def _load_session(user_id: str, session_id: Any):
    from django.core.exceptions import ValidationError

    from ..models import Session

    try:
        session = Session.objects.for_user(user_id).filter(pk=session_id).first()
    except (ValidationError, ValueError, TypeError) as exc:
        raise InvalidInput(f"session_id {session_id!r} is not a valid session id", field="session_id") from exc
    if session is None:
        # The same answer whether the session is unknown or another user's: nothing leaks across users.
        raise NotFound(f"No session {session_id} for user {user_id!r}")
    return session


def _labelled(items: list[ContextItem]) -> dict[str, list[ContextItem]]:
    """Items per section, in the order the prompt shows them, with their [M#]/[K#] markers."""
    sections: dict[str, list[ContextItem]] = {name: [] for name in SECTION_ORDER if name != "current_message"}
    for item in items:
        sections[item.layer].append(item)
    profile = sorted(sections["profile"], key=lambda it: (it.kind != "summary", -it.score))
    memories = sorted(sections["long_term_memory"], key=lambda it: -it.score)
    knowledge = sorted(sections["knowledge"], key=lambda it: -it.score)
    order = {"summary": 0, "task_state": 1, "turn": 2}
    working = sorted(sections["working_memory"],
                     key=lambda it: (order.get(it.kind, 3), it.ref.get("seq") or 0))
    m = 0
    out: dict[str, list[ContextItem]] = {"profile": [], "long_term_memory": [], "knowledge": [], "working_memory": []}
    for name, group in (("profile", profile), ("long_term_memory", memories)):
        for it in group:
            if needs_marker(it):
                m += 1
                it = replace(it, label=f"M{m}")
            out[name].append(it)
    out["knowledge"] = [replace(it, label=f"K{i}") for i, it in enumerate(knowledge, 1)]
    out["working_memory"] = working
    return out


def assemble_context(*, user_id: str, query: str, agent_id: str | None = None, session_id: Any = None,
                     knowledge_bases: list[str] | None = None, token_budget: int | None = None,
                     route: str | None = None, language: str | None = None, record: bool = True,
                     via: str = "rest") -> ContextBundle:
    """What the agent should know to answer ``query`` from ``user_id``, within ``token_budget`` tokens.

    Labels, instructions and empty-section notes are in ``language`` ("zh" or "en"), else in the language of
    the query ("Where does the user work?" gets English ones on a Chinese-default server), else ``LANGUAGE``.

    Raises InvalidInput (bad field, or a budget too small for the instructions and the current
    message) and NotFound (unknown session or session of another user, unknown knowledge base).
    Backend failures never raise: the layer is reported failed or degraded in the trace. The context is
    recorded in the ledger (context/ledger.py) unless ``record`` is False or CONTEXT_LEDGER is off; ``via``
    names the interface for it (rest, answer, tool).
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}

    def lap(stage: str, since: float) -> float:
        now = time.perf_counter()
        timings[stage] = round((now - since) * 1000, 3)
        return now

    user_id, query, budget = _validate(user_id, query, token_budget, route, knowledge_bases, agent_id)
    language = request_language(query, language, user_id=user_id)
    # Everything read for the context comes from one place: the primary, or the read replica when it has
    # replayed this user's writes (agentmemory/db.py); the ledger and access writes go to the primary.
    with retrieval_reads(user_id) as read_from:
        t = time.perf_counter()
        session = _load_session(user_id, session_id) if session_id not in (None, "") else None
        if knowledge_bases is not None:
            from ..knowledge.search import resolve_knowledge_bases

            knowledge_bases = resolve_knowledge_bases(knowledge_bases)  # NotFound early; the search reuses them
        working = load_working_context(session) if session is not None else None
        t = lap("load", t)

        # Route first, so a message that cannot fit is rejected before any search runs.
        recent = [turn_line(turn) for turn in (working.recent_turns() if working is not None else [])[-4:]]
        decision = decide_route(query, requested=route, recent_turns=recent, has_session=session is not None)
        # A message that is only small talk has no evidence to find: nothing is retrieved for it.
        small_talk = app_settings.CONTEXT_SMALL_TALK_FLOOR and is_small_talk(query)
        wanted = tuple(name for name in decision.layers
                       if not (small_talk and name in ("knowledge", "long_term_memory")))
        t = lap("route", t)
        with_knowledge = "knowledge" in wanted
        fixed = fixed_tokens(query, language=language, with_knowledge=with_knowledge, with_history=working is not None)
        fixed_total = sum(fixed.values())
        if fixed_total > budget:
            raise InvalidInput(
                f"token_budget {budget} is too small: the current message and the instructions alone need "
                f"{fixed_total} tokens", field="token_budget")

        layers = gather_layers(layers=wanted, user_id=user_id, query=query, agent_id=agent_id,
                               working=working, knowledge_bases=knowledge_bases)
    t = lap("gather", t)

    candidates = [it for name in ("profile", "long_term_memory", "knowledge", "working_memory")
                  if name in layers for it in layers[name].items]
    combined = combine_layers(candidates, weights=dict(app_settings.CONTEXT_LAYER_WEIGHTS or {}),
                              min_score=app_settings.CONTEXT_MIN_SCORE,
                              dedup_threshold=app_settings.CONTEXT_DEDUP_THRESHOLD)
    t = lap("fuse", t)

    selected, left_out = select_memories(combined.items, max_items=app_settings.CONTEXT_MEMORY_MAX_ITEMS, query=query)
    priced = [replace(it, tokens=item_tokens(it, language)) for it in selected]
    share = app_settings.CONTEXT_MEMORY_SHARE
    budgeted = fill_budget(priced, budget=budget, fixed_tokens=fixed_total, memory_share=share,
                           memory_header_tokens=fixed["memory_header"])
    budgeted = replace(budgeted, dropped=left_out + budgeted.dropped)
    touch_shown(user_id, budgeted.kept)
    t = lap("budget", t)

    sections = _labelled(budgeted.kept)
    sections["current_message"] = [ContextItem(layer="current_message", kind="message", key="current_message",
                                               text=query, source=user_id, score=1.0, relevance=1.0,
                                               tokens=fixed["current_message"])]
    rendered = render_prompt(sections, query, language=language, knowledge_searched=with_knowledge)
    t = lap("render", t)

    timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    for name, layer in layers.items():
        timings[f"gather.{name}"] = round(layer.elapsed_ms, 3)
    trace = _trace(decision, small_talk, wanted, layers, combined, priced, budgeted, timings)
    trace["language"] = language
    trace["reads"] = read_from
    bundle = ContextBundle(route=decision.route, sections=sections, prompt=rendered.text, trace=trace,
                           token_counts=_token_counts(rendered.token_counts, budget, share), token_budget=budget)
    if record and app_settings.CONTEXT_LEDGER:
        from .ledger import record_context

        row = record_context(bundle, user_id=user_id, query=query, agent_id=agent_id, session_id=session_id, via=via)
        bundle = replace(bundle, context_id=row.pk)
    return bundle


def touch_shown(user_id: str, kept: list[ContextItem]) -> None:
    """Record an access on the memories the prompt carries, and only those: a fact the budget or the memory
    section's size left out is not in use (so it can go cold), and a cold one shown is active again."""
    from ..memory.access import record_access

    ids = sorted({int(it.ref["memory_id"]) for it in kept
                  if it.layer in ("profile", "long_term_memory") and it.ref.get("memory_id")})
    if ids:
        record_access(user_id, ids, timezone.now())


def request_language(query: str, language: str | None = None, *, user_id: str | None = None) -> str:
    """The language a context speaks: the one asked for, else the query's, else (a query in neither language:
    "123？", "👍") the user's, read from their latest memories, else the configured default."""
    if language:
        if language[:2] not in ("zh", "en"):
            raise InvalidInput("language must be 'zh' or 'en'.", field="language")
        return language[:2]
    said = language_of(query, default="")
    if said or not user_id:
        return said or configured_language()
    from ..models import MemoryItem

    latest = MemoryItem.objects.for_user(user_id).filter(status=MemoryItem.Status.ACTIVE).order_by(
        "-updated_at").values_list("content", flat=True)[:5]
    return language_of(" ".join(latest), default=configured_language())


def _token_counts(counts: dict[str, int], budget: int, share: float) -> dict[str, int]:
    """Tokens per section of the rendered prompt, the instructions and headers, the total, the budget."""
    return {**{name: counts.get(name, 0) for name in SECTION_ORDER},
            "memory_section": counts.get("memory_section", 0),
            "instructions_and_headers": max(0, counts["total"] - sum(counts.get(n, 0) for n in SECTION_ORDER)),
            "total": counts["total"], "budget": budget, "memory_cap": memory_cap(budget, share)}


def _degraded(layers: dict[str, LayerResult]) -> list[str]:
    """One line per layer that failed (left out) or degraded (and why)."""
    degraded = []
    for name, layer in layers.items():
        if layer.status == "failed":
            degraded.append(f"{name}: failed ({layer.error}); left out")
        elif layer.status == "degraded":
            reason = layer.detail.get("degraded")
            if isinstance(reason, list):
                reason = "; ".join(str(r) for r in reason)
            degraded.append(f"{name}: {reason or 'degraded'}")
    return degraded


def _trace(decision: RouteDecision, small_talk: bool, wanted: tuple[str, ...], layers: dict[str, LayerResult],
           combined: Combined, priced: list[ContextItem], budgeted: BudgetResult,
           timings: dict[str, float]) -> dict[str, Any]:
    """The context's trace: the route, each layer's candidates, the fusion, the budget, what was dropped and
    why, what degraded, and the stage timings (the API's trace object)."""
    dropped = [d for layer in layers.values() for d in layer.detail.get("dropped", [])]
    dropped += combined.dropped + budgeted.dropped
    layer_trace = {}
    for name, layer in layers.items():
        entry = layer.as_trace()
        entry.pop("dropped", None)
        layer_trace[name] = entry
    for name in decision.layers:
        if name not in wanted:
            layer_trace[name] = {"status": "skipped", "elapsed_ms": 0.0, "candidates": [],
                                 "note": "small talk: nothing to retrieve (CONTEXT_SMALL_TALK_FLOOR)"}
    return {
        "route": {**decision.as_trace(), "small_talk": small_talk},
        "layers": layer_trace,
        "fusion": {
            "weights": combined.weights,
            "formula": "score = layer weight x relevance x decay",
            "min_score": app_settings.CONTEXT_MIN_SCORE,
            "dedup_threshold": app_settings.CONTEXT_DEDUP_THRESHOLD,
            "scored": [{"key": it.key, "layer": it.layer, "weight": it.weight, "relevance": round(it.relevance, 4),
                        "decay": round(it.decay, 4), "score": it.score, "tokens": it.tokens} for it in priced],
        },
        "budget": budgeted.usage,
        "dropped": dropped,
        "degraded": _degraded(layers),
        "timings_ms": timings,
    }

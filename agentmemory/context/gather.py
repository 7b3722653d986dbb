"""Stage 2, gather: call the layers the route needs and turn their answers into scored candidates.

Layers: profile (agentmemory.memory.profile, cached), long-term memory (agentmemory.memory.recall),
knowledge (agentmemory.knowledge.search) and working memory (agentmemory.working.window). The two
searches run in worker threads when that helps latency; Django DB connections are per thread, so
each worker closes its connection like a request would (``close_old_connections``, which honours
CONN_MAX_AGE). Inside a transaction (a test, an atomic view) the searches run inline instead: a
worker thread's connection could not see the caller's uncommitted rows.

Each layer maps its own scores to a relevance in [0, 1] and a decay in [0, 1] (see fuse.py). A
layer that fails is reported in the trace and contributes nothing; the context is still built.
"""
from __future__ import annotations

import concurrent.futures
import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from django.db import close_old_connections, connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ..conf import app_settings
from ..exceptions import InvalidInput, NotFound
from ..text import keyword_tokens, query_terms
from ..types import ContextItem
from .fuse import normalize_scores
from .render import task_state_text

logger = logging.getLogger("agentmemory.context")

_pool: concurrent.futures.ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


@dataclass
class LayerResult:
    """What one layer gave: candidates, its own trace, and whether it failed or degraded."""

    layer: str
    items: list[ContextItem] = field(default_factory=list)
    status: str = "ok"  # ok | degraded | failed | skipped
    detail: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    elapsed_ms: float = 0.0

    def as_trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "candidates": [
                {"key": it.key, "kind": it.kind, "relevance": round(it.relevance, 4), "decay": round(it.decay, 4),
                 **({"raw": it.ref["raw"]} if "raw" in it.ref else {})}
                for it in self.items
            ],
        }
        if self.detail:
            out.update(self.detail)
        if self.error:
            out["error"] = self.error
        return out


def _forget_pool_after_fork() -> None:
    global _pool
    _pool = None  # its threads did not survive the fork


os.register_at_fork(after_in_child=_forget_pool_after_fork)


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="agentmemory-context")
    return _pool


def _in_worker(fn: Callable[[], LayerResult]) -> Callable[[], LayerResult]:
    def run() -> LayerResult:
        close_old_connections()
        try:
            return fn()
        finally:
            close_old_connections()

    return run


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Read a field from a dataclass, model or dict alike (the layers answer in different shapes)."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, str) and value:
        return parse_datetime(value)
    return None


def _timed(layer: str, fn: Callable[[], LayerResult]) -> LayerResult:
    start = time.perf_counter()
    try:
        result = fn()
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # degrade, don't fail: a layer outage leaves the others standing
        logger.warning("context layer %s failed: %s", layer, exc, exc_info=True)
        result = LayerResult(layer=layer, status="failed", error=f"{type(exc).__name__}: {str(exc)[:300]}")
    result.elapsed_ms = (time.perf_counter() - start) * 1000
    return result


# --- profile -------------------------------------------------------------------------------------


def gather_profile(user_id: str, query: str, *, agent_id: str | None = None) -> LayerResult:
    """Key facts (one current value per key) and the summary: always loaded, cached, no vector search."""
    from ..memory import cache
    from ..memory.profile import get_profile

    name = f"profile:{agent_id if agent_id is not None else '*'}"
    cached = cache.cache_get(user_id, name, None) is not None
    profile = get_profile(user_id, agent_id=agent_id) or {}
    terms = set(query_terms(query))
    items: list[ContextItem] = []
    summary = (profile.get("summary") or "").strip()
    if summary:
        items.append(ContextItem(layer="profile", kind="summary", key=f"profile-summary:{user_id}", text=summary,
                                 relevance=1.0, decay=1.0, timestamp=_when(profile.get("summary_updated_at")),
                                 ref={"source": "profile"}))
    for fact in profile.get("facts") or []:
        text = (fact.get("content") or "").strip()
        if not text:
            continue
        # Key facts are always relevant (they say who is asking); more so when the message names them.
        relevance = 1.0 if terms & set(keyword_tokens(text)) else 0.7
        confidence = float(fact.get("confidence") or 0.0)
        items.append(ContextItem(
            layer="profile", kind="fact", key=f"memory:{fact.get('memory_id')}", text=text,
            relevance=relevance, decay=max(0.0, min(1.0, confidence)),
            timestamp=_when(fact.get("valid_from")) or _when(fact.get("updated_at")),
            ref={"memory_id": fact.get("memory_id"), "key": fact.get("key", ""), "source": fact.get("source", ""),
                 "type": fact.get("type", ""), "confidence": confidence},
        ))
    # Facts shown in every prompt are in use: they must not go cold for lack of a recall hit.
    from ..memory.access import record_access

    fact_ids = [int(f["memory_id"]) for f in profile.get("facts") or [] if f.get("memory_id")]
    if fact_ids:
        record_access(user_id, fact_ids, timezone.now())
    return LayerResult(layer="profile", items=items, detail={"cache": "hit" if cached else "miss"})


# --- long-term memory ----------------------------------------------------------------------------

# Relevance given to the user's top memories (no query match known): below any matched memory.
TOP_MEMORY_RELEVANCE = 0.4


def _memory_item(memory: Any, relevance: float, factor: float, raw: dict[str, Any], via: str) -> ContextItem:
    return ContextItem(
        layer="long_term_memory", kind="memory", key=f"memory:{_get(memory, 'id', _get(memory, 'memory_id'))}",
        text=(_get(memory, "content") or "").strip(), relevance=relevance, decay=max(0.0, min(1.0, factor)),
        timestamp=_when(_get(memory, "valid_from")) or _when(_get(memory, "created_at"))
        or _when(_get(memory, "updated_at")),
        ref={"memory_id": _get(memory, "id", _get(memory, "memory_id")), "type": _get(memory, "type", ""),
             "key": _get(memory, "key", ""), "source": _get(memory, "source", ""),
             "confidence": _get(memory, "confidence"), "via": via, "raw": raw},
    )


def _memory_floor(rows: list) -> tuple[list, list[dict[str, Any]]]:
    """Recalled memories with some evidence: a keyword match, or a cosine of at least CONTEXT_MEMORY_FLOOR.

    A user's memories are personal, so their relevance is often indirect ("今晚吃什么？" → "对花生过敏" at
    cosine 0.80) and small talk reaches cosines as high; the floor only drops what has neither: measured,
    0.13 % of the LoCoMo evidence turns recall finds and none of the hand-written facts' (docs/retrieval.md).
    """
    cosine = app_settings.CONTEXT_MEMORY_FLOOR
    if cosine is None:
        return rows, []
    kept, dropped = [], []
    for row in rows:
        vector, bm25 = row.scores.vector, row.scores.bm25
        if bm25 is not None or (vector is not None and vector >= float(cosine)):
            kept.append(row)
        else:
            dropped.append({"key": f"memory:{row.memory.pk}", "layer": "long_term_memory", "kind": "memory",
                            "reason": "floor",
                            "detail": f"no keyword matched and cosine {vector if vector is None else round(vector, 4)}"
                                      f" < {cosine}"})
    return kept, dropped


def gather_memories(user_id: str, query: str, *, agent_id: str | None = None, top_k: int = 8) -> LayerResult:
    """Query-relevant memories (hybrid recall with its score breakdown), plus the user's cached top ones.

    Relevance is recall's fused channel relevance, scaled to the best hit; decay is what recall
    multiplies it by (time decay x source weight x confidence).
    """
    from ..memory.access import record_access
    from ..memory.profile import top_memories
    from ..memory.recall import recall_memories

    failure = ""
    try:
        # Cold items are searched too: one the user clearly mentions again (its vector this close to the
        # message) comes back, and recording the access makes it active again. Weaker cold matches stay
        # out, untouched.
        answer = recall_memories(user_id, query, top_k=top_k, agent_id=agent_id, include_cold=True, touch=False)
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # recall down: the user's cached top memories still stand
        logger.warning("memory recall failed, top memories only: %s", exc)
        failure = f"recall failed ({type(exc).__name__}: {str(exc)[:200]}); top memories only"
        answer = []
    floor = app_settings.MEMORY_REACTIVATE_MIN_COSINE
    rows = [r for r in answer if r.memory.status != "cold" or (r.scores.vector or 0.0) >= floor]
    rows, dropped = _memory_floor(rows)
    reactivated = [r.memory.pk for r in rows if r.memory.status == "cold"]
    if rows:
        record_access(user_id, [r.memory.pk for r in rows], timezone.now())
    breakdowns = [asdict(r.scores) if is_dataclass(r.scores) else dict(r.scores) for r in rows]
    relevances = normalize_scores([float(b.get("relevance") or 0.0) for b in breakdowns])
    items = []
    for row, b, rel in zip(rows, breakdowns, relevances, strict=True):
        # The context's decay stays in [0, 1]: frequency lifts a memory up to that bound, never past it.
        factor = min(1.0, float(b.get("decay", 1.0)) * float(b.get("source_weight", 1.0))
                     * float(b.get("confidence", 1.0)) * float(b.get("frequency", 1.0)))
        items.append(_memory_item(row.memory, rel, factor, {k: v for k, v in b.items() if v is not None}, "recall"))
    # The user's top memories come from the cache; one also recalled is kept once, at its best score.
    top = top_memories(user_id, agent_id=agent_id, limit=5)
    top_ids = [int(f["memory_id"]) for f in top if f.get("memory_id")]
    if top_ids:
        record_access(user_id, top_ids, timezone.now())  # read from the cache, used all the same
    for fact in top:
        weights = app_settings.MEMORY_SOURCE_WEIGHTS
        factor = float(fact.get("confidence") or 0.0) * float(weights.get(fact.get("source"), 1.0))
        items.append(_memory_item(fact, TOP_MEMORY_RELEVANCE, factor, {"top_memory": True}, "top"))
    items = [it for it in items if it.text]
    detail: dict[str, Any] = {"mode": getattr(answer, "mode", "hybrid"), "recalled": len(rows),
                              "top_memories": len(top), "reactivated": reactivated}
    if dropped:
        detail["dropped"] = dropped
    degraded = bool(getattr(answer, "degraded", False)) or bool(failure)
    if degraded:
        detail["degraded"] = failure or getattr(answer, "degraded_reason", "") or "embedder unavailable: keyword only"
    return LayerResult(layer="long_term_memory", items=items, status="degraded" if degraded else "ok", detail=detail)


# --- knowledge ----------------------------------------------------------------------------------


def gather_knowledge(query: str, *, knowledge_bases: list[str] | None, top_k: int = 6) -> LayerResult:
    """Hybrid knowledge search (degrades to keyword-only inside search_knowledge when embedding fails)."""
    from ..knowledge.search import search_knowledge

    fallback = ""
    try:
        result = search_knowledge(query, knowledge_bases=knowledge_bases, top_k=top_k)
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # e.g. a misconfigured embedder: keyword search needs none of it
        logger.warning("hybrid knowledge search failed, retrying keyword-only: %s", exc)
        fallback = f"hybrid search failed ({type(exc).__name__}: {str(exc)[:200]}); keyword channel only"
        result = search_knowledge(query, knowledge_bases=knowledge_bases, top_k=top_k, mode="keyword")
    hits = list(_get(result, "hits", []) or [])
    trace = _get(result, "trace", {}) or {}
    if fallback:
        trace = {**trace, "degraded": [*(trace.get("degraded") or []), fallback]}
    # The search has no thresholds by default and its vector channel always has neighbours, so the
    # context gates hits itself: a hit stays if a keyword matched it, or on the vector channel alone
    # only when its cosine is high (multilingual-e5 puts unrelated texts around 0.75-0.85).
    min_cosine = app_settings.CONTEXT_VECTOR_ONLY_MIN_COSINE
    dropped: list[dict[str, Any]] = []
    gated = []
    for hit in hits:
        channels = _get(hit, "channels", {}) or {}
        cosine = (channels.get("vector") or {}).get("score")
        if "keyword" in channels or (cosine is not None and cosine >= min_cosine):
            gated.append(hit)
        else:
            dropped.append({"key": f"chunk:{_get(hit, 'chunk_id')}", "layer": "knowledge", "kind": "chunk",
                            "reason": "threshold",
                            "detail": f"vector channel only, cosine {cosine} < {min_cosine} (no keyword matched)"})
    hits = gated
    # What the relevance floor kept out of the hits that would have been shown, with its reason.
    for removed in ((trace.get("floor") or {}).get("removed_hits") or [])[:top_k]:
        dropped.append({"key": f"chunk:{removed['chunk_id']}", "layer": "knowledge", "kind": "chunk",
                        "reason": "floor", "detail": removed.get("reason", "")})
    relevances = normalize_scores([float(_get(h, "score", 0.0) or 0.0) for h in hits])
    items = []
    for hit, rel in zip(hits, relevances, strict=True):
        title = _get(hit, "document_title", "")
        heading = _get(hit, "heading_path", "")
        citation = _get(hit, "citation", "") or " › ".join(x for x in (f"《{title}》" if title else "", heading) if x)
        if not isinstance(citation, str):
            citation = _get(citation, "text", "") or str(citation)
        items.append(ContextItem(
            layer="knowledge", kind="chunk", key=f"chunk:{_get(hit, 'chunk_id')}",
            text=strip_headings(_get(hit, "text") or "", heading),
            source=citation, relevance=rel, decay=1.0,
            ref={"chunk_id": _get(hit, "chunk_id"), "document_id": _get(hit, "document_id"), "document_title": title,
                 "version": _get(hit, "version"), "heading_path": heading, "citation": citation,
                 "raw": {"score": round(float(_get(hit, "score", 0.0) or 0.0), 6),
                         "channels": _get(hit, "channels", {}) or {}}},
        ))
    degraded = bool(_get(trace, "degraded", False)) if isinstance(trace, dict) else False
    detail: dict[str, Any] = {"search": trace}
    if dropped:
        detail["dropped"] = dropped
    if degraded:
        detail["degraded"] = _get(trace, "degraded")
    return LayerResult(layer="knowledge", items=items, status="degraded" if degraded else "ok", detail=detail)


def strip_headings(text: str, heading_path: str) -> str:
    """A chunk's text without its leading Markdown headings when the citation already names them."""
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or (
            lines[0].lstrip().startswith("#") and lines[0].lstrip("# ").strip() in (heading_path or ""))):
        lines.pop(0)
    return "\n".join(lines).strip() or text.strip()


# --- working memory -----------------------------------------------------------------------------


def load_working_context(session: Any) -> dict[str, Any]:
    from ..working.window import get_working_context

    return get_working_context(session) or {}


def working_turns(working: dict[str, Any] | None) -> list[Any]:
    """The recent turns of a working context, oldest first."""
    working = working or {}
    turns = [*(_get(working, "pinned_turns", None) or []), *(_get(working, "turns", None) or [])]
    turns.sort(key=lambda t: _get(t, "seq", 0) or 0)
    return turns


def turn_line(turn: Any) -> str:
    return f"{_get(turn, 'role', '')}: {_get(turn, 'content', '')}"


def gather_working(working: dict[str, Any], query: str, *, decay_per_turn: float = 0.85) -> LayerResult:
    """Summary, task state and recent turns; the newer a turn, the higher its relevance."""
    items: list[ContextItem] = []
    summary = (_get(working, "summary") or "").strip()
    session_id = str(_get(working, "session_id", "") or "")
    if summary:
        items.append(ContextItem(layer="working_memory", kind="summary", key=f"summary:{session_id}", text=summary,
                                 relevance=0.9, decay=1.0, timestamp=_when(_get(working, "summary_updated_at")),
                                 ref={"covers_up_to": _get(working, "summary_covers_seq",
                                                           _get(working, "covered_up_to"))}))
    state = _get(working, "task_state")
    if state:
        items.append(ContextItem(layer="working_memory", kind="task_state", key=f"task_state:{session_id}",
                                 text=task_state_text(state), relevance=1.0, decay=1.0))
    turns = working_turns(working)
    dropped: list[dict[str, Any]] = []
    # The agent may have appended the current message as a turn already; it is rendered once, last.
    if turns and _get(turns[-1], "role") == "user" and (_get(turns[-1], "content") or "").strip() == query.strip():
        last = turns.pop()
        dropped.append({"key": f"turn:{_get(last, 'id', _get(last, 'seq'))}", "layer": "working_memory",
                        "kind": "turn", "reason": "duplicate", "detail": "same as the current message"})
    n = len(turns)
    for age, turn in enumerate(reversed(turns)):
        relevance = decay_per_turn ** age
        if _get(turn, "high_priority", False):
            relevance = max(relevance, 0.7)
        seq = _get(turn, "seq")
        items.append(ContextItem(
            layer="working_memory", kind="turn", key=f"turn:{_get(turn, 'id', seq)}",
            text=(_get(turn, "content") or "").strip(), relevance=relevance, decay=1.0,
            timestamp=_when(_get(turn, "created_at")),
            ref={"seq": seq, "role": _get(turn, "role", ""), "high_priority": bool(_get(turn, "high_priority", False)),
                 "position": n - age},
        ))
    return LayerResult(layer="working_memory", items=[it for it in items if it.text],
                       detail={"dropped": dropped} if dropped else {})


# --- all layers ---------------------------------------------------------------------------------


def gather_layers(*, layers: tuple[str, ...], user_id: str, query: str, agent_id: str | None,
                  working: dict[str, Any] | None, knowledge_bases: list[str] | None,
                  parallel: bool | None = None) -> dict[str, LayerResult]:
    """Run the layers in ``layers``; the searches in parallel threads unless inside a transaction."""
    jobs: dict[str, Callable[[], LayerResult]] = {}
    if "knowledge" in layers:
        jobs["knowledge"] = lambda: gather_knowledge(query, knowledge_bases=knowledge_bases,
                                                     top_k=app_settings.CONTEXT_KNOWLEDGE_TOP_K)
    if "long_term_memory" in layers:
        jobs["long_term_memory"] = lambda: gather_memories(user_id, query, agent_id=agent_id,
                                                           top_k=app_settings.CONTEXT_MEMORY_TOP_K)
    if jobs:
        # Both searches embed the same query: start it now, so the model runs while the profile,
        # the working memory and the keyword channels read the database; both layers then find the
        # vector in the embedder's query cache. A failing embedder is the searches' business.
        try:
            from ..backends import get_embedder

            embedder = get_embedder()
            if embedder.query_cache_size > 0:  # without the cache the searches could not share it
                embedder.prefetch_query(query.strip())
        except Exception as exc:
            logger.debug("query prefetch not started: %s", exc)
    if parallel is None:
        parallel = app_settings.CONTEXT_PARALLEL and not connection.in_atomic_block
    results: dict[str, LayerResult] = {}
    futures = {}
    if parallel and len(jobs) > 1:
        pool = _executor()
        futures = {name: pool.submit(_in_worker(lambda n=name, f=fn: _timed(n, f))) for name, fn in jobs.items()}
    if "profile" in layers:
        results["profile"] = _timed("profile", lambda: gather_profile(user_id, query, agent_id=agent_id))
    if "working_memory" in layers:
        if working is None:
            results["working_memory"] = LayerResult(layer="working_memory", status="skipped",
                                                    detail={"note": "no session_id given"})
        else:
            results["working_memory"] = _timed("working_memory", lambda: gather_working(working, query))
    if not futures:
        for name, fn in jobs.items():
            results[name] = _timed(name, fn)
    for name, future in futures.items():
        results[name] = future.result()
    return results

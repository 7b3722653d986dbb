"""The long-term memory layer: hybrid recall with its score breakdown, plus the user's cached top memories."""
from __future__ import annotations

import datetime as dt
import logging
from dataclasses import asdict
from typing import Any

from ...conf import app_settings
from ...exceptions import InvalidInput, NotFound
from ...ranking.fusion import scale_to_best
from ...types import ContextItem, LayerResult, ProfileFact, RecalledMemory, RecallResult
from ...working.corrections import topics

logger = logging.getLogger("agentmemory.context")

# Relevance given to the user's top memories (no query match known): below any matched memory.
TOP_MEMORY_RELEVANCE = 0.4


def _recalled_item(row: RecalledMemory, relevance: float) -> ContextItem:
    memory, scores = row.memory, row.scores
    # The context's decay stays in [0, 1]: frequency lifts a memory up to that bound, never past it.
    factor = min(1.0, scores.decay * scores.source_weight * scores.confidence * scores.frequency)
    raw = {k: v for k, v in asdict(scores).items() if v is not None}
    return _item(memory.pk, memory.content, relevance, factor, memory.valid_from or memory.created_at,
                 {"memory_id": memory.pk, "type": memory.type, "key": memory.key, "source": memory.source,
                  "confidence": memory.confidence, "via": "recall", "raw": raw})


def _top_item(fact: ProfileFact) -> ContextItem:
    weights = app_settings.MEMORY_SOURCE_WEIGHTS
    factor = float(fact.confidence or 0.0) * float(weights.get(fact.source, 1.0))
    return _item(fact.memory_id, fact.content, TOP_MEMORY_RELEVANCE, factor, fact.timestamp,
                 {"memory_id": fact.memory_id, "type": fact.type, "key": fact.key, "source": fact.source,
                  "confidence": fact.confidence, "via": "top", "raw": {"top_memory": True}})


def _item(memory_id: int, content: str, relevance: float, factor: float, timestamp: dt.datetime | None,
          ref: dict[str, Any]) -> ContextItem:
    return ContextItem(layer="long_term_memory", kind="memory", key=f"memory:{memory_id}",
                       text=(content or "").strip(), relevance=relevance, decay=max(0.0, min(1.0, factor)),
                       timestamp=timestamp, ref=ref)


def memory_floor(rows: list[RecalledMemory], query: str = "") -> tuple[list[RecalledMemory], list[dict[str, Any]]]:
    """Recalled memories with some evidence: a keyword match, a cosine of at least CONTEXT_MEMORY_FLOOR, or
    (an episode) the topic the question asks about ("Where does the user work?" and "These days I teach
    chemistry", which share no word and meet at a cosine under the floor).

    A user's memories are personal, so their relevance is often indirect ("今晚吃什么？" → "对花生过敏" at
    cosine 0.80) and small talk reaches cosines as high; the floor only drops what has neither: measured,
    0.13 % of the LoCoMo evidence turns recall finds and none of the hand-written facts' (docs/retrieval.md).
    """
    cosine = app_settings.CONTEXT_MEMORY_FLOOR
    if cosine is None:
        return rows, []
    asked = topics(query) if query else set()
    kept, dropped = [], []
    for row in rows:
        vector, bm25 = row.scores.vector, row.scores.bm25
        value = row.memory.value if isinstance(row.memory.value, dict) else {}
        on_topic = bool(asked) and row.memory.type == "episode" and bool(asked & set(value.get("topics") or ()))
        if bm25 is not None or (vector is not None and vector >= cosine) or on_topic:
            kept.append(row)
        else:
            dropped.append({"key": f"memory:{row.memory.pk}", "layer": "long_term_memory", "kind": "memory",
                            "reason": "floor",
                            "detail": f"no keyword matched and cosine {vector if vector is None else round(vector, 4)}"
                                      f" < {cosine}"})
    return kept, dropped


#: Topics on which the user has one current state (where they work, live, study): of several recalled
#: episodes on one, the newest leads. Pets, hobbies and the like add up and keep their order.
SINGLE_STATE_TOPICS = frozenset({"work", "home", "study"})


def newest_first(rows: list[RecalledMemory], relevances: list[float]) -> list[float]:
    """The relevances with, among recalled episodes sharing a single-state topic, the newest one lifted to
    the best of them (the older ones keep theirs, just below): a correction the write side could not link
    to what it corrects still comes first, with its date beside it in the prompt."""
    out = list(relevances)
    by_topic: dict[str, list[int]] = {}
    for at, row in enumerate(rows):
        value = row.memory.value if isinstance(row.memory.value, dict) else {}
        if row.memory.type == "episode":
            for topic in set(value.get("topics") or ()) & SINGLE_STATE_TOPICS:
                by_topic.setdefault(topic, []).append(at)
    for members in by_topic.values():
        if len(members) < 2:
            continue
        newest = max(members, key=lambda i: (rows[i].memory.valid_from or rows[i].memory.created_at, rows[i].memory.pk))
        best = max(out[i] for i in members)
        for i in members:
            out[i] = best if i == newest else min(out[i], best - 1e-3)
    return out


def rerank_recalled(query: str, rows: list[RecalledMemory]) -> tuple[list[RecalledMemory], dict[str, Any]]:
    """The recalled memories in the configured reranker's order (``RERANKER``, with ``RERANK_DEFAULT``), as
    knowledge search does; and what happened, for the trace. No reranker: as they are; a failing one: as they
    are, and the reason (the context never fails for it)."""
    from ...backends.rerankers import get_reranker

    if len(rows) < 2 or not app_settings.RERANK_DEFAULT or not app_settings.RERANKER:
        return rows, {}
    try:
        reranker = get_reranker()
        if reranker is None:
            return rows, {}
        scores = reranker.rerank(query, [r.memory.content for r in rows])
    except Exception as exc:  # a reranker (misconfigured, down, slow) must never break the context
        logger.warning("memory rerank failed, recall order kept: %s", exc)
        return rows, {"failed": f"rerank failed ({type(exc).__name__}: {str(exc)[:200]}); recall order kept"}
    order = sorted(range(len(rows)), key=lambda i: (-float(scores[i]), i))
    return [rows[i] for i in order], {"backend": getattr(reranker, "name", type(reranker).__name__),
                                      "scores": {f"memory:{rows[i].memory.pk}": round(float(scores[i]), 4)
                                                 for i in order}}


def _recall(user_id: str, query: str, agent_id: str | None, top_k: int) -> tuple[RecallResult, str]:
    from ...memory.recall import recall_memories

    try:
        # Cold items are searched too: one the user clearly mentions again (its vector this close to the
        # message) comes back, and recording the access makes it active again. Weaker cold matches stay
        # out, untouched.
        return recall_memories(user_id, query, top_k=top_k, agent_id=agent_id, include_cold=True, touch=False), ""
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # recall down: the user's cached top memories still stand
        logger.warning("memory recall failed, top memories only: %s", exc)
        return RecallResult(), f"recall failed ({type(exc).__name__}: {str(exc)[:200]}); top memories only"


def gather_memories(user_id: str, query: str, *, agent_id: str | None = None, top_k: int = 8) -> LayerResult:
    """Query-relevant memories (hybrid recall with its score breakdown), plus the user's cached top ones.

    Relevance is recall's fused channel relevance, scaled to the best hit; decay is what recall
    multiplies it by (time decay x source weight x confidence).
    """
    from ...memory.profile import top_facts

    answer, failure = _recall(user_id, query, agent_id, top_k)
    reactivate = app_settings.MEMORY_REACTIVATE_MIN_COSINE
    rows = [r for r in answer if r.memory.status != "cold" or (r.scores.vector or 0.0) >= reactivate]
    rows, dropped = memory_floor(rows, query)
    # Shown, a cold one is active again (assemble.touch_shown records the access of what the prompt carries).
    reactivated = [r.memory.pk for r in rows if r.memory.status == "cold"]
    scale = scale_to_best([float(r.scores.relevance or 0.0) for r in rows])
    rows, reranked = rerank_recalled(query, rows)
    if reranked.get("backend"):  # the reranker sets the order; the scale stays recall's
        scale = sorted(scale, reverse=True)
    relevances = newest_first(rows, scale)
    items = [_recalled_item(row, rel) for row, rel in zip(rows, relevances, strict=True)]
    # The user's top memories come from the cache; one also recalled is kept once, at its best score.
    top = top_facts(user_id, agent_id=agent_id, limit=5)
    items += [_top_item(fact) for fact in top]
    items = [it for it in items if it.text]
    detail: dict[str, Any] = {"mode": answer.mode, "recalled": len(rows), "top_memories": len(top),
                              "reactivated": reactivated}
    if dropped:
        detail["dropped"] = dropped
    if reranked:
        detail["rerank"] = reranked
    reasons = []
    if failure:
        reasons.append(failure)
    elif answer.degraded:
        reasons.append(answer.degraded_reason or "embedder unavailable: keyword only")
    if reranked.get("failed"):
        reasons.append(reranked["failed"])
    if reasons:
        detail["degraded"] = "; ".join(reasons)
    return LayerResult(layer="long_term_memory", items=items, status="degraded" if reasons else "ok", detail=detail)

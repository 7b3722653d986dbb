"""The rerank stage of a knowledge search: the fused head, hydrated, reordered by a reranker when there is one.

A reranker that is not configured, cannot be built or fails leaves the fused order, and says so in the trace.
"""
from __future__ import annotations

from ..conf import app_settings
from ..exceptions import BackendError
from .cite import ChunkRow, hydrate, passage
from .trace import SearchTrace


def _reranker(requested: bool | None, order: list[int], trace: SearchTrace):
    """The reranker to use (None: keep the fused order), reporting why one asked for is missing."""
    from ..backends.rerankers import get_reranker

    want = requested if requested is not None else app_settings.RERANK_DEFAULT
    reranker = None
    if want and order:
        try:
            reranker = get_reranker()
        except Exception as exc:  # misconfiguration must not break search; say so
            trace.degrade(f"reranker unavailable ({exc}); fused order kept")
        if reranker is None and requested:
            trace.degrade("rerank requested but no RERANKER is configured; fused order kept")
    return reranker


def rerank_head(order: list[int], search_query: str, requested: bool | None,
                trace: SearchTrace) -> tuple[list[int], dict[int, ChunkRow], dict[int, float]]:
    """The head of ``order`` to show (reranked, rerank threshold applied), its chunks' rows and rerank scores."""
    top_k, threshold = trace.plan.top_k, trace.plan.thresholds["rerank"]
    reranker = _reranker(requested, order, trace)
    depth = max(top_k, app_settings.RERANK_TOP_N) if reranker is not None else top_k
    head = order[:depth]
    with trace.timed("hydrate"):
        chunks = hydrate(head)
    head = [cid for cid in head if cid in chunks]
    scores: dict[int, float] = {}
    if reranker is None or not head:
        return head, chunks, scores
    backend = getattr(reranker, "name", type(reranker).__name__)
    with trace.timed("rerank"):
        try:
            reranked = reranker.rerank(search_query, [passage(chunks[cid]) for cid in head])
            scores = dict(zip(head, reranked, strict=True))
            position = {cid: i for i, cid in enumerate(head)}
            head = sorted(head, key=lambda cid: (-scores[cid], position[cid]))
            if threshold is not None:
                trace.rerank_removed = [cid for cid in head if scores[cid] < threshold]
                head = [cid for cid in head if scores[cid] >= threshold]
            trace.rerank = {"backend": backend, "reranked": len(reranked)}
        except BackendError as exc:
            trace.degrade(f"rerank failed ({exc}); fused order kept")
            scores = {}
            trace.rerank = {"backend": backend, "error": str(exc)}
    trace.rerank_applied = bool(scores)
    return head, chunks, scores

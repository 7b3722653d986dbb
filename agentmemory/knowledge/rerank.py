"""The rerank stage of a knowledge search: the fused head, hydrated, reordered by a reranker when there is one.

A reranker that is not configured, cannot be built or fails leaves the fused order, and says so in the trace.
"""
from __future__ import annotations

from ..conf import app_settings
from ..exceptions import BackendError
from .cite import ChunkRow, hydrate, passage
from .duplicates import collapse_copies
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
                trace: SearchTrace) -> tuple[list[int], dict[int, ChunkRow], dict[int, float], dict[int, list[int]]]:
    """The head of ``order`` to show (each text once, reranked, rerank threshold applied), its chunks' rows,
    the rerank scores and, per hit, the copies of its text it stands for."""
    top_k, threshold = trace.plan.top_k, trace.plan.thresholds["rerank"]
    reranker = _reranker(requested, order, trace)
    depth = max(top_k, app_settings.RERANK_TOP_N) if reranker is not None else top_k
    with trace.timed("hydrate"):
        # Twice the depth: copies of one text fold into one hit and must not leave the head short.
        chunks = hydrate(order[:2 * depth])
        head, copies = collapse_copies([cid for cid in order[:2 * depth] if cid in chunks], chunks, trace)
    head = head[:depth]
    scores: dict[int, float] = {}
    if reranker is None or not head:
        return head, chunks, scores, copies
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
    return head, chunks, scores, copies

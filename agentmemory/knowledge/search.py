"""The one knowledge search path: query -> (rewrite) -> channels -> thresholds -> RRF -> floor -> (rerank) -> cited hits.

Stages, in the order a query meets them: channels.py (rewrite, embedding, the keyword and vector
channels with their thresholds; retrieve.py runs their SQL), fuse.py (RRF per base, the relevance floor
of floor.py, the merge across bases), rerank.py (copies of one text folded into one hit by duplicates.py,
then the reranker), cite.py. They share a SearchPlan and record into a
SearchTrace (trace.py).

The API, the admin hit-testing page, evaluation and the agent context all call ``search_knowledge``,
so a hit test shows exactly what production retrieves. Every stage is timed and explained in the
result's ``trace``: the query terms with their document frequencies and IDF, each channel's rank and
raw score per hit, what each threshold removed, and any degradation (embedder down, reranker
failed) that changed the path.

The relevance floor keeps a fused hit only when its evidence is strong on at least one scale that means
the same for every query: the dense cosine; BM25 divided by the query's own maximum possible score
(every query term the base holds, matched with unbounded frequency: sum of idf x (k1 + 1)); and the cosine's margin
over the median cosine of the query's vector candidates (a hit that stands out from what the query
finds anyway: a cross-lingual match has a lower cosine than a same-language one, but stands out).
Floors come from the knowledge base (set by ``agentmemory_calibrate_floor``) or
AGENTMEMORY['KNOWLEDGE_FLOOR']; what they dropped, and why, is in ``trace["floor"]``.
"""
from __future__ import annotations

import time
from typing import Any

from ..conf import app_settings
from ..db import retrieval_entry
from ..exceptions import InvalidInput, NotFound
from ..types import SearchResult
from ..validation import validate_query
from .channels import rewrite_query, run_channels
from .cite import cite_hits
from .fuse import fuse_bases, merge_bases
from .rerank import rerank_head
from .trace import SearchPlan, SearchTrace

__all__ = ["MAX_TOP_K", "MODES", "config_snapshot", "resolve_knowledge_bases", "search_knowledge"]

MODES = ("hybrid", "vector", "keyword")
THRESHOLD_KEYS = ("cosine", "bm25", "rerank")
FILTER_KEYS = ("document_ids", "external_ids", "metadata")
MAX_TOP_K = 50


# --- validation -----------------------------------------------------------------------------


def _validate(query: Any, mode: Any, top_k: Any, thresholds: Any, filters: Any) -> tuple[str, str, int, dict, dict]:
    query = validate_query(query)
    if mode not in MODES:
        raise InvalidInput(f"mode must be one of {', '.join(MODES)}; got {mode!r}", field="mode")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be an integer from 1 to {MAX_TOP_K}; got {top_k!r}", field="top_k")
    merged = dict(app_settings.SEARCH_THRESHOLDS or {})
    if thresholds is not None:
        if not isinstance(thresholds, dict):
            raise InvalidInput("thresholds must be an object like {\"cosine\": 0.8, \"bm25\": 1.0}",
                               field="thresholds")
        for key, value in thresholds.items():
            if key not in THRESHOLD_KEYS:
                raise InvalidInput(f"unknown threshold {key!r}; use {', '.join(THRESHOLD_KEYS)}", field="thresholds")
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise InvalidInput(f"threshold {key!r} must be a number or null", field="thresholds")
            merged[key] = value
    thresholds_out = {k: (float(merged[k]) if merged.get(k) is not None else None) for k in THRESHOLD_KEYS}
    filters = filters or {}
    if not isinstance(filters, dict):
        raise InvalidInput("filters must be an object", field="filters")
    for key, value in filters.items():
        if key not in FILTER_KEYS:
            raise InvalidInput(f"unknown filter {key!r}; use {', '.join(FILTER_KEYS)}", field="filters")
        if key == "metadata" and not isinstance(value, dict):
            raise InvalidInput("filters.metadata must be an object", field="filters")
        if key != "metadata" and not isinstance(value, list):
            raise InvalidInput(f"filters.{key} must be a list", field="filters")
        if key == "document_ids" and not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise InvalidInput("filters.document_ids must be a list of integers", field="filters")
    return query, mode, top_k, thresholds_out, filters


def resolve_knowledge_bases(slugs: list[str] | None) -> list:
    """KnowledgeBase rows for ``slugs`` (all of them when None), in the order asked; NotFound if unknown.

    A list of KnowledgeBase instances (resolved earlier in the same request) is returned as it is.
    """
    from ..models import KnowledgeBase

    if slugs is None:
        return list(KnowledgeBase.objects.order_by("slug"))
    if isinstance(slugs, list) and slugs and all(isinstance(s, KnowledgeBase) for s in slugs):
        return list({kb.pk: kb for kb in slugs}.values())  # already resolved by the caller
    if isinstance(slugs, str):
        slugs = [slugs]
    if not isinstance(slugs, list) or not slugs or not all(isinstance(s, str) and s for s in slugs):
        raise InvalidInput("knowledge_bases must be a non-empty list of slugs", field="knowledge_bases")
    slugs = list(dict.fromkeys(slugs))
    found = {kb.slug: kb for kb in KnowledgeBase.objects.filter(slug__in=slugs)}
    missing = [s for s in slugs if s not in found]
    if missing:
        raise NotFound(f"Unknown knowledge base: {', '.join(missing)}")
    return [found[s] for s in slugs]


@retrieval_entry()
def search_knowledge(
    query: str,
    *,
    knowledge_bases: list[str] | None = None,
    top_k: int = 5,
    mode: str = "hybrid",
    thresholds: dict | None = None,
    rerank: bool | None = None,
    rewrite: bool = False,
    filters: dict | None = None,
    weights: dict | None = None,
    candidates: int | None = None,
    floor: bool = True,
) -> SearchResult:
    """Search active chunks of the given knowledge bases (all when None); see the module docstring.

    Raises InvalidInput (bad query, mode, top_k, thresholds, filters) or NotFound (unknown knowledge
    base). A failing embedder degrades to keyword-only; a failing reranker or rewriter falls back to
    the unreranked / original query. Both are reported in ``trace["degraded"]``. ``floor=False``
    turns the relevance floor off (hit testing "without floor", calibration).
    """
    started = time.perf_counter()
    query, mode, top_k, thresholds, filters = _validate(query, mode, top_k, thresholds, filters)
    plan = SearchPlan(
        query=query, mode=mode, top_k=top_k, thresholds=thresholds, filters=filters,
        knowledge_bases=resolve_knowledge_bases(knowledge_bases),
        candidates=int(candidates or app_settings.SEARCH_CANDIDATES), rrf_k=app_settings.RRF_K,
        weights={**(app_settings.RRF_WEIGHTS or {}), **(weights or {})}, floor=floor)
    trace = SearchTrace(plan)
    search_query = rewrite_query(query, trace) if rewrite else query
    outcome = run_channels(search_query, trace)
    order = merge_bases(fuse_bases(outcome, trace), trace)
    head, chunks, rerank_scores, copies = rerank_head(order, search_query, rerank, trace)
    hits = cite_hits(head, chunks, rerank_scores, trace, copies)
    trace.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
    return SearchResult(query=query, mode=mode, hits=hits, trace=trace.as_dict())


def config_snapshot() -> dict[str, Any]:
    """The retrieval settings that decide rankings (stored with evaluation runs)."""
    keys = ("BM25_K1", "BM25_B", "RRF_K", "RRF_WEIGHTS", "SENTENCE_VECTORS", "HNSW_EF_SEARCH", "SEARCH_CANDIDATES",
            "KEYWORD_CANDIDATE_LIMIT", "SEARCH_THRESHOLDS", "RERANKER", "RERANK_MODEL", "RERANK_TOP_N",
            "QUERY_REWRITER", "EMBEDDER")
    return {k: getattr(app_settings, k) for k in keys}

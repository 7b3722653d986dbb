"""The one knowledge search path: query -> (rewrite) -> channels -> thresholds -> RRF -> floor -> (rerank) -> cited hits.

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

import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..conf import app_settings
from ..exceptions import BackendError, EmbeddingError, EmbeddingModelMismatch, InvalidInput, NotFound
from ..validation import validate_query
from .fuse import rrf
from .keywords import index_tokens, user_dictionary_terms
from .retrieve import ChannelHit, active_chunk_count, chunk_cosines, keyword_search, vector_search

MODES = ("hybrid", "vector", "keyword")
THRESHOLD_KEYS = ("cosine", "bm25", "rerank")
FILTER_KEYS = ("document_ids", "external_ids", "metadata")
MAX_TOP_K = 50


@dataclass
class SearchHit:
    """One cited chunk with its final score and every channel's contribution."""

    chunk_id: int
    document_id: int
    document_external_id: str
    document_title: str
    knowledge_base: str
    version: int
    version_id: int
    position: int
    heading_path: str
    text: str
    citation: str
    score: float
    score_kind: str  # rrf | bm25 | cosine | rerank
    channels: dict[str, Any] = field(default_factory=dict)
    explanation: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResult:
    """Hits best first, and the trace of how they were found."""

    query: str
    mode: str
    hits: list[SearchHit]
    trace: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"query": self.query, "mode": self.mode, "hits": [h.as_dict() for h in self.hits],
                "trace": self.trace}


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


# --- helpers --------------------------------------------------------------------------------


class _Timer:
    def __init__(self):
        self.timings: dict[str, float] = {}

    def add(self, stage: str, started: float) -> None:
        self.timings[stage] = round(self.timings.get(stage, 0.0) + (time.perf_counter() - started) * 1000, 3)


def _check_model(kb, model_name: str) -> str | None:
    """Why the KB's vectors cannot be compared with the query's, or None when they can."""
    try:
        from . import reembed  # the knowledge area's guard, when present
    except ImportError:
        reembed = None
    if reembed is not None and hasattr(reembed, "assert_embedding_model"):
        try:
            reembed.assert_embedding_model(kb)
        except EmbeddingModelMismatch as exc:
            return str(exc)
        except Exception:  # the guard is advisory here; the SQL filters by model name anyway
            pass
        return None
    stored = getattr(kb, "embedding_model", "")
    if stored and stored != model_name:
        return f"knowledge base {kb.slug} holds vectors of {stored!r}, the embedder is {model_name!r}"
    return None


def _apply_threshold(hits: list[ChannelHit], threshold: float | None) -> tuple[list[ChannelHit], list[int]]:
    if threshold is None:
        return hits, []
    kept = [h for h in hits if h.score >= threshold]
    removed = [h.chunk_id for h in hits if h.score < threshold]
    return kept, removed


@dataclass(frozen=True)
class Floors:
    """A knowledge base's relevance floors (None: that scale never passes a hit) and where they come from."""

    cosine: float | None
    bm25: float | None
    margin: float | None
    bm25_min_cosine: float | None = None  # a BM25 pass also needs this cosine (matched words, other meaning)
    source: str = "default"
    size_shift: float = 0.0  # added to both cosine floors for this base's size (see floors_for)

    @property
    def off(self) -> bool:
        return self.cosine is None and self.bm25 is None and self.margin is None


def _num(value) -> float | None:
    return None if value is None else float(value)


def size_shift(chunks: int | None, reference: int | None, slope: float | None) -> float:
    """How much higher a cosine floor sits in a base of ``chunks`` than in the ``reference`` base it was set on.

    The best cosine an unrelated question reaches grows with the number of chunks it meets (the
    maximum of more near-misses): measured on cmrc2018-dev subsets of 3 to 1,736 chunks, the 95th
    percentile of off-topic questions' best cosine rose from 0.847 to 0.876, linear in ln(chunks)
    (slope 0.0045). A floor calibrated on a large base is too strict for a small one without this.
    """
    if not chunks or not reference or not slope:
        return 0.0
    return max(-0.05, min(0.05, float(slope) * math.log(max(1, chunks) / float(reference))))


def base_size(kb) -> int:
    """The number of active chunks of ``kb``."""
    return active_chunk_count([kb.pk])


def floors_for(kb, chunks: int | None = None) -> Floors:
    """The base's own floors when any is set (by calibration or the admin), else KNOWLEDGE_FLOOR; both cosine
    floors moved for the base's size (``chunks`` active chunks) when the floors say what size they were set on."""
    default = app_settings.KNOWLEDGE_FLOOR or {}
    slope = _num(default.get("size_slope"))
    if kb.floor_cosine is not None or kb.floor_bm25 is not None or kb.floor_margin is not None:
        reference = (kb.floor_calibration or {}).get("chunks")  # set by calibration; admin floors: no shift
        floors = Floors(kb.floor_cosine, kb.floor_bm25, kb.floor_margin, kb.floor_bm25_min_cosine, "knowledge_base")
    else:
        reference = default.get("reference_chunks")
        floors = Floors(_num(default.get("cosine")), _num(default.get("bm25")), _num(default.get("margin")),
                        _num(default.get("bm25_min_cosine")))
    shift = size_shift(chunks, reference, slope)
    if not shift:
        return floors
    return Floors(None if floors.cosine is None else round(floors.cosine + shift, 4), floors.bm25, floors.margin,
                  None if floors.bm25_min_cosine is None else round(floors.bm25_min_cosine + shift, 4),
                  floors.source, round(shift, 4))


def floor_passes(cosine: float | None, bm25_norm: float, margin: float | None, floors: Floors) -> str:
    """The scale on which the evidence clears its floor ("cosine", "bm25", "margin"), or "" when none does."""
    if floors.cosine is not None and cosine is not None and cosine >= floors.cosine:
        return "cosine"
    if floors.bm25 is not None and bm25_norm >= floors.bm25 and (
            floors.bm25_min_cosine is None or cosine is None or cosine >= floors.bm25_min_cosine):
        return "bm25"
    if floors.margin is not None and margin is not None and margin >= floors.margin:
        return "margin"
    return ""


def _apply_floor(kb, ranked: list[int], channel_info: dict[int, dict[str, Any]], floor_trace: dict[str, Any], *,
                 query_vector, model_name: str, max_bm25: float | None, median_cosine: float | None,
                 enabled: bool, chunks: int | None = None) -> list[int]:
    """``ranked`` without the hits under the base's floors; every hit's evidence in its channel info."""
    if chunks is None and enabled:  # no channel counted the base (the vector channel skipped for its model)
        chunks = base_size(kb)
    floors = floors_for(kb, chunks)
    floor_trace["knowledge_bases"][kb.slug] = {"cosine": floors.cosine, "bm25": floors.bm25, "margin": floors.margin,
                                               "bm25_min_cosine": floors.bm25_min_cosine, "source": floors.source,
                                               "median_cosine": median_cosine, "chunks": chunks,
                                               "size_shift": floors.size_shift}
    if not ranked:
        return ranked
    off = not enabled or floors.off
    cosines = {cid: info["vector"]["score"] for cid, info in ((c, channel_info.get(c, {})) for c in ranked)
               if "vector" in info}
    missing = [cid for cid in ranked if cid not in cosines]
    if missing and query_vector is not None and (not floors.off or not enabled):
        # Keyword-only hits: their cosine, for the same evidence scale (one query over a few ids). Skipped
        # when no floor is configured at all: nothing would read it on the hot path.
        cosines.update(chunk_cosines(missing, query_vector, model_name=model_name))
    kept = []
    for cid in ranked:
        info = channel_info.setdefault(cid, {})
        cosine = cosines.get(cid)
        raw = info.get("keyword", {}).get("score", 0.0)
        bm25_norm = round(raw / max_bm25, 6) if max_bm25 else 0.0
        margin = None if cosine is None or median_cosine is None else round(float(cosine) - median_cosine, 6)
        by = floor_passes(cosine, bm25_norm, margin, floors)
        info["floor"] = {"cosine": None if cosine is None else round(float(cosine), 6), "bm25_norm": bm25_norm,
                         "margin": margin, "passed": bool(by) or off, "by": by or ("off" if off else "")}
        if by or off:
            kept.append(cid)
            continue
        floor_trace["removed"] += 1
        if len(floor_trace["removed_hits"]) < 50:
            shown = "n/a" if cosine is None else f"{cosine:.3f}"
            floor_trace["removed_hits"].append({
                "chunk_id": cid, "knowledge_base": kb.slug, **info["floor"],
                "reason": (f"cosine {shown} < {floors.cosine}; bm25_norm {bm25_norm:.3f} < {floors.bm25} "
                           f"(or cosine < {floors.bm25_min_cosine}); "
                           f"margin {'n/a' if margin is None else f'{margin:.3f}'} < {floors.margin}")})
    return kept


def _citation(title: str, number: int, heading_path: str, position: int) -> str:
    where = f" › {heading_path}" if heading_path else ""
    return f"《{title}》 v{number}{where} #{position + 1}"


def config_snapshot() -> dict[str, Any]:
    """The retrieval settings that decide rankings (stored with evaluation runs)."""
    keys = ("BM25_K1", "BM25_B", "RRF_K", "RRF_WEIGHTS", "HNSW_EF_SEARCH", "SEARCH_CANDIDATES",
            "KEYWORD_CANDIDATE_LIMIT", "SEARCH_THRESHOLDS", "RERANKER", "RERANK_MODEL", "RERANK_TOP_N",
            "QUERY_REWRITER", "EMBEDDER")
    return {k: getattr(app_settings, k) for k in keys}


# --- the search path ------------------------------------------------------------------------


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
    timer = _Timer()
    query, mode, top_k, thresholds, filters = _validate(query, mode, top_k, thresholds, filters)
    kbs = resolve_knowledge_bases(knowledge_bases)
    n_candidates = int(candidates or app_settings.SEARCH_CANDIDATES)
    rrf_k = app_settings.RRF_K
    weights = {**(app_settings.RRF_WEIGHTS or {}), **(weights or {})}
    degraded: list[str] = []
    trace: dict[str, Any] = {
        "query": query, "mode": mode, "effective_mode": mode, "top_k": top_k,
        "knowledge_bases": [kb.slug for kb in kbs], "thresholds": {}, "rrf": {"k": rrf_k, "weights": weights},
        "channels": {}, "degraded": degraded,
    }

    # 1. optional rewrite
    search_query = query
    if rewrite:
        t = time.perf_counter()
        from ..backends.rewriters import get_query_rewriter

        try:
            rewriter = get_query_rewriter()
            if rewriter is None:
                degraded.append("rewrite requested but no QUERY_REWRITER is configured; original query used")
            else:
                search_query = rewriter.rewrite(query) or query
        except BackendError as exc:
            degraded.append(f"rewrite failed ({exc}); original query used")
        timer.add("rewrite", t)
        trace["rewritten_query"] = search_query

    # 2. query vector (once for all knowledge bases), computed in the background while the keyword
    # channel runs: the embedding is the slowest stage and needs nothing from the database.
    use_keyword = mode in ("hybrid", "keyword")
    pending = None
    model_name = ""
    embed_started = time.perf_counter()
    if mode in ("hybrid", "vector") and kbs:
        from ..backends import get_embedder

        try:
            embedder = get_embedder()
            model_name = embedder.model_name
            pending = embedder.prefetch_query(search_query)
        except EmbeddingError as exc:
            degraded.append(f"embedder failed ({exc}); keyword channel only")
            use_keyword = True
            trace["effective_mode"] = "keyword"

    # 3. channels per knowledge base, thresholds per channel, RRF per base
    per_kb_fused: dict[str, list[int]] = {}
    channel_info: dict[int, dict[str, Any]] = {}
    fused_info: dict[int, dict[str, float]] = {}
    removed: dict[str, list[int]] = {"cosine": [], "bm25": []}
    terms_cache: dict[tuple[str, ...], list[str]] = {}
    kb_traces: dict[str, dict[str, Any]] = {kb.slug: {} for kb in kbs}
    active_counts: dict[int, int] = {}  # the keyword channel's N, so the vector channel need not count
    kb_rankings: dict[str, dict[str, list[int]]] = {kb.slug: {} for kb in kbs}
    max_bm25: dict[int, float] = {}  # per base: the query's maximum possible BM25 (the floor's scale)
    median_cosine: dict[int, float] = {}  # per base: the median cosine of the query's vector candidates

    def keyword_channel(kb) -> None:
        t = time.perf_counter()
        dictionary = user_dictionary_terms(kb)
        key = tuple(dictionary)
        if key not in terms_cache:
            terms_cache[key] = list(dict.fromkeys(index_tokens(search_query, terms=dictionary)))
        kw = keyword_search(kb.pk, terms_cache[key], limit=n_candidates, filters=filters)
        active_counts[kb.pk] = kw.chunk_count
        # Every query term the base holds, at unbounded frequency (words the base never uses, the filler of
        # a conversational question, say nothing about any chunk: the cosine floors judge those queries).
        max_bm25[kb.pk] = sum(i.idf for i in kw.terms) * (kw.k1 + 1.0)
        kept, gone = _apply_threshold(kw.hits, thresholds["bm25"])
        removed["bm25"].extend(gone)
        kb_rankings[kb.slug]["keyword"] = [h.chunk_id for h in kept]
        idf = {i.term: i for i in kw.terms}
        for h in kept:
            channel_info.setdefault(h.chunk_id, {})["keyword"] = {
                "rank": h.rank, "score": round(h.score, 6), "matched_terms": h.matched_terms,
                "term_idf": {m: round(idf[m].idf, 4) for m in h.matched_terms if m in idf},
            }
        kb_traces[kb.slug]["keyword"] = {
            "terms": [{"term": i.term, "df": i.df, "idf": round(i.idf, 4), "candidate": i.candidate}
                      for i in kw.terms],
            "unknown_terms": kw.unknown_terms, "skipped_common_terms": kw.skipped_terms,
            "N": kw.chunk_count, "avgdl": round(kw.average_length, 3), "k1": kw.k1, "b": kw.b,
            "returned": len(kw.hits), "kept": len(kept),
        }
        timer.add("keyword", t)

    def vector_channel(kb) -> None:
        t = time.perf_counter()
        problem = _check_model(kb, model_name)
        if problem:
            degraded.append(f"vector channel skipped for {kb.slug}: {problem}")
            kb_traces[kb.slug]["vector"] = {"skipped": problem}
        else:
            if kb.pk not in active_counts:  # vector mode: counted here once, for the scan and the floor
                active_counts[kb.pk] = base_size(kb)
            exact = active_counts[kb.pk] <= app_settings.VECTOR_EXACT_SEARCH_MAX
            vec = vector_search([kb.pk], query_vector, model_name=model_name, limit=n_candidates, filters=filters,
                                exact=exact)
            if len(vec):
                median_cosine[kb.pk] = float(statistics.median(h.score for h in vec))
            kept_v, gone_v = _apply_threshold(vec, thresholds["cosine"])
            removed["cosine"].extend(gone_v)
            kb_rankings[kb.slug]["vector"] = [h.chunk_id for h in kept_v]
            for h in kept_v:
                channel_info.setdefault(h.chunk_id, {})["vector"] = {"rank": h.rank, "score": round(h.score, 6)}
            kb_traces[kb.slug]["vector"] = {
                "model": model_name, "scan": "exact" if vec.exact else "hnsw",
                "ef_search": None if vec.exact else app_settings.HNSW_EF_SEARCH,
                "returned": len(vec), "kept": len(kept_v)}
        timer.add("vector", t)

    if use_keyword:
        for kb in kbs:
            keyword_channel(kb)
    query_vector = None
    if pending is not None:
        t = time.perf_counter()
        try:
            query_vector = pending.result()
        except EmbeddingError as exc:
            degraded.append(f"embedder failed ({exc}); keyword channel only")
            trace["effective_mode"] = "keyword"
        # "embed" is the wait the search saw; "embed_total" the model's time, mostly hidden behind keywords.
        timer.add("embed", t)
        timer.timings["embed_total"] = round((time.perf_counter() - embed_started) * 1000, 3)
        if query_vector is None and not use_keyword:  # vector mode: the keyword channel stands in
            for kb in kbs:
                keyword_channel(kb)
    if query_vector is not None:
        for kb in kbs:
            vector_channel(kb)
    floor_trace: dict[str, Any] = {"applied": bool(floor), "knowledge_bases": {}, "removed": 0, "removed_hits": []}
    for kb in kbs:
        t = time.perf_counter()
        fused = rrf(kb_rankings[kb.slug], k=rrf_k, weights=weights)
        for f in fused:
            fused_info[f.key] = {"rrf": f.score, "contributions": f.contributions}
            for channel, contribution in f.contributions.items():
                channel_info[f.key][channel]["rrf"] = round(contribution, 6)
        per_kb_fused[kb.slug] = [f.key for f in fused]
        timer.add("fuse", t)
        trace["channels"][kb.slug] = kb_traces[kb.slug]
        t = time.perf_counter()
        per_kb_fused[kb.slug] = _apply_floor(kb, per_kb_fused[kb.slug], channel_info, floor_trace,
                                             query_vector=query_vector, model_name=model_name,
                                             max_bm25=max_bm25.get(kb.pk), median_cosine=median_cosine.get(kb.pk),
                                             enabled=floor, chunks=active_counts.get(kb.pk))
        timer.add("floor", t)
    trace["floor"] = floor_trace

    # 4. across knowledge bases: merge the per-base fused lists by their RRF scores. Each base's BM25
    # uses its own statistics, so raw scores are not comparable across bases, but RRF scores are
    # (same channels, same k); interleaving bases by rank alone would put every base's best first.
    t = time.perf_counter()
    if len(per_kb_fused) > 1:
        merged = [(fused_info[cid]["rrf"], rank, cid) for ranked in per_kb_fused.values()
                  for rank, cid in enumerate(ranked)]
        order = [cid for _score, _rank, cid in sorted(merged, key=lambda x: (-x[0], x[1], x[2]))]
    else:
        order = next(iter(per_kb_fused.values()), [])
    timer.add("fuse", t)
    for key in ("cosine", "bm25"):
        trace["thresholds"][key] = {"value": thresholds[key], "removed": len(removed[key]),
                                    "removed_chunk_ids": removed[key][:50]}

    # 5. rerank the fused top-N (optional)
    from ..backends.rerankers import get_reranker

    want_rerank = rerank if rerank is not None else app_settings.RERANK_DEFAULT
    reranker = None
    if want_rerank and order:
        try:
            reranker = get_reranker()
        except Exception as exc:  # misconfiguration must not break search; say so
            degraded.append(f"reranker unavailable ({exc}); fused order kept")
        if reranker is None and rerank:
            degraded.append("rerank requested but no RERANKER is configured; fused order kept")
    depth = max(top_k, app_settings.RERANK_TOP_N) if reranker is not None else top_k
    head = order[:depth]

    t = time.perf_counter()
    chunks = _hydrate(head)
    timer.add("hydrate", t)
    head = [cid for cid in head if cid in chunks]

    rerank_scores: dict[int, float] = {}
    rerank_removed: list[int] = []
    if reranker is not None and head:
        t = time.perf_counter()
        try:
            scores = reranker.rerank(search_query, [_passage(chunks[cid]) for cid in head])
            rerank_scores = dict(zip(head, scores, strict=True))
            position = {cid: i for i, cid in enumerate(head)}
            head = sorted(head, key=lambda cid: (-rerank_scores[cid], position[cid]))
            if thresholds["rerank"] is not None:
                rerank_removed = [cid for cid in head if rerank_scores[cid] < thresholds["rerank"]]
                head = [cid for cid in head if rerank_scores[cid] >= thresholds["rerank"]]
            trace["rerank"] = {"backend": getattr(reranker, "name", type(reranker).__name__), "reranked": len(scores)}
        except BackendError as exc:
            degraded.append(f"rerank failed ({exc}); fused order kept")
            rerank_scores = {}
            trace["rerank"] = {"backend": getattr(reranker, "name", type(reranker).__name__), "error": str(exc)}
        timer.add("rerank", t)
    trace["thresholds"]["rerank"] = {"value": thresholds["rerank"], "removed": len(rerank_removed),
                                     "removed_chunk_ids": rerank_removed[:50],
                                     "applied": bool(rerank_scores)}

    # 6. results
    effective = trace["effective_mode"]
    hits: list[SearchHit] = []
    for cid in head[:top_k]:
        chunk = chunks[cid]
        info = channel_info.get(cid, {})
        if cid in rerank_scores:
            info["rerank"] = {"score": round(rerank_scores[cid], 6)}
            score, kind = rerank_scores[cid], "rerank"
        elif effective == "keyword":
            score, kind = info["keyword"]["score"], "bm25"
        elif effective == "vector":
            score, kind = info["vector"]["score"], "cosine"
        else:
            score, kind = fused_info[cid]["rrf"], "rrf"
        hits.append(SearchHit(
            chunk_id=cid, document_id=chunk.document_id, document_external_id=chunk.document_external_id,
            document_title=chunk.document_title, knowledge_base=chunk.knowledge_base_slug,
            version=chunk.version_number, version_id=chunk.version_id, position=chunk.position,
            heading_path=chunk.heading_path, text=chunk.text,
            citation=_citation(chunk.document_title, chunk.version_number, chunk.heading_path, chunk.position),
            score=round(float(score), 6), score_kind=kind, channels=info,
            explanation=_explain(info, fused_info.get(cid)),
        ))
    timer.timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    trace["timings_ms"] = timer.timings
    return SearchResult(query=query, mode=mode, hits=hits, trace=trace)


def _passage(chunk) -> str:
    return f"{chunk.heading_path}\n{chunk.text}" if chunk.heading_path else chunk.text


@dataclass(frozen=True)
class _ChunkRow:
    """What a search result shows of a chunk, its document, version and knowledge base (one query)."""

    id: int
    document_id: int
    version_id: int
    position: int
    heading_path: str
    text: str
    document_title: str
    document_external_id: str
    version_number: int
    knowledge_base_slug: str


def _hydrate(ids: list[int]) -> dict[int, _ChunkRow]:
    if not ids:
        return {}
    from ..models import Chunk

    # Only active chunks: a hit is never a deprecated version, whatever a channel returned.
    rows = Chunk.objects.filter(pk__in=ids, status=Chunk.Status.ACTIVE).values_list(
        "id", "document_id", "version_id", "position", "heading_path", "text", "document__title",
        "document__external_id", "version__number", "knowledge_base__slug")
    return {row[0]: _ChunkRow(*row) for row in rows}


def _explain(info: dict[str, Any], fused: dict[str, Any] | None) -> str:
    parts = []
    if "keyword" in info:
        k = info["keyword"]
        parts.append(f"keyword #{k['rank']} (BM25 {k['score']:.3f}: {', '.join(k['matched_terms'][:6])})")
    if "vector" in info:
        v = info["vector"]
        parts.append(f"vector #{v['rank']} (cosine {v['score']:.3f})")
    text = " + ".join(parts)
    if fused is not None and len(info.keys() - {"rerank"}) >= 1:
        text += f" → RRF {fused['rrf']:.5f}"
    if "rerank" in info:
        text += f" → rerank {info['rerank']['score']:.4f}"
    return text

"""The channels stage of a knowledge search: per base, BM25 over its keyword index and pgvector cosine, each
with its threshold applied, and in hybrid mode the chunks ranked by their best sentence's cosine (sentences.py;
retrieve.py runs the SQL).

The query is embedded once for all bases, in the background while the keyword channels read the
database (the embedding is the slowest step and needs nothing from it). A failing embedder leaves the
keyword channel alone; a base whose vectors come from another model skips its vector channel.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from ..backends.embeddings.crosslingual import needs_gloss, query_vectors
from ..conf import app_settings
from ..exceptions import BackendError, EmbeddingError, EmbeddingModelMismatch
from ..text.language import language_of
from ..text.lexicon import translated
from .background import background_cosines
from .floor import base_size
from .keywords import index_tokens, user_dictionary_terms
from .retrieve import ChannelHit, chunk_languages, keyword_search, sentence_search, vector_search
from .trace import SearchTrace

FOREIGN_BASE_SHARE = 0.1  # a language with a smaller share of a base's chunks is not searched on its own
TOP_COSINES = 10  # the best candidates' cosines kept for the floor (how far a hit leads the next one)


@dataclass
class BaseEvidence:
    """What the channels found in one base: the ranked chunk ids per channel and the floor's scales."""

    rankings: dict[str, list[int]] = field(default_factory=dict)
    chunks: int | None = None  # active chunks (the keyword channel's N, else counted for the vector scan)
    max_bm25: float | None = None  # the query's maximum possible BM25 in this base
    # Per chunk language ("zh", "en"; "" for a base with none counted): the query's vector candidates' cosine
    # median, mean, standard deviation, best and top ten, the scales the floor judges a hit on.
    cosine_stats: dict[str, dict[str, float]] = field(default_factory=dict)
    languages: dict[int, str] = field(default_factory=dict)  # chunk id -> its language (vector candidates)
    chunk_languages: dict[str, int] | None = None  # the base's active chunks per language
    query_vectors: dict[str, Any] = field(default_factory=dict)  # per chunk language (embeddings/crosslingual.py)
    # With the dictionary's words searched too: the BM25 of the question's own words per chunk (the floor's)
    own_bm25: dict[int, float] | None = None
    own_max_bm25: float | None = None


@dataclass
class ChannelsOutcome:
    """Per base slug, its evidence; the query vector (None: keyword only) and the embedder's model."""

    bases: dict[str, BaseEvidence]
    query_vector: Any = None
    model_name: str = ""
    query_language: str = ""
    search_query: str = ""
    # Per chunk language: the question's dictionary words there and their embedding (None: no words, or the
    # embedder failed), made once for every base that needs them.
    glosses: dict[str, tuple[str, Any]] = field(default_factory=dict)


def rewrite_query(query: str, trace: SearchTrace) -> str:
    """The query as the configured rewriter puts it (the original when there is none, or it fails)."""
    from ..backends.rewriters import get_query_rewriter

    search_query = query
    with trace.timed("rewrite"):
        try:
            rewriter = get_query_rewriter()
            if rewriter is None:
                trace.degrade("rewrite requested but no QUERY_REWRITER is configured; original query used")
            else:
                search_query = rewriter.rewrite(query) or query
        except BackendError as exc:
            trace.degrade(f"rewrite failed ({exc}); original query used")
    trace.rewritten_query = search_query
    return search_query


def run_channels(search_query: str, trace: SearchTrace) -> ChannelsOutcome:
    """Every channel the mode asks for, on every base: keyword first while the query is embedded, then vector."""
    plan = trace.plan
    outcome = ChannelsOutcome(bases={kb.slug: BaseEvidence() for kb in plan.knowledge_bases},
                              query_language=language_of(search_query, default=""), search_query=search_query)
    use_keyword = plan.mode in ("hybrid", "keyword")
    pending = None
    embed_started = time.perf_counter()
    if plan.mode in ("hybrid", "vector") and plan.knowledge_bases:
        from ..backends import get_embedder

        try:
            embedder = get_embedder()
            outcome.model_name = embedder.model_name
            pending = embedder.prefetch_query(search_query)
        except EmbeddingError as exc:
            trace.degrade(f"embedder failed ({exc}); keyword channel only", to_keyword=True)
            use_keyword = True
    terms_cache: dict[tuple, list[str]] = {}
    if use_keyword:
        for kb in plan.knowledge_bases:
            keyword_channel(kb, search_query, outcome.bases[kb.slug], trace, terms_cache)
    if pending is not None:
        with trace.timed("embed"):  # the wait the search saw
            try:
                outcome.query_vector = pending.result()
            except EmbeddingError as exc:
                trace.degrade(f"embedder failed ({exc}); keyword channel only", to_keyword=True)
        # The model's own time, mostly hidden behind the keyword channel.
        trace.timings_ms["embed_total"] = round((time.perf_counter() - embed_started) * 1000, 3)
        if outcome.query_vector is None and not use_keyword:  # vector mode: the keyword channel stands in
            for kb in plan.knowledge_bases:
                keyword_channel(kb, search_query, outcome.bases[kb.slug], trace, terms_cache)
    if outcome.query_vector is not None:
        for kb in plan.knowledge_bases:
            vector_channel(kb, outcome, outcome.bases[kb.slug], trace)
    return outcome


def apply_threshold(hits: list[ChannelHit], threshold: float | None) -> tuple[list[ChannelHit], list[int]]:
    """The hits scoring at least ``threshold`` (all when None), and the ids of the others."""
    if threshold is None:
        return hits, []
    kept = [h for h in hits if h.score >= threshold]
    removed = [h.chunk_id for h in hits if h.score < threshold]
    return kept, removed


def other_languages(languages: dict[str, int], query_language: str) -> set[str]:
    """The languages other than the query's that hold at least FOREIGN_BASE_SHARE of a base's chunks."""
    total = sum(languages.values())
    return {language for language, n in languages.items()
            if query_language and language != query_language and n >= FOREIGN_BASE_SHARE * total}


def keyword_channel(kb, search_query: str, evidence: BaseEvidence, trace: SearchTrace,
                    terms_cache: dict[tuple, list[str]]) -> None:
    """BM25 over the base's keyword index, with the base's user dictionary; the bm25 threshold applied."""
    plan = trace.plan
    with trace.timed("keyword"):
        dictionary = user_dictionary_terms(kb)
        key = (tuple(dictionary), ())
        if key not in terms_cache:
            terms_cache[key] = list(dict.fromkeys(index_tokens(search_query, terms=dictionary)))
        own = keyword_search(kb.pk, terms_cache[key], limit=plan.candidates, filters=plan.filters)
        kw, words = own, {}
        # The query's words in the base's other language too, when it holds one (text/lexicon.py): an English
        # question names 君士坦丁堡 to a Chinese paragraph only through the dictionary.
        into = tuple(sorted(other_languages(own.languages, language_of(search_query, default="")))) \
            if app_settings.CROSS_LINGUAL_KEYWORDS else ()
        if into:
            words = {language: translated(search_query, language) for language in into}
            if (wider := (tuple(dictionary), into)) not in terms_cache:
                terms_cache[wider] = list(dict.fromkeys(
                    [*terms_cache[key], *index_tokens(" ".join(words.values()), terms=dictionary)]))
            if len(terms_cache[wider]) > len(terms_cache[key]):
                kw = keyword_search(kb.pk, terms_cache[wider], limit=plan.candidates, filters=plan.filters)
                # The floor reads the question's own words' BM25, as it was calibrated: a dictionary word
                # matches in most chunks of a base and says less than a name the two texts share.
                evidence.own_bm25 = {h.chunk_id: h.score for h in own.hits}
                evidence.own_max_bm25 = sum(i.idf for i in own.terms) * (own.k1 + 1.0)
        evidence.chunks = kw.chunk_count
        evidence.chunk_languages = kw.languages  # read with N: the vector channel needs no query of its own
        # Every query term the base holds, at unbounded frequency (words the base never uses, the filler of
        # a conversational question, say nothing about any chunk: the cosine floors judge those queries).
        evidence.max_bm25 = sum(i.idf for i in kw.terms) * (kw.k1 + 1.0)
        kept, gone = apply_threshold(kw.hits, plan.thresholds["bm25"])
        trace.removed["bm25"].extend(gone)
        evidence.rankings["keyword"] = [h.chunk_id for h in kept]
        idf = {i.term: i for i in kw.terms}
        for h in kept:
            trace.evidence.setdefault(h.chunk_id, {})["keyword"] = {
                "rank": h.rank, "score": round(h.score, 6), "matched_terms": h.matched_terms,
                "term_idf": {m: round(idf[m].idf, 4) for m in h.matched_terms if m in idf},
            }
        trace.channels[kb.slug]["keyword"] = {
            "terms": [{"term": i.term, "df": i.df, "idf": round(i.idf, 4), "candidate": i.candidate}
                      for i in kw.terms],
            "unknown_terms": kw.unknown_terms, "skipped_common_terms": kw.skipped_terms,
            "N": kw.chunk_count, "avgdl": round(kw.average_length, 3), "k1": kw.k1, "b": kw.b,
            "returned": len(kw.hits), "kept": len(kept),
            **({"dictionary": words} if words else {}),  # the question's words in the base's other language
        }


def vector_channel(kb, outcome: ChannelsOutcome, evidence: BaseEvidence, trace: SearchTrace) -> None:
    """Cosine over the base's vectors (exact scan for a small base, HNSW for a large one); the cosine threshold
    applied. Skipped, and said so, when the base's vectors come from another model than the query's.

    Chunks in another language than the query's are compared with the query's vector moved into their language
    (backends/embeddings/crosslingual.py); a base holding both languages is searched once per language (chunks
    of neither language, digits and symbols, with the query's own), the candidates merged by cosine, so an
    English paragraph is not buried under Chinese near-misses of a Chinese question.
    """
    plan = trace.plan
    with trace.timed("vector"):
        problem = model_mismatch(kb)
        if problem:
            trace.degrade(f"vector channel skipped for {kb.slug}: {problem}")
            trace.channels[kb.slug]["vector"] = {"skipped": problem}
            return
        if evidence.chunks is None:  # vector mode: counted here once, for the scan and the floor
            evidence.chunks = base_size(kb)
        exact = evidence.chunks <= app_settings.VECTOR_EXACT_SEARCH_MAX
        if evidence.chunk_languages is None:
            evidence.chunk_languages = chunk_languages(kb.pk)
        # A language holding under FOREIGN_BASE_SHARE of the chunks is searched with the others: a search filtered
        # to a handful of chunks would walk most of a large base's HNSW graph for them.
        total = sum(evidence.chunk_languages.values())
        languages = {lang: n for lang, n in evidence.chunk_languages.items() if n >= FOREIGN_BASE_SHARE * total}
        evidence.query_vectors = query_vectors(outcome.query_vector, outcome.query_language, languages,
                                               outcome.model_name, glosses=gloss_vectors(outcome, languages, trace))
        if len(languages) > 1:
            own = outcome.query_language if outcome.query_language in languages else next(iter(languages))
            groups = [(language, [language, ""] if language == own else [language]) for language in languages]
        else:
            groups = [(next(iter(languages), ""), None)]
        found, scans, sentences = [], [], []
        # hybrid search ranks chunks by their best sentence too (sentences.py); vector mode is the chunk cosine
        use_sentences = plan.mode == "hybrid" and app_settings.SENTENCE_VECTORS
        for language, only in groups:
            vector = evidence.query_vectors.get(language, outcome.query_vector)
            vec = vector_search([kb.pk], vector,
                                model_name=outcome.model_name, limit=plan.candidates, filters=plan.filters,
                                exact=exact, languages=only)
            scans.append(vec.exact)
            if len(vec):
                scores = [float(h.score) for h in vec]
                # a small base's few chunks are measured among background passages too (background.py)
                padding = background_cosines(language or outcome.query_language, vector, outcome.model_name,
                                             len(scores))
                standing = scores + padding
                evidence.cosine_stats[language] = {
                    "median": statistics.median(standing), "mean": statistics.fmean(standing),
                    "std": statistics.pstdev(standing), "best": max(standing), "n": len(scores),
                    "top": [round(v, 6) for v in sorted(standing, reverse=True)[:TOP_COSINES]],
                    **({"background": len(padding)} if padding else {})}
            found.extend((h.score, h.chunk_id, language) for h in vec)
            if use_sentences:
                sentences.extend((h.score, h.chunk_id, language) for h in sentence_search(
                    [kb.pk], vector, model_name=outcome.model_name, limit=plan.candidates, filters=plan.filters,
                    exact=exact, languages=only))
        found.sort(key=lambda item: (-item[0], item[1]))
        found = found[:plan.candidates]
        threshold = plan.thresholds["cosine"]
        kept = [item for item in found if threshold is None or item[0] >= threshold]
        kept_ids = {cid for _score, cid, _language in kept}
        trace.removed["cosine"].extend(cid for _score, cid, _language in found if cid not in kept_ids)
        if use_sentences:
            sentence_ranking(sentences, plan.candidates, evidence, trace)
        evidence.rankings["vector"] = [cid for _score, cid, _language in kept]
        for rank, (score, cid, language) in enumerate(found, start=1):
            evidence.languages[cid] = language
            if cid in kept_ids:
                entry = {"rank": rank, "score": round(score, 6)}
                if evidence.query_vectors.get(language) is not evidence.query_vectors[""]:
                    entry["shifted_to"] = language  # compared with the query moved into the chunk's language
                trace.evidence.setdefault(cid, {})["vector"] = entry
        trace.channels[kb.slug]["vector"] = {
            "model": outcome.model_name, "scan": "exact" if all(scans) else "hnsw",
            "ef_search": None if all(scans) else app_settings.HNSW_EF_SEARCH,
            "languages": languages, "query_language": outcome.query_language,
            **({"gloss": {language: words for language, (words, vector) in outcome.glosses.items()
                          if vector is not None and language in languages}} if outcome.glosses else {}),
            "returned": len(found), "kept": len(kept),
            **({"sentence_chunks": len(evidence.rankings["sentence"])} if use_sentences else {})}


def sentence_ranking(found: list[tuple[float, int, str]], limit: int, evidence: BaseEvidence,
                     trace: SearchTrace) -> None:
    """The sentence channel's ranking from each language's (best sentence cosine, chunk, language), merged by
    cosine as the vector channel merges its languages, the cosine threshold applied; each chunk's rank and best
    sentence's cosine in its evidence (``sentence``)."""
    threshold = trace.plan.thresholds["cosine"]
    ranked = sorted(found, key=lambda item: (-item[0], item[1]))[:limit]
    found = [item for item in ranked if threshold is None or item[0] >= threshold]
    kept = {cid for _score, cid, _language in found}
    trace.removed["cosine"].extend(cid for _score, cid, _language in ranked
                                   if cid not in kept and cid not in trace.removed["cosine"])
    evidence.rankings["sentence"] = [cid for _score, cid, _language in found]
    for rank, (score, cid, language) in enumerate(found, start=1):
        evidence.languages.setdefault(cid, language)
        trace.evidence.setdefault(cid, {})["sentence"] = {"rank": rank, "score": round(score, 6)}


def gloss_vectors(outcome: ChannelsOutcome, languages, trace: SearchTrace) -> dict[str, Any]:
    """Per chunk language other than the query's, the embedding of the question's dictionary words in it
    (backends/embeddings/crosslingual.py); an embedder failing here costs only the gloss, said in the trace."""
    from ..backends import get_embedder

    for language in needs_gloss(outcome.query_language, languages):
        if language in outcome.glosses:
            continue
        words = translated(outcome.search_query, language)
        vector = None
        if words:
            with trace.timed("embed_gloss"):
                try:
                    vector = get_embedder().embed_query(words)
                except EmbeddingError as exc:
                    trace.degrade(f"the dictionary words' embedding failed ({exc}); the shifted query alone used")
        outcome.glosses[language] = (words, vector)
    return {language: vector for language, (_words, vector) in outcome.glosses.items() if vector is not None}


def model_mismatch(kb) -> str | None:
    """Why the base's vectors cannot be compared with the query's, or None when they can (reembed's guard;
    advisory here: the vector SQL filters by model name anyway)."""
    from .reembed import assert_embedding_model  # imports the ingest stages: loaded when a search needs it

    try:
        assert_embedding_model(kb)
    except EmbeddingModelMismatch as exc:
        return str(exc)
    except Exception:
        return None
    return None

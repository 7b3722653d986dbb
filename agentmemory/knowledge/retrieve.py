"""The retrieval channels over active chunks: Okapi BM25 computed in PostgreSQL, and pgvector cosine.

Keyword channel: the query's terms are looked up in KnowledgeTermStat (document frequencies) and
KnowledgeBaseStats (N, average length) in one query. Candidates come from the postings
(KeywordPosting, an index-only range scan per term carrying tf and the chunk length) of the rarest
terms only, so a query full of common words cannot make the candidate set explode; the best
candidates then get the common terms' contribution by primary-key probes, so every returned chunk
is scored with all query terms:

    score(d) = sum_t idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

tf is the number of positions of the lexeme in the chunk's tsvector (see keywords.py), copied into
its posting when the chunk is published. The formula's pieces are shared with memory recall
(ranking/bm25.py).

Vector channel: for a large base, cosine distance ordered through the HNSW index, with
``hnsw.ef_search`` and ``hnsw.iterative_scan = relaxed_order`` set for the transaction, so filters
(knowledge base, status, documents) do not starve the result; rows are re-sorted by exact distance
afterwards. A base of at most VECTOR_EXACT_SEARCH_MAX chunks is scanned exactly instead: the graph
is shared by all bases, and a filtered walk for a small one mostly visits the others' vectors.
The sentence channel (hybrid search) is the same query over the chunks' sentence vectors (ChunkSentence),
each chunk scored by its best sentence.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from ..conf import app_settings
from ..db import read_alias, read_connection
from ..models.fields import vector_literal
from ..ranking.bm25 import bm25_idf, term_score_params, term_score_sql


@dataclass
class ChannelHit:
    """One chunk found by one channel: 1-based rank, raw score, and (keyword) the terms it matched."""

    chunk_id: int
    rank: int
    score: float
    matched_terms: list[str] = field(default_factory=list)


@dataclass
class TermInfo:
    term: str
    df: int
    idf: float
    candidate: bool = False  # used to generate candidates through the GIN index


@dataclass
class KeywordResult:
    hits: list[ChannelHit]
    terms: list[TermInfo]
    unknown_terms: list[str]
    chunk_count: int
    average_length: float
    k1: float
    b: float
    candidate_terms: list[str]
    skipped_terms: list[str]  # scored but not used for candidates (too common)
    languages: dict[str, int] = field(default_factory=dict)  # active chunks per language (see chunk_languages)


#: Best candidates (at least; twice the limit when larger) that get the skipped common terms'
#: contribution added.
RESCORE_DEPTH = 100


def _tables() -> dict[str, str]:
    from ..models import Chunk, ChunkSentence, Document, KeywordPosting, KnowledgeBaseStats, KnowledgeTermStat

    return {
        "chunk": Chunk._meta.db_table,
        "sentence": ChunkSentence._meta.db_table,
        "postings": KeywordPosting._meta.db_table,
        "document": Document._meta.db_table,
        "stats": KnowledgeBaseStats._meta.db_table,
        "terms": KnowledgeTermStat._meta.db_table,
    }


def filter_sql(filters: dict | None, alias: str = "c") -> tuple[str, list[Any]]:
    """SQL conditions (and params) for search filters: document ids, external ids, document metadata."""
    if not filters:
        return "", []
    tables = _tables()
    parts: list[str] = []
    params: list[Any] = []
    if filters.get("document_ids"):
        parts.append(f"{alias}.document_id = ANY(%s)")
        params.append([int(i) for i in filters["document_ids"]])
    doc_conditions = []
    if filters.get("external_ids"):
        doc_conditions.append("d.external_id = ANY(%s)")
        params.append([str(i) for i in filters["external_ids"]])
    if filters.get("metadata"):
        import json

        doc_conditions.append("d.metadata @> %s::jsonb")
        params.append(json.dumps(filters["metadata"]))
    if doc_conditions:
        parts.append(
            f"{alias}.document_id IN (SELECT d.id FROM {tables['document']} d WHERE "
            + " AND ".join(doc_conditions) + ")"
        )
    return "".join(" AND " + p for p in parts), params


def keyword_search(
    knowledge_base_id: int,
    terms: list[str],
    *,
    limit: int,
    filters: dict | None = None,
    candidate_limit: int | None = None,
) -> KeywordResult:
    """Top ``limit`` active chunks of one knowledge base by Okapi BM25 over ``terms`` (two queries)."""
    cap = candidate_limit if candidate_limit is not None else app_settings.KEYWORD_CANDIDATE_LIMIT
    terms = list(dict.fromkeys(t for t in terms if t))
    result = _term_statistics(knowledge_base_id, terms)
    if not result.terms or result.chunk_count == 0 or limit <= 0:
        return result
    _choose_candidate_terms(result, int(cap))
    result.hits = _score_postings(knowledge_base_id, result, limit=limit, filters=filters)
    return result


def _term_statistics(knowledge_base_id: int, terms: list[str]) -> KeywordResult:
    """The base's N, average length and BM25 parameters, and each known term's df and IDF (one query)."""
    tables = _tables()
    with read_connection.cursor() as cur:
        cur.execute(
            f"""
            SELECT s.chunk_count, s.total_terms, s.bm25_k1, s.bm25_b, s.chunks_zh, s.chunks_en,
                   (SELECT coalesce(json_agg(json_build_array(t.term, t.df)), '[]'::json)
                      FROM {tables['terms']} t WHERE t.knowledge_base_id = %s AND t.term = ANY(%s))
            FROM (SELECT 1) one LEFT JOIN {tables['stats']} s ON s.knowledge_base_id = %s
            """,
            [knowledge_base_id, terms, knowledge_base_id],
        )
        n, total, k1_kb, b_kb, zh, en, df_rows = cur.fetchone()
    n = int(n or 0)
    k1 = float(k1_kb) if k1_kb is not None else app_settings.BM25_K1
    b = float(b_kb) if b_kb is not None else app_settings.BM25_B
    avgdl = (float(total) / n) if n else 0.0
    if isinstance(df_rows, str):  # json may come back as text depending on the driver's loaders
        import json

        df_rows = json.loads(df_rows)
    dfs = {term: int(df) for term, df in (df_rows or []) if int(df) > 0}
    infos = [TermInfo(term=t, df=dfs[t], idf=bm25_idf(n, dfs[t])) for t in terms if t in dfs]
    unknown = [t for t in terms if t not in dfs]
    return KeywordResult(hits=[], terms=infos, unknown_terms=unknown, chunk_count=n, average_length=avgdl,
                         k1=k1, b=b, candidate_terms=[], skipped_terms=[],
                         languages={lang: int(c) for lang, c in (("zh", zh), ("en", en)) if c})


def _choose_candidate_terms(result: KeywordResult, cap: int) -> None:
    """Mark the terms whose postings generate candidates; the others only score.

    Candidates from the rarest terms first, until their postings would exceed the cap: a chunk
    matching only very common terms cannot outrank one matching a rare term by much, and scanning
    the postings of "的"-like terms at 100k chunks is what makes naive OR queries slow. A term in
    more than KEYWORD_COMMON_TERM_RATIO of the chunks never generates candidates (if a rarer one does).
    """
    infos, n = result.terms, result.chunk_count
    cumulative = 0
    # When all postings fit under the cap, every term generates candidates (exact BM25).
    common_df = app_settings.KEYWORD_COMMON_TERM_RATIO * n if sum(i.df for i in infos) > cap else n
    for info in sorted(infos, key=lambda i: (i.df, i.term)):
        if result.candidate_terms and (cumulative + info.df > cap or info.df > common_df):
            result.skipped_terms.append(info.term)
            continue
        cumulative += info.df
        info.candidate = True
        result.candidate_terms.append(info.term)


def _score_postings(knowledge_base_id: int, result: KeywordResult, *, limit: int,
                    filters: dict | None) -> list[ChannelHit]:
    """BM25 of the candidates from the candidate terms' postings, the best of them completed with the common
    terms' contribution (one query)."""
    tables = _tables()
    idf_of = {i.term: i.idf for i in result.terms}
    if filters:
        extra, extra_params = filter_sql(filters)
        filter_join = f"JOIN {tables['chunk']} c ON c.id = p.chunk_id {extra}"
    else:
        filter_join, extra_params = "", []
    skipped = result.skipped_terms
    avgdl = result.average_length or 1.0
    candidate_score = term_score_sql(idf="q.idf", tf="p.tf", length="p.length", avgdl="%s")
    common_score = term_score_sql(idf="(%s::float8[])[array_position(%s::text[], p.term)]", tf="p.tf",
                                  length="p.length", avgdl="%s")
    with read_connection.cursor() as cur:
        cur.execute(
            f"""
            WITH q(term, idf) AS (SELECT * FROM unnest(%s::text[], %s::float8[])),
            cand AS MATERIALIZED (
                -- one index-only range scan of the postings per candidate term, exact BM25 over them
                SELECT p.chunk_id,
                       sum({candidate_score}) AS s,
                       array_agg(q.term) AS matched
                FROM q JOIN {tables['postings']} p ON p.knowledge_base_id = %s AND p.term = q.term
                {filter_join}
                GROUP BY p.chunk_id
                ORDER BY s DESC, p.chunk_id
                LIMIT %s
            )
            SELECT cand.chunk_id, cand.s + coalesce(extra.s, 0.0), cand.matched || coalesce(extra.matched, '{{}}')
            FROM cand LEFT JOIN LATERAL (
                -- the common terms' contribution to each of the best candidates: one index-only
                -- range of the (chunk_id, term) index per chunk (the aggregate keeps the planner
                -- from turning this into a scan of the common terms' whole postings)
                SELECT sum({common_score}) AS s,
                       array_agg(p.term) AS matched
                FROM {tables['postings']} p
                WHERE p.chunk_id = cand.chunk_id AND p.term = ANY(%s::text[])
            ) extra ON true
            ORDER BY 2 DESC, 1
            LIMIT %s
            """,
            [result.candidate_terms, [idf_of[t] for t in result.candidate_terms],
             *term_score_params(result.k1, result.b), avgdl, knowledge_base_id, *extra_params,
             max(limit * 2, RESCORE_DEPTH),
             [idf_of[t] for t in skipped], skipped, *term_score_params(result.k1, result.b), avgdl, skipped, limit],
        )
        rows = cur.fetchall()
    return [
        ChannelHit(chunk_id=row[0], rank=rank, score=float(row[1]),
                   matched_terms=sorted(row[2], key=lambda t: (-idf_of[t], t)))
        for rank, row in enumerate(rows, start=1)
    ]


class VectorHits(list):
    """Vector channel hits, best first; ``exact`` says whether the base was scanned exactly or via HNSW."""

    exact: bool = False


@functools.lru_cache(maxsize=8)
def _iterative_scan_supported(vendor_key: str) -> bool:
    with read_connection.cursor() as cur:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cur.fetchone()
    if not row:
        return False
    parts = [int(p) for p in row[0].split(".")[:2] if p.isdigit()]
    return tuple(parts) >= (0, 8)


def active_chunk_count(knowledge_base_ids) -> int:
    """Active chunks of the given bases in all (kept by the keyword index's statistics)."""
    with read_connection.cursor() as cur:
        cur.execute(f"SELECT coalesce(sum(chunk_count), 0) FROM {_tables()['stats']} WHERE knowledge_base_id = ANY(%s)",
                    [list(knowledge_base_ids)])
        return int(cur.fetchone()[0])


def chunk_languages(knowledge_base_id: int) -> dict[str, int]:
    """The base's active chunks per language ("zh", "en"; kept with the keyword index's statistics)."""
    with read_connection.cursor() as cur:
        cur.execute(f"SELECT chunks_zh, chunks_en FROM {_tables()['stats']} WHERE knowledge_base_id = %s",
                    [knowledge_base_id])
        row = cur.fetchone()
    return {} if row is None else {lang: int(n) for lang, n in zip(("zh", "en"), row, strict=True) if n}


def vector_search(
    knowledge_base_ids: list[int],
    query_vector,
    *,
    model_name: str,
    limit: int,
    filters: dict | None = None,
    ef_search: int | None = None,
    exact: bool | None = None,
    languages: list[str] | None = None,
) -> VectorHits:
    """Nearest active chunks by cosine similarity (score = 1 - cosine distance), best first.

    ``exact`` None decides by size: bases holding at most VECTOR_EXACT_SEARCH_MAX active chunks in
    all are scanned exactly, larger ones through the HNSW index.
    """
    return _nearest("chunk", knowledge_base_ids, query_vector, model_name=model_name, limit=limit, filters=filters,
                    ef_search=ef_search, exact=exact, languages=languages)


def sentence_search(
    knowledge_base_ids: list[int],
    query_vector,
    *,
    model_name: str,
    limit: int,
    filters: dict | None = None,
    ef_search: int | None = None,
    exact: bool | None = None,
    languages: list[str] | None = None,
) -> VectorHits:
    """Active chunks ranked by their best sentence's cosine similarity (ChunkSentence; knowledge/sentences.py),
    best first; the score is that sentence's (a chunk of one sentence has one row, its own vector). Chunks without
    sentence vectors (imported with SENTENCE_VECTORS off, or before they existed) are not in it. Scanned as
    ``vector_search`` scans."""
    return _nearest("sentence", knowledge_base_ids, query_vector, model_name=model_name, limit=limit,
                    filters=filters, ef_search=ef_search, exact=exact, languages=languages)


#: Sentences read per chunk asked for: a chunk's near sentences come together, and ``limit`` chunks are wanted.
SENTENCES_PER_CHUNK = 6
#: pgvector's largest ``hnsw.ef_search``.
HNSW_EF_SEARCH_MAX = 1000


def _nearest(rows: str, knowledge_base_ids: list[int], query_vector, *, model_name: str, limit: int,
             filters: dict | None, ef_search: int | None, exact: bool | None,
             languages: list[str] | None) -> VectorHits:
    """The one nearest-neighbour query of both vector channels: over chunk vectors (``rows`` "chunk") or over
    sentence vectors folded to their chunks by the best sentence ("sentence")."""
    if limit <= 0 or not knowledge_base_ids:
        return VectorHits()
    tables = _tables()
    ef = max(int(ef_search or app_settings.HNSW_EF_SEARCH), limit)
    extra, extra_params = filter_sql(filters)
    if languages is not None:  # one language's chunks of a mixed base (channels.vector_channel)
        extra, extra_params = extra + " AND c.language = ANY(%s)", [*extra_params, list(languages)]
    literal = vector_literal(query_vector)
    if rows == "chunk":
        column, source, key = "c.embedding", f"{tables['chunk']} c", "c.id"
        where = "c.embedding IS NOT NULL AND c.embedding_model = %s"
        depth = limit
    else:
        column, source, key = "s.embedding", f"{tables['sentence']} s JOIN {tables['chunk']} c ON c.id = s.chunk_id", \
            "s.chunk_id"
        where = "s.embedding_model = %s"
        depth = limit * SENTENCES_PER_CHUNK
        ef = min(max(ef, depth), HNSW_EF_SEARCH_MAX)
    with transaction.atomic(using=read_alias()), read_connection.cursor() as cur:
        if exact is None:
            exact = active_chunk_count(knowledge_base_ids) <= app_settings.VECTOR_EXACT_SEARCH_MAX
        if exact:
            # A small base inside a large table: the HNSW graph is shared by every base, so a
            # filtered walk visits mostly other bases' vectors; exact distances over the base's own
            # rows (the knowledge_base/status index) are faster and lose nothing ("+ 0" keeps the
            # planner off the HNSW index).
            order = f"({column} <=> %s::vector) + 0"
        else:
            order = f"{column} <=> %s::vector"
            iterative = _iterative_scan_supported(read_connection.settings_dict.get("NAME", ""))
            # enable_sort off: the size was decided above from the base's own count. Left to itself, the
            # planner reads the base's share from the table's statistics, and for a base they do not know
            # yet (bulk-imported since the last ANALYZE, or outside the most-common-values list of a table
            # shared by many bases) it estimates a handful of rows and sorts the whole base exactly: 120 ms
            # at 100k chunks against 2 ms through the graph (docs/deployment.md, "A million rows").
            cur.execute(
                "SELECT set_config('hnsw.ef_search', %s, true), set_config('enable_sort', 'off', true)"
                + (", set_config('hnsw.iterative_scan', 'relaxed_order', true)" if iterative else ""),
                [str(ef)],
            )
        cur.execute(
            f"""
            WITH nn AS MATERIALIZED (
                SELECT {key} AS id, {column} <=> %s::vector AS distance
                FROM {source}
                WHERE c.knowledge_base_id = ANY(%s) AND c.status = 'active' AND {where} {extra}
                ORDER BY {order}
                LIMIT %s
            )
            SELECT id, min(distance) AS distance FROM nn GROUP BY id ORDER BY distance, id LIMIT %s
            """,
            [literal, list(knowledge_base_ids), model_name, *extra_params, literal, depth, limit],
        )
        found = cur.fetchall()
    hits = VectorHits(ChannelHit(chunk_id=row[0], rank=rank, score=1.0 - float(row[1]))
                      for rank, row in enumerate(found, start=1))
    hits.exact = bool(exact)
    return hits


def chunk_cosines(chunk_ids: list[int], query_vectors: dict[str, Any], *,
                  model_name: str) -> dict[int, tuple[float, str]]:
    """Each chunk's cosine similarity to the query vector of its language (``query_vectors[""]`` for a language
    without its own), and that language; only chunks embedded with ``model_name``."""
    if not chunk_ids:
        return {}
    tables = _tables()
    raw = query_vectors[""]
    zh, en = (vector_literal(query_vectors.get(lang, raw)) for lang in ("zh", "en"))
    with read_connection.cursor() as cur:
        cur.execute(f"SELECT id, language, 1 - (embedding <=> CASE language WHEN 'zh' THEN %s::vector "
                    f"WHEN 'en' THEN %s::vector ELSE %s::vector END) FROM {tables['chunk']} "
                    f"WHERE id = ANY(%s) AND embedding IS NOT NULL AND embedding_model = %s",
                    [zh, en, vector_literal(raw), list(chunk_ids), model_name])
        return {pk: (float(score), language) for pk, language, score in cur.fetchall()}

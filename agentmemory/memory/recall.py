"""Recall: hybrid search (pgvector cosine + BM25 in SQL) over one user's memories, with a score breakdown.

final = relevance x decay x source weight x confidence x frequency, where relevance fuses the two
channels (min-max normalised CombSUM by default, or RRF), decay halves every MEMORY_HALF_LIFE_DAYS
since the last access (never below MEMORY_DECAY_FLOOR; recency), frequency =
1 + MEMORY_ACCESS_WEIGHT x min(1, ln(1 + access_count) / ln(1 + MEMORY_ACCESS_SATURATION)) (how often
the item was used), and source weights rank user_stated > system_log > model_inferred. When the embedder fails, recall degrades to keyword-only and says so.
"""
from __future__ import annotations

import datetime as dt
import json
import logging
import math
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ..backends import get_embedder
from ..conf import app_settings
from ..exceptions import EmbeddingError, InvalidInput
from ..models import MemoryItem
from ..models.fields import vector_literal
from ..text import query_terms
from ..text.tsvector import tsquery_any
from ..validation import validate_query, validate_tags, validate_user_id
from .access import record_access
from .decay import decay_factor, frequency_factor
from .priors import in_period, named_period, named_speaker, speaker_of

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every factor of a recalled item's score (None: the channel did not find it)."""

    vector: float | None
    bm25: float | None
    vector_norm: float
    bm25_norm: float
    relevance: float  # fused channels + episodic context
    context: float  # the part of relevance that neighbouring turns added
    decay: float
    source_weight: float
    confidence: float
    frequency: float  # 1 + the access-count bonus
    final: float
    window: float | None = None  # BM25 of the dialogue window around the turn (None: no window matched)
    window_cosine: float | None = None  # mean cosine of that window's turns (None: not a dialogue turn)
    prior: float = 1.0  # the speaker/date multiplier in relevance (priors.py)


@dataclass(frozen=True)
class RecalledMemory:
    memory: MemoryItem
    scores: ScoreBreakdown

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.memory.pk, "scores": asdict(self.scores)}


class RecallResult(list):
    """The recalled memories, best first; ``mode`` is "hybrid" or "keyword" (embedder unavailable)."""

    def __init__(self, items=(), *, mode: str = "hybrid", degraded_reason: str = ""):
        super().__init__(items)
        self.mode = mode
        self.degraded_reason = degraded_reason

    @property
    def degraded(self) -> bool:
        return self.mode != "hybrid"


# --- pure scoring -------------------------------------------------------------------------------
def _minmax(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def fuse(vector: dict[int, float], bm25: dict[int, float], *, method: str, vector_weight: float,
         rrf_k: int = 60, extra: Sequence[tuple[dict[int, float], float]] = (),
         ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
    """Relevance of every candidate from the channels: (relevance, vector_norm, bm25_norm).

    ``extra`` channels (the dialogue windows: their BM25, their mean cosine) each add weight x their
    normalised score on top of the vector/keyword mix, so a memory outside every window keeps the
    relevance it had without them.
    """
    extra = [(scores, weight) for scores, weight in extra if weight > 0 and scores]
    ids = set(vector) | set(bm25)
    for scores, _weight in extra:
        ids |= set(scores)
    if method == "rrf":
        def ranks(scores):
            return {k: i for i, k in enumerate(sorted(scores, key=lambda k: -scores[k]), start=1)}
        vr, br = ranks(vector), ranks(bm25)
        vn = {k: 1.0 / (rrf_k + vr[k]) if k in vr else 0.0 for k in ids}
        bn = {k: 1.0 / (rrf_k + br[k]) if k in br else 0.0 for k in ids}
        # Scaled so that rank 1 in both channels gives 1.0.
        relevance = {k: (vn[k] + bn[k]) * (rrf_k + 1) / 2 for k in ids}
        for scores, weight in extra:
            for k, rank in ranks(scores).items():
                relevance[k] += weight * (rrf_k + 1) / 2 / (rrf_k + rank)
        return relevance, vn, bn
    vn_raw, bn_raw = _minmax(vector), _minmax(bm25)
    vn = {k: vn_raw.get(k, 0.0) for k in ids}
    bn = {k: bn_raw.get(k, 0.0) for k in ids}
    w = vector_weight if vector and bm25 else (1.0 if vector else 0.0)
    relevance = {k: w * vn[k] + (1 - w) * bn[k] for k in ids}
    for scores, weight in extra:
        for k, value in _minmax(scores).items():
            relevance[k] += weight * value
    return relevance, vn, bn


def with_neighbour_context(relevance: dict[int, float], positions: dict[int, tuple[str, int | None]], *,
                           window: int, weight: float) -> dict[int, float]:
    """Episodic context: a turn of a dialogue log gains ``weight`` x its best neighbour's relevance.

    Neighbours are candidates of the same session within ``window`` turns. A question is often
    answered by the turn next to the one that matches its words ("When did ...?" / "Last week.").
    """
    if window <= 0 or weight <= 0:
        return relevance
    by_session: dict[str, dict[int, int]] = {}
    for pk, (session, turn) in positions.items():
        if session and turn is not None and pk in relevance:
            by_session.setdefault(session, {})[turn] = pk
    if not by_session:
        return relevance
    out = dict(relevance)
    for turns in by_session.values():
        for turn, pk in turns.items():
            best = max((relevance[turns[t]] for t in range(turn - window, turn + window + 1)
                        if t != turn and t in turns), default=0.0)
            out[pk] = relevance[pk] + weight * best
    return out


# --- SQL ----------------------------------------------------------------------------------------
def _scope_sql(user_id: str, statuses: list[str], sources: list[str], agent_ids: list[str] | None,
               as_of: dt.datetime | None, tags: dict[str, str] | None = None) -> tuple[str, list]:
    """Conditions (on the memory table aliased ``m``) and params of the scope searched."""
    sql = "m.user_id = %s AND m.status = ANY(%s) AND m.source = ANY(%s)"
    params: list = [user_id, statuses, sources]
    if tags:
        sql += " AND m.tags @> %s::jsonb"
        params.append(json.dumps(tags, ensure_ascii=False))
    if agent_ids is not None:
        sql += " AND m.agent_id = ANY(%s)"
        params.append(agent_ids)
    if as_of is not None:
        sql += (" AND ((m.valid_from IS NULL AND m.created_at <= %s) OR m.valid_from <= %s)"
                " AND (m.valid_to IS NULL OR m.valid_to > %s)")
        params += [as_of, as_of, as_of]
    return sql, params


@dataclass(frozen=True)
class _Candidate:
    vector: float | None
    bm25: float | None
    source: str
    confidence: float
    last_touch: dt.datetime
    access_count: int = 0
    session_id: str = ""
    turn_id: int | None = None
    speaker: str = ""  # of a dialogue-log turn ("Name: words")
    when: dt.datetime | None = None  # valid_from, else created_at
    window_cosine: float | None = None  # mean cosine of the dialogue window around the turn


def _keyword_channel(user_id: str, scope: str, params: list, terms: list[str],
                     limit: int, window: int = 0) -> tuple[dict[int, float], dict[int, float], int]:
    """BM25 over the scope's memories (IDF and average length of the scope itself): the top ``limit``;
    with ``window`` > 0, BM25 of each dialogue turn's window (the turns of its session within
    ``window`` turns, the words of a question often spread over a question and its answer); and the
    number of the user's memories, which decides exact or HNSW search for the vector channel (the exact
    scan reads every row of the user; counted here to save a round trip)."""
    table = MemoryItem._meta.db_table
    user_rows = f"(SELECT count(*) FROM {table} WHERE user_id = %s)"
    with connection.cursor() as cursor:
        if not terms:
            cursor.execute(f"SELECT {user_rows}", [user_id])
            return {}, {}, int(cursor.fetchone()[0])
        k1, b = app_settings.MEMORY_BM25_K1, app_settings.MEMORY_BM25_B
        log = MemoryItem.Source.SYSTEM_LOG
        cursor.execute(
            f"""
            WITH scope AS MATERIALIZED (
                SELECT m.id, m.search_vector, m.term_count, m.source, m.session_id, m.turn_id
                FROM {table} m WHERE {scope}),
            stats AS (SELECT count(*)::float8 AS n, GREATEST(avg(term_count), 1)::float8 AS avgdl FROM scope),
            hits AS MATERIALIZED (
                SELECT s.id, s.term_count, s.source, s.session_id, s.turn_id, u.lexeme,
                       coalesce(array_length(u.positions, 1), 1) AS tf
                FROM scope s CROSS JOIN LATERAL unnest(s.search_vector) u
                WHERE s.search_vector @@ %s::tsquery AND u.lexeme = ANY(%s)
            ),
            df AS (SELECT lexeme, ln(1 + (st.n - count(*) + 0.5) / (count(*) + 0.5)) AS idf
                   FROM hits CROSS JOIN stats st GROUP BY lexeme, st.n),
            ranked AS (
                SELECT h.id, sum(df.idf * h.tf * (%s + 1) / (h.tf + %s * (1 - %s + %s * h.term_count / st.avgdl))) AS score
                FROM hits h JOIN df USING (lexeme) CROSS JOIN stats st
                GROUP BY h.id ORDER BY score DESC, h.id LIMIT %s
            ),
            -- Dialogue turns (a session and a turn number) with the length of their window.
            logs AS MATERIALIZED (
                SELECT id, session_id, turn_id, sum(term_count) OVER (
                    PARTITION BY session_id ORDER BY turn_id
                    RANGE BETWEEN %s::bigint PRECEDING AND %s::bigint FOLLOWING)::float8 AS wlen
                FROM scope WHERE %s > 0 AND source = '{log}' AND session_id <> '' AND turn_id IS NOT NULL
            ),
            -- Each match counted in the windows of the turns around it (materialized: one hash on both keys).
            shifted AS MATERIALIZED (
                SELECT h.session_id, h.turn_id + o AS target, h.lexeme, h.tf
                FROM hits h CROSS JOIN generate_series(-%s, %s) o WHERE h.source = '{log}'
            ),
            wtf AS (
                SELECT l.id, l.wlen, t.lexeme, sum(t.tf) AS tf
                FROM shifted t JOIN logs l ON l.session_id = t.session_id AND l.turn_id = t.target
                GROUP BY l.id, l.wlen, t.lexeme
            ),
            wavg AS MATERIALIZED (SELECT GREATEST(avg(wlen), 1) AS avgwl FROM logs),
            wranked AS (
                SELECT w.id, sum(df.idf * w.tf * (%s + 1) / (w.tf + %s * (1 - %s + %s * w.wlen / wa.avgwl))) AS score
                FROM wtf w JOIN df USING (lexeme) CROSS JOIN wavg wa
                GROUP BY w.id ORDER BY score DESC, w.id LIMIT %s
            )
            SELECT id, score, false FROM ranked
            UNION ALL SELECT id, score, true FROM wranked
            UNION ALL SELECT NULL, {user_rows}, false
            """,
            [*params, tsquery_any(terms), terms, k1, k1, b, b, limit, window, window, window, window, window,
             k1, k1, b, b, limit, user_id],
        )
        scores: dict[int, float] = {}
        windows: dict[int, float] = {}
        size = 0
        for pk, value, is_window in cursor.fetchall():
            if pk is None:  # the count row
                size = int(value)
            elif is_window:
                windows[pk] = float(value)
            else:
                scores[pk] = float(value)
        return scores, windows, size


def _candidates(scope: str, params: list, *, vector: list[float] | None, model_name: str,
                exact: bool, limit: int, bm25: dict[int, float], keyword_ids: set[int],
                window: int = 0) -> dict[int, _Candidate]:
    """The vector channel's top ``limit`` and the keyword hits, with what the final score needs of each row;
    with ``window`` > 0, each dialogue turn's mean cosine over the turns of its session within ``window``."""
    table = MemoryItem._meta.db_table
    log = MemoryItem.Source.SYSTEM_LOG
    args: list = []
    window_sql = "NULL::float8"
    if vector is not None:
        literal = vector_literal(vector)
        # A user's scope is usually small: exact distances over the user_id index beat a filtered
        # HNSW walk through everyone's vectors ("+ 0" keeps the planner off HNSW).
        order = "(m.embedding <=> %s::vector) + 0" if exact else "m.embedding <=> %s::vector"
        vec = (f"vec AS (SELECT m.id, 1 - (m.embedding <=> %s::vector) AS sim FROM {table} m "
               f"WHERE {scope} AND m.embedding IS NOT NULL AND m.embedding_model = %s ORDER BY {order} LIMIT %s)")
        args += [literal, *params, model_name, literal, limit]
        if window > 0:
            # The neighbours are the same user's turns of the same session (isolation holds here too).
            window_sql = (f"CASE WHEN m.source = '{log}' AND m.session_id <> '' AND m.turn_id IS NOT NULL THEN "
                          f"(SELECT avg(1 - (n.embedding <=> %s::vector)) FROM {table} n WHERE n.user_id = m.user_id "
                          f"AND n.source = '{log}' AND n.session_id = m.session_id AND n.embedding_model = %s "
                          f"AND n.turn_id BETWEEN m.turn_id - %s AND m.turn_id + %s) END")
    else:
        vec = "vec AS (SELECT NULL::bigint AS id, NULL::float8 AS sim WHERE false)"
    sql = f"""
        WITH {vec}
        SELECT m.id, vec.sim, m.source, m.confidence, coalesce(m.last_accessed_at, m.created_at),
               m.access_count, m.session_id, m.turn_id,
               CASE WHEN m.source = '{MemoryItem.Source.SYSTEM_LOG}' THEN left(m.content, 48) ELSE '' END,
               coalesce(m.valid_from, m.created_at), {window_sql}
        FROM (SELECT id FROM vec UNION SELECT unnest(%s::bigint[])) c
        JOIN {table} m ON m.id = c.id AND {scope}
        LEFT JOIN vec ON vec.id = c.id"""
    # The keyword ids came from an earlier statement: the scope is checked again in this snapshot.
    if window_sql != "NULL::float8":
        args += [literal, model_name, window, window]
    args += [sorted(keyword_ids), *params]
    hnsw = vector is not None and not exact
    # Only the HNSW settings need a transaction (SET LOCAL); the exact scan saves its BEGIN/COMMIT.
    with transaction.atomic() if hnsw else nullcontext(), connection.cursor() as cursor:
        if hnsw:
            # A large scope: HNSW, with iterative scan so the user filter still fills the list.
            cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                           "set_config('hnsw.ef_search', %s, true)",
                           [str(max(limit, app_settings.HNSW_EF_SEARCH))])
        cursor.execute(sql, args)
        rows = cursor.fetchall()
    return {
        row[0]: _Candidate(None if row[1] is None else float(row[1]), bm25.get(row[0]), row[2],
                           float(row[3]), row[4], int(row[5] or 0), row[6], row[7], speaker_of(row[8]), row[9],
                           None if row[10] is None else float(row[10]))
        for row in rows
    }


# --- the service --------------------------------------------------------------------------------
def recall_memories(user_id: str, query: str, *, top_k: int = 5, agent_id: str | None = None,
                    include_cold: bool = False, include_inferred: bool = False, as_of: dt.datetime | None = None,
                    agent_ids: list[str] | None = None, touch: bool = True,
                    tags: Mapping[str, str] | None = None) -> RecallResult:
    """The ``top_k`` memories of ``user_id`` most relevant to ``query``, with their score breakdown.

    Only that user's items are searched. ``agent_id`` adds the agent's own items to the shared ones
    (``agent_ids`` does the same for several agents; None = every agent). Cold and model_inferred
    items are left out unless asked for; ``as_of`` searches what was valid at that time (superseded
    items included); ``tags`` keeps only items carrying all of these context tags
    (``{"project": "java-billing"}``). Returned items get their access count and last access updated (one UPDATE,
    written in the background after the call returns; see access.py); ``touch=False`` skips that
    (benchmarks, previews).
    """
    validate_user_id(user_id)
    tags = validate_tags(tags)
    if isinstance(query, str):
        query = query.replace("\x00", "")  # PostgreSQL text cannot hold NUL
    query = validate_query(query)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 100:
        raise InvalidInput("top_k must be an integer between 1 and 100.", field="top_k")
    if as_of is not None and timezone.is_naive(as_of):
        as_of = timezone.make_aware(as_of, dt.UTC)
    statuses = [MemoryItem.Status.ACTIVE]
    if include_cold:
        statuses.append(MemoryItem.Status.COLD)
    if as_of is not None:
        statuses += [MemoryItem.Status.COLD, MemoryItem.Status.SUPERSEDED]
    sources = [MemoryItem.Source.USER_STATED, MemoryItem.Source.SYSTEM_LOG]
    if include_inferred:
        sources.append(MemoryItem.Source.MODEL_INFERRED)
    if agent_ids is not None:
        visible: list[str] | None = ["", *agent_ids]
    else:
        visible = None if agent_id is None else ["", agent_id]
    if visible is not None and agent_id is not None and agent_id not in visible:
        visible = ["", agent_id]

    mode, reason = "hybrid", ""
    vector = None
    model_name = ""
    pending = None
    try:
        embedder = get_embedder()
        model_name = embedder.model_name
        # The model runs in the background while the keyword channel queries the database.
        pending = embedder.prefetch_query(query)
    except EmbeddingError as exc:
        mode, reason = "keyword", f"embedder unavailable, keyword search only: {exc}"

    scope, params = _scope_sql(user_id, sorted(set(statuses)), sources, visible, as_of, tags)
    candidates = max(app_settings.MEMORY_CANDIDATES, top_k)
    turns = app_settings.MEMORY_WINDOW_TURNS
    bm25, windows, user_rows = _keyword_channel(
        user_id, scope, params, query_terms(query), candidates,
        window=turns if app_settings.MEMORY_WINDOW_WEIGHT > 0 else 0)
    exact = user_rows <= app_settings.MEMORY_EXACT_SEARCH_MAX
    if pending is not None:
        try:
            vector = [float(x) for x in pending.result()]
        except EmbeddingError as exc:
            mode, reason = "keyword", f"embedder unavailable, keyword search only: {exc}"
    if mode != "hybrid":
        logger.warning("memory recall degraded to keyword-only: %s", reason)
    found = _candidates(scope, params, vector=vector, model_name=model_name, exact=exact, limit=candidates,
                        bm25=bm25, keyword_ids=set(bm25) | set(windows),
                        window=turns if app_settings.MEMORY_WINDOW_VECTOR_WEIGHT > 0 else 0)
    ranked = _rank(query, found, {pk: v for pk, v in windows.items() if pk in found})[:top_k]
    if not ranked:
        return RecallResult([], mode=mode, degraded_reason=reason)
    rows = {m.pk: m for m in MemoryItem.objects.by_ids_for_user(user_id, [pk for pk, _s in ranked])}
    top = [RecalledMemory(rows[pk], scores) for pk, scores in ranked if pk in rows]
    if touch and top:
        record_access(user_id, [r.memory.pk for r in top], timezone.now())
    return RecallResult(top, mode=mode, degraded_reason=reason)


def _priors(query: str, found: dict[int, _Candidate]) -> dict[int, float]:
    """The multiplier of each candidate from the speaker and the period the question names (priors.py)."""
    speaker_weight = app_settings.MEMORY_SPEAKER_PRIOR
    date_weight = app_settings.MEMORY_DATE_PRIOR
    speaker = named_speaker(query, (c.speaker for c in found.values() if c.speaker)) if speaker_weight else ""
    months, years = named_period(query) if date_weight else (set(), set())
    out = {}
    for pk, cand in found.items():
        factor = 1.0
        if speaker and cand.speaker == speaker:
            factor *= 1.0 + speaker_weight
        if (months or years) and in_period(cand.when, months, years):
            factor *= 1.0 + date_weight
        out[pk] = factor
    return out


def _rank(query: str, found: dict[int, _Candidate], windows: dict[int, float]) -> list[tuple[int, ScoreBreakdown]]:
    """Every candidate with its score breakdown, best first (final, then relevance, then newest id)."""
    vec_scores = {pk: c.vector for pk, c in found.items() if c.vector is not None}
    bm_scores = {pk: c.bm25 for pk, c in found.items() if c.bm25 is not None}
    window_cosines = {pk: c.window_cosine for pk, c in found.items() if c.window_cosine is not None}
    relevance, vn, bn = fuse(vec_scores, bm_scores, method=app_settings.MEMORY_FUSION,
                             vector_weight=app_settings.MEMORY_VECTOR_WEIGHT, rrf_k=app_settings.RRF_K,
                             extra=[(windows, app_settings.MEMORY_WINDOW_WEIGHT),
                                    (window_cosines, app_settings.MEMORY_WINDOW_VECTOR_WEIGHT)])
    context = with_neighbour_context(
        relevance, {pk: (c.session_id, c.turn_id) for pk, c in found.items()
                    if c.source == MemoryItem.Source.SYSTEM_LOG},
        window=app_settings.MEMORY_CONTEXT_WINDOW, weight=app_settings.MEMORY_CONTEXT_WEIGHT,
    )
    priors = _priors(query, found)
    now = timezone.now()
    weights = app_settings.MEMORY_SOURCE_WEIGHTS
    half_life = app_settings.MEMORY_HALF_LIFE_DAYS
    floor = app_settings.MEMORY_DECAY_FLOOR
    access_weight = app_settings.MEMORY_ACCESS_WEIGHT
    saturation = app_settings.MEMORY_ACCESS_SATURATION
    ranked = []
    for pk, ctx in context.items():
        cand = found[pk]
        rel = ctx * priors.get(pk, 1.0)
        decay = decay_factor(cand.last_touch, now, half_life_days=half_life, floor=floor)
        weight = float(weights.get(cand.source, 1.0))
        frequency = frequency_factor(cand.access_count, weight=access_weight, saturation=saturation)
        final = rel * decay * weight * cand.confidence * frequency
        ranked.append((final, rel, pk, ScoreBreakdown(
            vector=_round(vec_scores.get(pk)), bm25=_round(bm_scores.get(pk)), vector_norm=_round(vn[pk]),
            bm25_norm=_round(bn[pk]), relevance=_round(rel), context=_round(ctx - relevance[pk]),
            decay=_round(decay), source_weight=weight,
            confidence=cand.confidence, frequency=_round(frequency), final=_round(final),
            window=_round(windows.get(pk)), window_cosine=_round(window_cosines.get(pk)), prior=_round(priors.get(pk, 1.0)),
        )))
    ranked.sort(key=lambda r: (-r[0], -r[1], -r[2]))
    return [(pk, scores) for _f, _r, pk, scores in ranked]


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 6)

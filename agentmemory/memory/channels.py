"""Recall's channels in SQL over one user's scope: BM25 (with dialogue windows) and pgvector cosine candidates.

The scope (user, statuses, sources, agents, validity time, tags) is one set of conditions on the memory
table, applied by every statement, so no statement can read another user's rows. BM25's pieces are the
shared ones (ranking/bm25.py), with the IDF and average length of the scope itself.
"""
from __future__ import annotations

import datetime as dt
import json
from contextlib import nullcontext
from dataclasses import dataclass

from django.db import transaction

from ..conf import app_settings
from ..db import read_alias, read_connection
from ..models import MemoryItem, MemoryTerm
from ..models.fields import vector_literal
from ..ranking.bm25 import idf_sql, term_score_params, term_score_sql
from .priors import speaker_of


def scope_sql(user_id: str, statuses: list[str], sources: list[str], agent_ids: list[str] | None,
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


@dataclass(slots=True)  # not frozen: a frozen init costs a recall about 0.7 ms over its 120 candidates
class Candidate:
    """What the final score needs of one memory found by a channel."""

    vector: float | None
    bm25: float | None
    source: str
    confidence: float
    last_touch: float  # epoch seconds: the last access, else created_at
    access_count: int = 0
    session_id: str = ""
    turn_id: int | None = None
    speaker: str = ""  # of a dialogue-log turn ("Name: words")
    when: float | None = None  # epoch seconds: valid_from, else created_at
    window_cosine: float | None = None  # mean cosine of the dialogue window around the turn


def keyword_channel(user_id: str, scope: str, params: list, terms: list[str],
                    limit: int, window: int = 0) -> tuple[dict[int, float], dict[int, float], int]:
    """BM25 over the scope's memories (IDF and average length of the scope itself): the top ``limit``;
    with ``window`` > 0, BM25 of each dialogue turn's window (the turns of its session within
    ``window`` turns, the words of a question often spread over a question and its answer); and the
    number of the user's memories, which decides exact or HNSW search for the vector channel (the exact
    scan reads every row of the user; counted here to save a round trip)."""
    table, terms_table = MemoryItem._meta.db_table, MemoryTerm._meta.db_table
    user_rows = f"(SELECT count(*) FROM {table} WHERE user_id = %s)"
    with read_connection.cursor() as cursor:
        if not terms:
            cursor.execute(f"SELECT {user_rows}", [user_id])
            return {}, {}, int(cursor.fetchone()[0])
        k1, b = app_settings.MEMORY_BM25_K1, app_settings.MEMORY_BM25_B
        log = MemoryItem.Source.SYSTEM_LOG
        cursor.execute(
            f"""
            -- The scope's rows, read from the covering scope index alone when the scope allows it.
            WITH scope AS MATERIALIZED (
                SELECT m.id, m.term_count, m.source, m.session_id, m.turn_id
                FROM {table} m WHERE {scope}),
            stats AS (SELECT count(*)::float8 AS n, GREATEST(avg(term_count), 1)::float8 AS avgdl FROM scope),
            -- The matches, from the user's postings (kept by a trigger from search_vector, migration 0010).
            hits AS MATERIALIZED (
                SELECT s.id, s.term_count, s.source, s.session_id, s.turn_id, p.lexeme, p.tf
                FROM {terms_table} p JOIN scope s ON s.id = p.memory_id
                WHERE p.user_id = %s AND p.lexeme = ANY(%s)
            ),
            df AS (SELECT lexeme, {idf_sql('st.n', 'count(*)')} AS idf
                   FROM hits CROSS JOIN stats st GROUP BY lexeme, st.n),
            ranked AS (
                SELECT h.id, sum({term_score_sql(idf='df.idf', tf='h.tf', length='h.term_count', avgdl='st.avgdl')}) AS score
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
                SELECT w.id, sum({term_score_sql(idf='df.idf', tf='w.tf', length='w.wlen', avgdl='wa.avgwl')}) AS score
                FROM wtf w JOIN df USING (lexeme) CROSS JOIN wavg wa
                GROUP BY w.id ORDER BY score DESC, w.id LIMIT %s
            )
            SELECT id, score, false FROM ranked
            UNION ALL SELECT id, score, true FROM wranked
            UNION ALL SELECT NULL, {user_rows}, false
            """,
            [*params, user_id, terms, *term_score_params(k1, b), limit, window, window, window, window,
             window, *term_score_params(k1, b), limit, user_id],
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


#: Times as epoch seconds: recall scores with them as floats (a timestamp's text parses in Python, 2 ms a recall).
#: The head of a dialogue-log turn or an episode names its speaker ("Caroline: ..."), for the speaker prior.
DETAILS = (f"m.source, m.confidence, extract(epoch FROM coalesce(m.last_accessed_at, m.created_at))::float8, "
           f"m.access_count, m.session_id, m.turn_id, "
           f"CASE WHEN m.source = '{MemoryItem.Source.SYSTEM_LOG}' OR m.type = '{MemoryItem.Type.EPISODE}' "
           f"THEN left(m.content, 48) ELSE '' END, "
           f"extract(epoch FROM coalesce(m.valid_from, m.created_at))::float8")


def _details(row) -> tuple:
    source, confidence, touched, accesses, session, turn, head, when = row
    return (source, float(confidence), touched, int(accesses or 0), session, turn, speaker_of(head), when)


def moment(epoch: float) -> dt.datetime:
    """An epoch-seconds time (how recall reads times) as an aware datetime."""
    return dt.datetime.fromtimestamp(epoch, dt.UTC)


def vector_candidates(scope: str, params: list, *, vector: list[float] | None, model_name: str,
                      exact: bool, limit: int, bm25: dict[int, float], keyword_ids: set[int],
                      window: int = 0, twin=None) -> dict[int, Candidate]:
    """The vector channel's top ``limit`` and the keyword hits, with what the final score needs of each row;
    with ``window`` > 0, each dialogue turn's mean cosine over the turns of its session within ``window``.
    ``twin`` (an exact scan only): the query moved into the other language; each row's cosine is then the
    higher of the two (backends/embeddings/crosslingual.py)."""
    table = MemoryItem._meta.db_table
    log = MemoryItem.Source.SYSTEM_LOG
    args: list = []
    window_sql = "NULL::float8"
    if vector is not None:
        literal = vector_literal(vector)
        # A user's scope is usually small: exact distances over the user_id index beat a filtered
        # HNSW walk through everyone's vectors ("+ 0" keeps the planner off HNSW).
        order = "(m.embedding <=> %s::vector) + 0" if exact else "m.embedding <=> %s::vector"
        other = vector_literal(twin) if twin is not None and exact else None
        if other is not None:
            vec = (f"vec AS (SELECT m.id, 1 - LEAST(m.embedding <=> %s::vector, m.embedding <=> %s::vector) AS sim "
                   f"FROM {table} m WHERE {scope} AND m.embedding IS NOT NULL AND m.embedding_model = %s "
                   f"ORDER BY 2 DESC LIMIT %s)")
            args += [literal, other, *params, model_name, limit]
        else:
            vec = (f"vec AS (SELECT m.id, 1 - (m.embedding <=> %s::vector) AS sim FROM {table} m "
                   f"WHERE {scope} AND m.embedding IS NOT NULL AND m.embedding_model = %s ORDER BY {order} LIMIT %s)")
            args += [literal, *params, model_name, literal, limit]
        if window > 0:
            # The neighbours are the same user's turns of the same session (isolation holds here too).
            distance = ("LEAST(n.embedding <=> %s::vector, n.embedding <=> %s::vector)" if other is not None
                        else "(n.embedding <=> %s::vector)")
            window_sql = (f"CASE WHEN m.source = '{log}' AND m.session_id <> '' AND m.turn_id IS NOT NULL THEN "
                          f"(SELECT avg(1 - {distance}) FROM {table} n WHERE n.user_id = m.user_id "
                          f"AND n.source = '{log}' AND n.session_id = m.session_id AND n.embedding_model = %s "
                          f"AND n.turn_id BETWEEN m.turn_id - %s AND m.turn_id + %s) END")
    else:
        vec = "vec AS (SELECT NULL::bigint AS id, NULL::float8 AS sim WHERE false)"
    sql = f"""
        WITH {vec}
        SELECT m.id, vec.sim, {DETAILS}, {window_sql}
        FROM (SELECT id FROM vec UNION SELECT unnest(%s::bigint[])) c
        JOIN {table} m ON m.id = c.id AND {scope}
        LEFT JOIN vec ON vec.id = c.id"""
    # The keyword ids came from an earlier statement: the scope is checked again in this snapshot.
    if window_sql != "NULL::float8":
        args += [literal, *([other] if other is not None else []), model_name, window, window]
    args += [sorted(keyword_ids), *params]
    hnsw = vector is not None and not exact
    # Only the HNSW settings need a transaction (SET LOCAL); the exact scan saves its BEGIN/COMMIT.
    with transaction.atomic(using=read_alias()) if hnsw else nullcontext(), read_connection.cursor() as cursor:
        if hnsw:
            # A large scope: HNSW, with iterative scan so the user filter still fills the list.
            cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
                           "set_config('hnsw.ef_search', %s, true)",
                           [str(max(limit, app_settings.HNSW_EF_SEARCH))])
        cursor.execute(sql, args)
        rows = cursor.fetchall()
    return {
        row[0]: Candidate(None if row[1] is None else float(row[1]), bm25.get(row[0]), *_details(row[2:10]),
                          window_cosine=None if row[10] is None else float(row[10]))
        for row in rows
    }


def candidate_rows(scope: str, params: list, ids: list[int], *, vector: dict[int, float], bm25: dict[int, float],
                   window_cosines: dict[int, float]) -> dict[int, Candidate]:
    """The rows of candidates found by the in-process index, read again under the scope (the index
    proposes ids; this statement decides what the user's scope holds now)."""
    if not ids:
        return {}
    with read_connection.cursor() as cursor:
        cursor.execute(f"SELECT m.id, {DETAILS} FROM {MemoryItem._meta.db_table} m "
                       f"WHERE m.id = ANY(%s) AND {scope}", [ids, *params])
        rows = cursor.fetchall()
    return {row[0]: Candidate(vector.get(row[0]), bm25.get(row[0]), *_details(row[1:]),
                              window_cosine=window_cosines.get(row[0])) for row in rows}


def access_in_scope(scope: str, params: list, ids: list[int]) -> dict[int, tuple[int, float]]:
    """The access count and last touch (epoch seconds) of those of ``ids`` the scope holds now: what
    recall's in-process index cannot keep (recalls raise them without a new revision)."""
    if not ids:
        return {}
    with read_connection.cursor() as cursor:
        cursor.execute(f"SELECT m.id, m.access_count, extract(epoch FROM coalesce(m.last_accessed_at, m.created_at))"
                       f"::float8 FROM {MemoryItem._meta.db_table} m WHERE m.id = ANY(%s) AND {scope}", [ids, *params])
        return {pk: (int(accesses or 0), touched) for pk, accesses, touched in cursor.fetchall()}

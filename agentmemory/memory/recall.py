"""Recall: hybrid search (pgvector cosine + BM25 in SQL) over one user's memories, with a score breakdown.

final = relevance x decay x source weight x confidence x frequency, where relevance fuses the two
channels (min-max normalised CombSUM by default, or RRF), decay halves every MEMORY_HALF_LIFE_DAYS
since the last access (never below MEMORY_DECAY_FLOOR; recency), frequency =
1 + MEMORY_ACCESS_WEIGHT x min(1, ln(1 + access_count) / ln(1 + MEMORY_ACCESS_SATURATION)) (how often
the item was used), and source weights rank user_stated > system_log > model_inferred. When the embedder fails, recall degrades to keyword-only and says so.
"""
from __future__ import annotations

import datetime as dt
import logging
import math
import time
from collections.abc import Mapping

import numpy as np
from django.utils import timezone

from ..backends import get_embedder
from ..conf import app_settings
from ..db import retrieval_entry
from ..exceptions import EmbeddingError, InvalidInput
from ..models import MemoryItem
from ..ranking.fusion import fuse_channels
from ..text import query_terms
from ..text.language import language_of
from ..text.lexicon import translated
from ..types import RecalledMemory, RecallResult, ScoreBreakdown
from ..validation import validate_query, validate_tags, validate_user_id
from . import snapshot
from .access import record_access
from .channels import (
    Candidate,
    access_in_scope,
    candidate_rows,
    keyword_channel,
    moment,
    scope_sql,
    vector_candidates,
)
from .decay import decay_of_age, frequency_factor
from .indexed import candidates as indexed_candidates
from .indexed import keyword_scores, scope_mask, vector_scores, window_cosines
from .priors import in_period, named_period, named_speaker
from .snapshot import (
    LiveRow,
    UserIndex,
    cache_limit,
    cached_index,
    fits,
    load_index,
    read_fingerprint,
    read_live,
    small_copy,
    whole_rows,
)

logger = logging.getLogger(__name__)


# --- pure scoring -------------------------------------------------------------------------------
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
        if len(turns) == 1:  # no neighbour: relevance + weight x 0
            continue
        for turn, pk in turns.items():
            best = None  # the neighbours' best relevance (a plain loop: ~120 candidates per recall)
            for t in range(turn - window, turn + window + 1):
                other = turns.get(t) if t != turn else None
                if other is not None and (best is None or relevance[other] > best):
                    best = relevance[other]
            out[pk] = relevance[pk] + weight * (0.0 if best is None else best)
    return out


# --- the service --------------------------------------------------------------------------------
@retrieval_entry(user_first=True)
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
    statuses, sources, visible = _filters(include_cold, include_inferred, as_of, agent_id, agent_ids)

    embedder, pending, reason = None, None, ""
    try:
        embedder = get_embedder()
        # The model runs in the background while the keyword channel queries the database.
        pending = embedder.prefetch_query(query)
    except EmbeddingError as exc:
        reason = f"embedder unavailable, keyword search only: {exc}"
    query_vector = _QueryVector(pending, reason, language_of(query, default=""))

    scope, params = scope_sql(user_id, statuses, sources, visible, as_of, tags)
    candidates = max(app_settings.MEMORY_CANDIDATES, top_k)
    terms = _with_dictionary(query, query_terms(query), query_vector.language)
    channels = None
    if embedder is not None and not tags and as_of is None and cache_limit() > 0:
        channels = _indexed_channels(user_id, scope, params, (statuses, sources, visible), terms,
                                     candidates, embedder, query_vector)
    if channels is None:
        channels = (*_sql_channels(user_id, scope, params, terms, candidates, embedder, query_vector), None)
    found, windows, whole = channels
    mode, reason = ("hybrid", "") if query_vector.vector is not None else ("keyword", query_vector.reason)
    if mode != "hybrid":
        logger.warning("memory recall degraded to keyword-only: %s", reason)
    ranked = _rank(query, found, {pk: v for pk, v in windows.items() if pk in found}, top_k)
    if not ranked:
        return RecallResult((), mode=mode, degraded_reason=reason)
    if whole is not None:  # a small user's rows: the copy's, with the access statistics read as the query embedded
        index, live = whole
        ids = [pk for pk, _s in ranked]
        rows = {m.pk: m for m in MemoryItem.objects.from_rows(whole_rows(index, live, ids), epoch_times=True)}
    else:
        rows = _fetch(user_id, [pk for pk, _s in ranked])
    top = tuple(RecalledMemory(rows[pk], scores) for pk, scores in ranked if pk in rows)
    if touch and top:
        record_access(user_id, [r.memory.pk for r in top], timezone.now())
    return RecallResult(top, mode=mode, degraded_reason=reason)


def _with_dictionary(query: str, terms: list[str], language: str) -> list[str]:
    """The question's keyword terms and, with ``CROSS_LINGUAL_KEYWORDS``, its dictionary words in the other language
    (text/lexicon.py): a Chinese question over a user's English memories shares no word with them otherwise."""
    other = {"zh": "en", "en": "zh"}.get(language)
    if not other or not app_settings.CROSS_LINGUAL_KEYWORDS:
        return terms
    return list(dict.fromkeys([*terms, *query_terms(translated(query, other))]))


def _filters(include_cold: bool, include_inferred: bool, as_of: dt.datetime | None, agent_id: str | None,
             agent_ids: list[str] | None) -> tuple[list[str], list[str], list[str] | None]:
    """The statuses, sources and agents (None: every agent) a recall searches."""
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
    return sorted(set(statuses)), sources, visible


class _QueryVector:
    """The question's vector, awaited once from the embedder's background call (None: keyword-only)."""

    def __init__(self, pending, reason: str, language: str = "") -> None:
        self._pending, self.reason, self._vector, self.language = pending, reason, None, language

    def other_language(self, model_name: str):
        """The vector moved into the other language (backends/embeddings/crosslingual.py), or None."""
        from ..backends.embeddings.crosslingual import other_language_vector

        return other_language_vector(self.vector, self.language, model_name)

    @property
    def vector(self) -> list[float] | None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            try:
                self._vector = [float(x) for x in pending.result()]
            except EmbeddingError as exc:
                self.reason = f"embedder unavailable, keyword search only: {exc}"
        return self._vector


def _window(weight: float) -> int:
    return app_settings.MEMORY_WINDOW_TURNS if weight > 0 else 0


def _sql_channels(user_id: str, scope: str, params: list, terms: list[str], limit: int, embedder,
                  query_vector: _QueryVector) -> tuple[dict[int, Candidate], dict[int, float]]:
    """Both channels in SQL (channels.py): any scope, any size of user."""
    bm25, windows, user_rows = keyword_channel(user_id, scope, params, terms, limit,
                                               window=_window(app_settings.MEMORY_WINDOW_WEIGHT))
    exact = user_rows <= app_settings.MEMORY_EXACT_SEARCH_MAX
    found = vector_candidates(scope, params, vector=query_vector.vector,
                              twin=query_vector.other_language(embedder.model_name) if exact and embedder else None,
                              model_name=embedder.model_name if embedder is not None else "",
                              exact=exact, limit=limit,
                              bm25=bm25, keyword_ids=set(bm25) | set(windows),
                              window=_window(app_settings.MEMORY_WINDOW_VECTOR_WEIGHT))
    return found, {pk: v for pk, v in windows.items() if pk in found}


def _indexed_channels(user_id: str, scope: str, params: list, filters: tuple, terms: list[str], limit: int,
                      embedder, query_vector: _QueryVector
                      ) -> tuple[dict[int, Candidate], dict[int, float],
                                 tuple[UserIndex, dict[int, LiveRow]] | None] | None:
    """Both channels over the in-process index (snapshot.py, indexed.py), and a small user's copy with
    the live columns of its rows; None when this call cannot use it (a user too large for it, or a
    write between its two reads): then the SQL channels answer.

    The copy proposes the candidates and knows what their scores need but their access statistics,
    which recalls raise without a new revision: one statement reads those, under the scope again,
    so SQL decides what the user's scope holds now. When a candidate has left it since the
    fingerprint (a concurrent write), every candidate's row is read again as the SQL channels read them.
    A small user's copy holds the rows whole, and the revisions and access statistics of all of them
    are read in the fingerprint's own statement, while the query embeds: when the copy matches those
    revisions, nothing is left to read after the ranking.
    """
    live = None
    if small_copy(user_id, embedder.model_name):
        fingerprint, live = read_live(user_id)
    else:
        fingerprint = read_fingerprint(user_id)
    if not fits(fingerprint, int(getattr(embedder, "dimensions", 0) or 384)):
        return None
    index = cached_index(user_id, embedder.model_name, fingerprint)
    if index is None:
        index = load_index(user_id, embedder.model_name, whole=fingerprint[0] <= snapshot.SMALL_USER)
        if index.fingerprint != fingerprint:
            return None
    mask = scope_mask(index, *filters)
    bm25, windows = keyword_scores(index, mask, terms, limit=limit,
                                   window=_window(app_settings.MEMORY_WINDOW_WEIGHT),
                                   k1=app_settings.MEMORY_BM25_K1, b=app_settings.MEMORY_BM25_B)
    vector, sims, cosines = {}, None, {}
    if query_vector.vector is not None:
        query = np.asarray(query_vector.vector, dtype=np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        twin = query_vector.other_language(embedder.model_name)
        if twin is not None:
            query = np.vstack([query, np.asarray(twin, dtype=np.float32)])
        vector, sims = vector_scores(index, mask, query, limit=limit)
    ids = sorted(set(vector) | set(bm25) | set(windows))
    if sims is not None:
        cosines = window_cosines(index, ids, sims, _window(app_settings.MEMORY_WINDOW_VECTOR_WEIGHT))
    if live is not None and index.whole:  # the copy's fingerprint is these rows': each candidate's revision must agree
        revs = index.revs[index.row_of(np.asarray(ids, dtype=np.int64))[0]].tolist()
        stats = {pk: (live[pk].accesses, live[pk].touched) for pk, rev in zip(ids, revs, strict=True)
                 if pk in live and live[pk].rev == rev}
    else:
        live, stats = None, access_in_scope(scope, params, ids)
    if len(stats) == len(ids):
        found = indexed_candidates(index, ids, stats, vector=vector, bm25=bm25, window_cosines=cosines)
    else:
        found, live = candidate_rows(scope, params, ids, vector=vector, bm25=bm25, window_cosines=cosines), None
    return found, {pk: v for pk, v in windows.items() if pk in found}, (index, live) if live is not None else None


def _fetch(user_id: str, ids: list[int]) -> dict[int, MemoryItem]:
    return {m.pk: m for m in MemoryItem.objects.by_ids_for_user(user_id, ids)}


def _priors(query: str, found: dict[int, Candidate]) -> dict[int, float]:
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
        if (months or years) and cand.when is not None and in_period(moment(cand.when), months, years):
            factor *= 1.0 + date_weight
        out[pk] = factor
    return out


def _rank(query: str, found: dict[int, Candidate], windows: dict[int, float],
          top_k: int) -> list[tuple[int, ScoreBreakdown]]:
    """The best ``top_k`` candidates with their score breakdown (final, then relevance, then newest id)."""
    vec_scores = {pk: c.vector for pk, c in found.items() if c.vector is not None}
    bm_scores = {pk: c.bm25 for pk, c in found.items() if c.bm25 is not None}
    window_cosines = {pk: c.window_cosine for pk, c in found.items() if c.window_cosine is not None}
    relevance, vn, bn = fuse_channels(vec_scores, bm_scores, method=app_settings.MEMORY_FUSION,
                             vector_weight=app_settings.MEMORY_VECTOR_WEIGHT, rrf_k=app_settings.RRF_K,
                             extra=[(windows, app_settings.MEMORY_WINDOW_WEIGHT),
                                    (window_cosines, app_settings.MEMORY_WINDOW_VECTOR_WEIGHT)])
    context = with_neighbour_context(
        relevance, {pk: (c.session_id, c.turn_id) for pk, c in found.items()
                    if c.source == MemoryItem.Source.SYSTEM_LOG},
        window=app_settings.MEMORY_CONTEXT_WINDOW, weight=app_settings.MEMORY_CONTEXT_WEIGHT,
    )
    priors = _priors(query, found)
    now = time.time()  # candidates' times are epoch seconds, whatever USE_TZ says
    weights = app_settings.MEMORY_SOURCE_WEIGHTS
    half_life = app_settings.MEMORY_HALF_LIFE_DAYS
    floor = app_settings.MEMORY_DECAY_FLOOR
    access_weight = app_settings.MEMORY_ACCESS_WEIGHT
    saturation = app_settings.MEMORY_ACCESS_SATURATION
    ranked = []
    for pk, ctx in context.items():
        cand = found[pk]
        rel = ctx * priors.get(pk, 1.0)
        decay = decay_of_age(now - cand.last_touch, half_life_days=half_life, floor=floor)
        weight = float(weights.get(cand.source, 1.0))
        frequency = frequency_factor(cand.access_count, weight=access_weight, saturation=saturation)
        ranked.append((rel * decay * weight * cand.confidence * frequency, rel, pk, ctx, decay, weight, frequency))
    ranked.sort(key=lambda r: (-r[0], -r[1], -r[2]))
    # The breakdown only for what is returned (every candidate is scored, a few are shown).
    return [(pk, ScoreBreakdown(
        vector=_round(vec_scores.get(pk)), bm25=_round(bm_scores.get(pk)), vector_norm=_round(vn[pk]),
        bm25_norm=_round(bn[pk]), relevance=_round(rel), context=_round(ctx - relevance[pk]),
        decay=_round(decay), source_weight=weight, confidence=found[pk].confidence,
        frequency=_round(frequency), final=_round(final), window=_round(windows.get(pk)),
        window_cosine=_round(window_cosines.get(pk)), prior=_round(priors.get(pk, 1.0)),
    )) for final, rel, pk, ctx, decay, weight, frequency in ranked[:top_k]]


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 6)

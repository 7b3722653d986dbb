"""Recall's channels over the in-process index (snapshot.py): the same scores as channels.py's SQL.

BM25 with the scope's own IDF and average length, the dialogue windows' BM25 (each turn's window: the
turns of its session within ``window`` turns), the exact cosine top ``limit``, and each dialogue
turn's mean cosine over its window, computed with numpy from the user's arrays and postings.
tests/memory/test_recall_index.py holds both paths to the same results.
"""
from __future__ import annotations

import numpy as np

from ..models import MemoryItem
from .channels import Candidate
from .snapshot import UserIndex

LOG = MemoryItem.Source.SYSTEM_LOG
_DENSE_PAIRS = 1 << 20  # (turn, term) cells summed in a dense table (8 MB) rather than by sorting


def scope_mask(index: UserIndex, statuses: list[str], sources: list[str], agents: list[str] | None) -> np.ndarray:
    """Rows in the scope (recall's statuses, sources and visible agents; tags and as_of are SQL's).
    Kept with the copy: a user's questions mostly share one scope."""
    key = ("mask", tuple(statuses), tuple(sources), None if agents is None else tuple(agents))
    mask = index._memo.get(key)
    if mask is None:
        mask = np.isin(index.status, statuses) & np.isin(index.source, sources)
        if agents is not None:
            mask &= np.isin(index.agent, agents)
        mask.flags.writeable = False
        index._memo[key] = mask
    return mask


def _top(ids: np.ndarray, scores: np.ndarray, limit: int) -> dict[int, float]:
    """The ``limit`` best by score, then smallest id (the SQL statements' order)."""
    if len(scores) > limit:
        # Only what can be in the top: every score at least the limit-th best (ties at the edge kept).
        edge = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        keep = scores >= edge
        ids, scores = ids[keep], scores[keep]
    order = np.lexsort((ids, -scores))[:limit]
    return {int(ids[i]): float(scores[i]) for i in order}


def _term_scores(idf: np.ndarray, tf: np.ndarray, length: np.ndarray, avg: float, k1: float, b: float) -> np.ndarray:
    return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))


def keyword_scores(index: UserIndex, mask: np.ndarray, terms: list[str], *, limit: int,
                   window: int, k1: float, b: float) -> tuple[dict[int, float], dict[int, float]]:
    """BM25 top ``limit`` of the scope, and (``window`` > 0) the dialogue windows' BM25 top ``limit``,
    from the copy's postings of ``terms``."""
    vocabulary, starts, post_rows, post_tfs = index.postings()
    spans = [(starts[n], starts[n + 1]) for n in (vocabulary.get(t) for t in dict.fromkeys(terms)) if n is not None]
    if not spans:
        return {}, {}
    rows = np.concatenate([post_rows[a:z] for a, z in spans])
    tf = np.concatenate([post_tfs[a:z] for a, z in spans])
    lex = np.repeat(np.arange(len(spans)), [z - a for a, z in spans])
    keep = mask[rows]
    if not keep.any():
        return {}, {}
    rows, tf, lex = rows[keep], tf[keep], lex[keep]
    n = float(mask.sum())
    avgdl = max(float(index.term_count[mask].mean()), 1.0)
    df = np.bincount(lex, minlength=len(spans)).astype(np.float64)
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    # Dense sums over the user's rows: O(rows), where np.unique sorted the matches.
    score = np.bincount(rows, _term_scores(idf[lex], tf, index.term_count[rows], avgdl, k1, b),
                        minlength=len(index.ids))
    docs = np.flatnonzero(np.bincount(rows, minlength=len(index.ids)))
    bm25 = _top(index.ids[docs], score[docs], limit)
    if window <= 0:
        return bm25, {}
    return bm25, _window_scores(index, mask, rows, lex, tf, idf, window=window, limit=limit, k1=k1, b=b)


def candidates(index: UserIndex, ids: list[int], live: dict[int, tuple[int, float]], *, vector: dict[int, float],
               bm25: dict[int, float], window_cosines: dict[int, float]) -> dict[int, Candidate]:
    """What the final score needs of each proposed id: from the copy, but the access statistics
    (``live``: access count and last touch as epoch seconds, read in SQL with every question)."""
    rows = index.row_of(np.asarray(ids, dtype=np.int64))[0]
    columns = zip(ids, *(getattr(index, name)[rows].tolist()
                         for name in ("source", "confidence", "session_names", "turn", "has_turn", "speaker", "when")),
                  strict=True)
    out = {}
    for pk, source, confidence, session, turn, has_turn, speaker, when in columns:
        accesses, touched = live[pk]
        out[pk] = Candidate(vector.get(pk), bm25.get(pk), source, confidence, touched, accesses, session,
                            turn if has_turn or turn else None, speaker, when,
                            window_cosine=window_cosines.get(pk))
    return out


def _log_turns(index: UserIndex, mask: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The scope's dialogue turns (rows) ordered by session and turn, their packed keys, their windows'
    lengths and the mean of those (kept with the copy, per scope and window)."""
    key = ("logs", mask.tobytes(), window)
    found = index._memo.get(key)
    if found is None:
        keys = index.turn_keys()
        rows = np.flatnonzero(mask & (index.source == LOG) & (keys >= 0))
        order = np.argsort(keys[rows], kind="stable")
        rows, log_keys = rows[order], keys[rows[order]]
        lengths = np.concatenate(([0.0], np.cumsum(index.term_count[rows])))
        lo, hi = _spans(log_keys, log_keys, window)
        wlen = lengths[hi] - lengths[lo]
        found = (rows, log_keys, wlen, max(float(wlen.mean()), 1.0) if len(wlen) else 1.0)
        index._memo[key] = found
    return found


def _spans(sorted_keys: np.ndarray, keys: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """For each key, the range [lo, hi) of sorted_keys within ``window`` turns of the same session."""
    return (np.searchsorted(sorted_keys, keys - window, "left"),
            np.searchsorted(sorted_keys, keys + window, "right"))


def _window_scores(index: UserIndex, mask: np.ndarray, rows: np.ndarray, lex: np.ndarray, tf: np.ndarray,
                   idf: np.ndarray, *, window: int, limit: int, k1: float, b: float) -> dict[int, float]:
    logs, log_keys, wlen, avgwl = _log_turns(index, mask, window)
    if not len(logs):
        return {}
    keys = index.turn_keys()[rows]
    hit = (index.source[rows] == LOG) & (keys >= 0)
    if not hit.any():
        return {}
    lo, hi = _spans(log_keys, keys[hit], window)
    counts = hi - lo
    # Every (match, receiving turn) pair: a match counts in the window of each turn around it.
    starts = np.repeat(lo, counts)
    receiver = starts + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    pair_lex, pair_tf = np.repeat(lex[hit], counts), np.repeat(tf[hit], counts)
    width = int(lex.max()) + 1
    # Each (receiving turn, term)'s summed frequency, dense when that table is small enough.
    flat = receiver * width + pair_lex
    if len(logs) * width <= _DENSE_PAIRS:
        summed = np.bincount(flat, pair_tf, minlength=len(logs) * width)
        pairs = np.flatnonzero(np.bincount(flat, minlength=len(logs) * width))
        summed = summed[pairs]
    else:
        pairs, inverse = np.unique(flat, return_inverse=True)
        summed = np.bincount(inverse, pair_tf)
    turn, term = pairs // width, pairs % width
    contribution = _term_scores(idf[term], summed, wlen[turn], avgwl, k1, b)
    per_turn = np.bincount(turn, contribution, minlength=len(logs))
    turns = np.flatnonzero(np.bincount(turn, minlength=len(logs)))
    return _top(index.ids[logs[turns]], per_turn[turns], limit)


def vector_scores(index: UserIndex, mask: np.ndarray, query: np.ndarray, *, limit: int) -> tuple[dict[int, float], np.ndarray]:
    """The scope's exact cosine top ``limit``, and the cosine of every row (meaningful where it has a vector).
    ``query`` may hold two rows (the query and its other-language twin, backends/embeddings/crosslingual.py): each
    row's cosine is then the higher of the two."""
    if not index.has_vector.any():
        return {}, np.zeros(len(index.ids), np.float32)
    # einsum, not BLAS: one thread, no wake-up of a BLAS thread pool competing with the embedder.
    if query.ndim == 2:  # the query and its other-language twin: each row's closer one
        sims = np.einsum("ij,kj->ki", index.vectors, query).max(axis=0)
    else:
        sims = np.einsum("ij,j->i", index.vectors, query)
    rows = np.flatnonzero(mask & index.has_vector)
    return _top(index.ids[rows], sims[rows].astype(np.float64), limit), sims


def window_cosines(index: UserIndex, ids: list[int], sims: np.ndarray, window: int) -> dict[int, float]:
    """Each dialogue turn's mean cosine over the user's turns of its session within ``window`` turns
    (any status: the window is the conversation as it happened)."""
    if window <= 0 or not index.has_vector.any() or not ids:
        return {}
    keys = index.turn_keys()
    rows, found = index.row_of(np.asarray(ids, dtype=np.int64))
    rows = rows[found]
    turn = rows[(index.source[rows] == LOG) & (keys[rows] >= 0)]
    if not len(turn):
        return {}
    neighbours = index._memo.get("neighbours")
    if neighbours is None:  # the dialogue turns holding a vector, ordered by session and turn
        turns = np.flatnonzero(index.has_vector & (index.source == LOG) & (keys >= 0))
        turns = turns[np.argsort(keys[turns], kind="stable")]
        neighbours = index._memo["neighbours"] = (turns, keys[turns])
    order, sorted_keys = neighbours
    total = np.concatenate(([0.0], np.cumsum(sims[order].astype(np.float64))))
    lo, hi = _spans(sorted_keys, keys[turn], window)
    out = {}
    for row, a, z in zip(turn, lo, hi, strict=True):
        if z > a:
            out[int(index.ids[row])] = float((total[z] - total[a]) / (z - a))
    return out

"""Recall's in-process index: a copy of one user's rows (ids, scope columns, vectors, keyword postings, what
scoring needs but the access statistics) kept between calls.

Recall's SQL channels read every row of the user for each question (exact vector distances, the
scope's BM25 statistics, the dialogue windows' lengths): their cost grows with the user. With this
index a question costs one index-only statement (the user's revision fingerprint), arithmetic in
numpy, and a read of the candidates' access statistics, which checks the scope again in SQL: the
index only proposes ids, it never decides what a user may see. A small user's copy (at most SMALL_USER
rows) also holds the rows whole: each question then reads the revisions and access statistics of all
their rows in one index-scan statement while the query embeds, and the top k are built from the copy.

Freshness: every row carries ``rev`` (a sequence value a trigger gives on insert and on any change of a
column but the access statistics, migrations 0011, 0012 and 0015). A user's (count, sum, max) of ``rev`` is read with every
question; a copy with another fingerprint is updated from its changed rows. The copies live in an LRU
of at most ``MEMORY_RECALL_CACHE_MB`` per process (0 turns the index off), keyed by database, user and
embedding model.
"""
from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

import numpy as np

from ..conf import app_settings
from ..db import read_connection
from ..models import MemoryItem
from ..models.memory import row_columns, row_names
from .priors import speaker_of

Fingerprint = tuple[int, int, int]

#: Turn numbers are packed with their session into one int64 key (session << 33 | turn + 2**32).
_TURN_OFFSET = 1 << 32
_ROW_OVERHEAD = 1700  # bytes per row beside its vector (ids, codes, keys, postings: measured 3.2 KB a row in all)


@dataclass(eq=False)
class UserIndex:
    """One user's rows as arrays (row i of every array is the same memory), ordered by id."""

    fingerprint: Fingerprint
    ids: np.ndarray  # int64, ascending
    revs: np.ndarray  # int64
    status: np.ndarray  # object (str)
    source: np.ndarray
    agent: np.ndarray
    session_names: np.ndarray  # object (str, "" = no session)
    turn: np.ndarray  # int64, meaningful where has_turn
    has_turn: np.ndarray  # bool
    term_count: np.ndarray  # float64
    vectors: np.ndarray  # float32 (n, dims), unit length; zeros where has_vector is False
    has_vector: np.ndarray  # bool: a vector of the model
    confidence: np.ndarray  # float64
    speaker: np.ndarray  # object (str): a dialogue turn's speaker, "" for other rows
    when: np.ndarray  # float64 epoch: valid_from, else created_at
    lexemes: np.ndarray  # object: each row's tuple of keyword lexemes (its tsvector's)
    tfs: np.ndarray  # object: each row's tuple of their frequencies
    rows: np.ndarray  # object: a small user's rows whole (row_columns(epoch_times=True) tuples), else None
    _memo: dict = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        held = self._memo.get("row_bytes")
        if held is None:  # the whole rows' texts and a tuple of objects each
            held = self._memo["row_bytes"] = sum(
                _WHOLE_OVERHEAD + sum(len(v) for v in row if isinstance(v, str)) for row in self.rows if row is not None)
        return int(self.vectors.nbytes + len(self.ids) * _ROW_OVERHEAD + held)

    @property
    def whole(self) -> bool:
        """Whether this copy holds every row whole (a small user's)."""
        return len(self.rows) > 0 and self.rows[0] is not None

    def postings(self) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray]:
        """The keyword postings by lexeme: its number, and per number a slice [start, end) of rows and
        frequencies (built once per copy)."""
        found = self._memo.get("postings")
        if found is None:
            vocabulary: dict[str, int] = {}
            number = vocabulary.setdefault
            terms = [number(lexeme, len(vocabulary)) for row in self.lexemes for lexeme in row]
            counts = np.fromiter((len(row) for row in self.lexemes), np.int64, len(self.lexemes))
            rows = np.repeat(np.arange(len(self.ids), dtype=np.int64), counts)
            tfs = np.fromiter((tf for row in self.tfs for tf in row), np.float64, len(terms))
            order = np.argsort(np.asarray(terms, dtype=np.int64), kind="stable")
            starts = np.concatenate(([0], np.cumsum(np.bincount(np.asarray(terms, dtype=np.int64)[order],
                                                                 minlength=len(vocabulary)))))
            found = self._memo["postings"] = (vocabulary, starts, rows[order], tfs[order])
        return found

    def row_of(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``ids`` and a mask of the ids found."""
        if not len(self.ids):
            return np.zeros(len(ids), np.int64), np.zeros(len(ids), bool)
        pos = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        return pos, self.ids[pos] == ids

    def turn_keys(self) -> np.ndarray:
        """Session and turn of every row packed into one sortable int64 (-1 where there is none)."""
        keys = self._memo.get("keys")
        if keys is None:
            _names, session = np.unique(self.session_names, return_inverse=True)
            keys = np.where(self.has_turn & (self.session_names != ""),
                            (session.astype(np.int64) << 33) + self.turn + _TURN_OFFSET, -1)
            self._memo["keys"] = keys
        return keys

    def take(self, rows: np.ndarray) -> UserIndex:
        """These rows only (a copy's unchanged part, before the changed rows are merged back)."""
        return UserIndex(self.fingerprint, *(getattr(self, name)[rows] for name in _ARRAYS))


_ARRAYS = ("ids", "revs", "status", "source", "agent", "session_names", "turn", "has_turn", "term_count",
           "vectors", "has_vector", "confidence", "speaker", "when", "lexemes", "tfs", "rows")
_WHOLE_OVERHEAD = 1200  # bytes of a whole row's tuple and its values beside the length of its texts


#: A user's revision fingerprint (count, sum, max of rev) as SQL over their rows: every write changes it.
FINGERPRINT_COLUMNS = "count(*), coalesce(sum(rev), 0)::bigint, coalesce(max(rev), 0)"


def read_fingerprint(user_id: str) -> Fingerprint:
    """The user's revision fingerprint (count, sum, max of rev), read from the covering scope index alone."""
    with read_connection.cursor() as cursor:
        cursor.execute(f"SELECT {FINGERPRINT_COLUMNS} FROM {MemoryItem._meta.db_table} WHERE user_id = %s", [user_id])
        n, total, top = cursor.fetchone()
    return int(n), int(total), int(top)


#: A user with at most this many rows has them copied whole, and their live columns read with every
#: question in one statement (``read_live``).
SMALL_USER = 128


def small_copy(user_id: str, model_name: str) -> bool:
    """Whether this process holds a whole copy of the user (a small user's)."""
    index = _cache.peek(_key(user_id, model_name))
    return index is not None and index.whole


class LiveRow(NamedTuple):
    """What a small user's row holds that a copy cannot: its revision and access statistics, as
    ``read_live`` reads them."""

    rev: int
    accesses: int
    touched: float  # epoch seconds: last access, else created_at
    last_access: int | None  # epoch microseconds (row_columns(epoch_times=True)'s form)


def read_live(user_id: str) -> tuple[Fingerprint, dict[int, LiveRow]]:
    """A small user's fingerprint and every row's live columns by id, in one statement (one snapshot).

    It replaces the fingerprint statement while the query embeds, so what recall would read after the
    ranking (the candidates' access statistics) is already here, and the top k's rows are the copy's
    when it matches these revisions."""
    with read_connection.cursor() as cursor:
        cursor.execute(f"SELECT id, rev, access_count, extract(epoch FROM coalesce(last_accessed_at, created_at))"
                       f"::float8, (extract(epoch FROM last_accessed_at) * 1000000)::bigint "
                       f"FROM {MemoryItem._meta.db_table} WHERE user_id = %s", [user_id])
        rows = cursor.fetchall()
    live = {r[0]: LiveRow(r[1], int(r[2] or 0), r[3], r[4]) for r in rows}
    return _fingerprint(np.fromiter((r[1] for r in rows), np.int64, len(rows))), live


def whole_rows(index: UserIndex, live: dict[int, LiveRow], ids: list[int]) -> list[tuple]:
    """The copy's rows of ``ids`` with their live access statistics, for MemoryItem.objects.from_rows."""
    count, last = _access_positions()
    out = []
    for pk, row in zip(ids, index.rows[index.row_of(np.asarray(ids, dtype=np.int64))[0]].tolist(), strict=True):
        values = list(row)
        values[count], values[last] = live[pk].accesses, live[pk].last_access
        out.append(tuple(values))
    return out


@cache
def _access_positions() -> tuple[int, int]:
    names = row_names()
    return names.index("access_count"), names.index("last_accessed_at")


_TRIGGER_RECHECK = 60.0  # seconds before a database found without migration 0015 is asked again
_trigger_ok: dict[str, float] = {}  # database name -> when it was last found wanting (inf: it is current)


def trigger_current() -> bool:
    """Whether this database's revision trigger watches all a copy holds (migration 0015); until it
    does, recall answers from SQL (a copy could miss an edit of a memory's words or tags)."""
    name = str(read_connection.settings_dict.get("NAME"))
    seen = _trigger_ok.get(name)
    if seen == math.inf:
        return True
    if seen is not None and time.monotonic() - seen < _TRIGGER_RECHECK:
        return False
    with read_connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(bool_or(pg_get_triggerdef(oid) LIKE %s), false) FROM pg_trigger "
                       "WHERE tgname = 'am_memory_rev_update' AND tgrelid = %s::regclass",
                       ["%provenance%", MemoryItem._meta.db_table])
        current = bool(cursor.fetchone()[0])
    _trigger_ok[name] = math.inf if current else time.monotonic()
    return current


class _Cache:
    """An LRU of UserIndex by (database, user, model), bounded in bytes; safe across request threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str, str], UserIndex] = OrderedDict()
        self._bytes = 0

    def get(self, key: tuple[str, str, str], fingerprint: Fingerprint) -> UserIndex | None:
        with self._lock:
            index = self._items.get(key)
            if index is None or index.fingerprint != fingerprint:
                return None
            self._items.move_to_end(key)
            return index

    def peek(self, key: tuple[str, str, str]) -> UserIndex | None:
        """The copy held for ``key``, current or not (the base of an update)."""
        with self._lock:
            return self._items.get(key)

    def put(self, key: tuple[str, str, str], index: UserIndex, limit: int) -> None:
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes
            self._items[key] = index
            self._bytes += index.nbytes
            while self._bytes > limit and self._items:
                _key, dropped = self._items.popitem(last=False)
                self._bytes -= dropped.nbytes

    def drop(self, user_id: str) -> None:
        with self._lock:
            for key in [k for k in self._items if k[1] == user_id]:
                self._bytes -= self._items.pop(key).nbytes


_cache = _Cache()


def drop_user(user_id: str) -> None:
    """Forget this process's copies of one user (after forgetting the user)."""
    _cache.drop(user_id)


def cache_limit() -> int:
    """The index's byte budget in this process (0: off)."""
    return int(app_settings.MEMORY_RECALL_CACHE_MB) * 1024 * 1024


def fits(fingerprint: Fingerprint, dims: int) -> bool:
    """Whether a user of this many rows may take a place in the index (at most a quarter of it)."""
    limit = cache_limit()
    return limit > 0 and fingerprint[0] * (dims * 4 + _ROW_OVERHEAD) <= limit // 4 and trigger_current()


def cached_index(user_id: str, model_name: str, fingerprint: Fingerprint) -> UserIndex | None:
    return _cache.get(_key(user_id, model_name), fingerprint)


_COLUMNS = ("id, rev, status, source, agent_id, session_id, turn_id, term_count, "
            "CASE WHEN embedding_model = %s AND embedding IS NOT NULL THEN vector_send(embedding) END, "
            f"confidence, CASE WHEN source = '{MemoryItem.Source.SYSTEM_LOG}' OR type = '{MemoryItem.Type.EPISODE}' "
            "THEN left(content, 48) ELSE '' END, "
            "extract(epoch FROM coalesce(valid_from, created_at))::float8, "
            # The postings as migration 0010's trigger writes them (same row, same statement: one snapshot).
            "ARRAY(SELECT u.lexeme FROM unnest(search_vector) u), "
            "ARRAY(SELECT coalesce(array_length(u.positions, 1), 1) FROM unnest(search_vector) u)")


def load_index(user_id: str, model_name: str, *, whole: bool = False) -> UserIndex:
    """Bring the user's copy up to date and keep it: the rows whose revision changed are read again
    (one index-only statement lists (id, rev), one reads those rows), or all rows for a first copy.
    ``whole`` (a small user, by the fingerprint's count) copies the rows whole too."""
    key = _key(user_id, model_name)
    old = _cache.peek(key)
    table = MemoryItem._meta.db_table
    columns = f"{_COLUMNS}, {row_columns(epoch_times=True)}" if whole else _COLUMNS
    with read_connection.cursor() as cursor:
        if old is None or len(old.ids) < 256 or whole or old.whole:  # one read of every row
            cursor.execute(f"SELECT {columns} FROM {table} WHERE user_id = %s ORDER BY id", [model_name, user_id])
            index = _build(cursor.fetchall())
        else:
            cursor.execute(f"SELECT id, rev FROM {table} WHERE user_id = %s ORDER BY id", [user_id])
            listed = np.array(cursor.fetchall(), dtype=np.int64).reshape(-1, 2)
            pos, found = old.row_of(listed[:, 0])
            same = found & (old.revs[pos] == listed[:, 1])
            cursor.execute(f"SELECT {columns} FROM {table} WHERE user_id = %s AND id = ANY(%s) ORDER BY id",
                           [model_name, user_id, listed[~same, 0].tolist()])
            index = _merge(old.take(pos[same]), _build(cursor.fetchall()))
    _cache.put(key, index, cache_limit())
    return index


def _merge(kept: UserIndex, changed: UserIndex) -> UserIndex:
    if kept.vectors.shape[1] != changed.vectors.shape[1]:
        dims = max(kept.vectors.shape[1], changed.vectors.shape[1])
        kept, changed = (_widen(kept, dims), _widen(changed, dims))
    order = np.argsort(np.concatenate((kept.ids, changed.ids)), kind="stable")
    parts = {name: np.concatenate((getattr(kept, name), getattr(changed, name)))[order] for name in _ARRAYS}
    return UserIndex(_fingerprint(parts["revs"]), **parts)


def _widen(index: UserIndex, dims: int) -> UserIndex:
    """A copy with no vector yet (0 columns) given the other part's width (rows without vectors)."""
    if index.vectors.shape[1] == dims:
        return index
    if index.has_vector.any():
        raise ValueError("vectors of two widths for one model")
    index.vectors = np.zeros((len(index.ids), dims), np.float32)
    return index


def _fingerprint(revs: np.ndarray) -> Fingerprint:
    return (len(revs), int(revs.sum()), int(revs.max(initial=0)))


def _build(rows: list[tuple]) -> UserIndex:
    n = len(rows)
    has_vector = np.fromiter((r[8] is not None for r in rows), bool, n)
    with_vector = [r[8] for r in rows if r[8] is not None]
    dims = (len(bytes(with_vector[0])) - 4) // 4 if with_vector else 0
    vectors = np.zeros((n, dims), np.float32)
    if with_vector:
        # pgvector's binary form: int16 dimensions, int16 unused, then big-endian float4s.
        raw = np.frombuffer(b"".join(bytes(v)[4:] for v in with_vector), dtype=">f4").reshape(-1, dims)
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        vectors[has_vector] = raw / np.where(norms > 0, norms, 1.0)
    turns = [r[6] for r in rows]
    revs = np.fromiter((r[1] for r in rows), np.int64, n)
    return UserIndex(
        fingerprint=_fingerprint(revs),
        ids=np.fromiter((r[0] for r in rows), np.int64, n),
        revs=revs,
        status=np.array([r[2] for r in rows], dtype=object),
        source=np.array([r[3] for r in rows], dtype=object),
        agent=np.array([r[4] for r in rows], dtype=object),
        session_names=np.array([r[5] or "" for r in rows], dtype=object),
        turn=np.fromiter((t if t is not None else 0 for t in turns), np.int64, n),
        has_turn=np.fromiter((t is not None and abs(t) < _TURN_OFFSET for t in turns), bool, n),
        term_count=np.fromiter((r[7] for r in rows), np.float64, n),
        vectors=vectors,
        has_vector=has_vector,
        confidence=np.fromiter((r[9] for r in rows), np.float64, n),
        speaker=np.array([speaker_of(r[10]) if r[10] else "" for r in rows], dtype=object),
        when=np.fromiter((r[11] for r in rows), np.float64, n),
        lexemes=_objects([tuple(r[12] or ()) for r in rows]),
        tfs=_objects([tuple(r[13] or ()) for r in rows]),
        rows=_objects([r[14:] or None for r in rows]),
    )


def _objects(items: list) -> np.ndarray:
    """A 1-d object array of these items (np.array would make a 2-d one of equal-length tuples)."""
    return np.fromiter(items, dtype=object, count=len(items))


def _key(user_id: str, model_name: str) -> tuple[str, str, str]:
    return (str(read_connection.settings_dict.get("NAME")), user_id, model_name)

"""Recall's in-process index: a copy of one user's rows (ids, scope columns, vectors) kept between calls.

Recall's SQL channels read every row of the user for each question (exact vector distances, the
scope's BM25 statistics, the dialogue windows' lengths): their cost grows with the user. With this
index a question costs one index-only statement (the user's revision fingerprint and the postings of
its words), arithmetic in numpy, and the fetch of the candidates' rows, which checks the scope again
in SQL: the index only proposes ids, it never decides what a user may see.

Freshness: every row carries ``rev`` (a sequence value a trigger gives on insert and on any change of
what is copied here, migration 0011). A user's (count, sum, max) of ``rev`` is read with every question,
in the same statement as the postings; a copy with another fingerprint is rebuilt. The copies live in
an LRU of at most ``MEMORY_RECALL_CACHE_MB`` per process (0 turns the index off), keyed by database,
user and embedding model.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from django.db import connection

from ..conf import app_settings
from ..models import MemoryItem

Fingerprint = tuple[int, int, int]

#: Turn numbers are packed with their session into one int64 key (session << 33 | turn + 2**32).
_TURN_OFFSET = 1 << 32
_ROW_OVERHEAD = 96  # bytes per row beside its vector (ids, codes, keys)


@dataclass(eq=False)
class UserIndex:
    """One user's rows as arrays (row i of every array is the same memory)."""

    fingerprint: Fingerprint
    ids: np.ndarray  # int64, ascending
    status: np.ndarray  # object (str)
    source: np.ndarray
    agent: np.ndarray
    session: np.ndarray  # int32 code, -1 = no session
    turn: np.ndarray  # int64, meaningful where has_turn
    has_turn: np.ndarray  # bool
    term_count: np.ndarray  # float64
    vectors: np.ndarray  # float32 (rows with a vector of the model, unit length)
    vector_rows: np.ndarray  # int64: the row of each vector
    _memo: dict = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + len(self.ids) * _ROW_OVERHEAD)

    def row_of(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``ids`` and a mask of the ids found."""
        pos = np.searchsorted(self.ids, ids)
        pos = np.minimum(pos, max(len(self.ids) - 1, 0))
        found = (self.ids[pos] == ids) if len(self.ids) else np.zeros(len(ids), bool)
        return pos, found

    def turn_keys(self) -> np.ndarray:
        """Session and turn of every row packed into one sortable int64 (-1 where there is none)."""
        keys = self._memo.get("keys")
        if keys is None:
            keys = np.where(self.has_turn & (self.session >= 0),
                            (self.session.astype(np.int64) << 33) + self.turn + _TURN_OFFSET, -1)
            self._memo["keys"] = keys
        return keys


def fingerprint_sql(table: str) -> str:
    """The user's revision fingerprint (count, sum, max of rev) as a subquery with one %s (the user)."""
    return (f"SELECT count(*) AS n, coalesce(sum(rev), 0)::bigint AS s, coalesce(max(rev), 0) AS x "
            f"FROM {table} WHERE user_id = %s")


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

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


_cache = _Cache()


def clear_recall_index() -> None:
    """Forget every copy held by this process (tests, after restoring a database)."""
    _cache.clear()


def cache_limit() -> int:
    """The index's byte budget in this process (0: off)."""
    return int(app_settings.MEMORY_RECALL_CACHE_MB) * 1024 * 1024


def fits(fingerprint: Fingerprint, dims: int) -> bool:
    """Whether a user of this many rows may take a place in the index (at most a quarter of it)."""
    limit = cache_limit()
    return limit > 0 and fingerprint[0] * (dims * 4 + _ROW_OVERHEAD) <= limit // 4


def cached_index(user_id: str, model_name: str, fingerprint: Fingerprint) -> UserIndex | None:
    return _cache.get(_key(user_id, model_name), fingerprint)


def load_index(user_id: str, model_name: str) -> UserIndex:
    """Read the user's rows (one statement) and keep them in the index."""
    table = MemoryItem._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, rev, status, source, agent_id, session_id, turn_id, term_count, "
            f"CASE WHEN embedding_model = %s AND embedding IS NOT NULL THEN vector_send(embedding) END "
            f"FROM {table} WHERE user_id = %s ORDER BY id",
            [model_name, user_id],
        )
        rows = cursor.fetchall()
    index = _build(rows)
    _cache.put(_key(user_id, model_name), index, cache_limit())
    return index


def _build(rows: list[tuple]) -> UserIndex:
    n = len(rows)
    revs = [r[1] for r in rows]
    sessions: dict[str, int] = {}
    session = np.fromiter((sessions.setdefault(r[5], len(sessions)) if r[5] else -1 for r in rows),
                          np.int32, n)
    vector_rows = [i for i, r in enumerate(rows) if r[8] is not None]
    if vector_rows:
        # pgvector's binary form: int16 dimensions, int16 unused, then big-endian float4s.
        raw = b"".join(bytes(rows[i][8])[4:] for i in vector_rows)
        vectors = np.frombuffer(raw, dtype=">f4").astype(np.float32).reshape(len(vector_rows), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors /= np.where(norms > 0, norms, 1.0)
    else:
        vectors = np.zeros((0, 0), np.float32)
    turns = [r[6] for r in rows]
    return UserIndex(
        fingerprint=(n, int(sum(revs)), int(max(revs, default=0))),
        ids=np.fromiter((r[0] for r in rows), np.int64, n),
        status=np.array([r[2] for r in rows], dtype=object),
        source=np.array([r[3] for r in rows], dtype=object),
        agent=np.array([r[4] for r in rows], dtype=object),
        session=session,
        turn=np.fromiter((t if t is not None else 0 for t in turns), np.int64, n),
        has_turn=np.fromiter((t is not None and abs(t) < _TURN_OFFSET for t in turns), bool, n),
        term_count=np.fromiter((r[7] for r in rows), np.float64, n),
        vectors=vectors,
        vector_rows=np.asarray(vector_rows, dtype=np.int64),
    )


def _key(user_id: str, model_name: str) -> tuple[str, str, str]:
    return (str(connection.settings_dict.get("NAME")), user_id, model_name)

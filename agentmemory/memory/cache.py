"""Per-user cache (profile, top memories, anything a reader derives from memories), dropped on every write.

Keys are ``agentmemory:memory:<sha256(user)>:<name>``; an index entry lists a user's keys so a write
or a forget deletes all of them at once (forgetting must not leave content in the cache).

Dropping entries only reaches this process's cache when the cache is per process (Django's default
local-memory cache, several gunicorn workers, a Celery worker writing): so a value read through
``get_or_set`` is stored with the user's **stamp**, read from the database with every read (one index-only
statement: the count, sum and maximum of the memories' revisions, which every write changes, and the
version of the profile row), and is served only while the stamp is the same. A write by any process,
whatever the cache backend, is seen by the next read.

A cache that fails (Redis down) is bypassed, never an error: reads compute from the database, and the
entries a failed invalidation could not drop expire after MEMORY_CACHE_SECONDS.
"""
from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.cache import cache

from ..conf import app_settings
from ..db import note_write, read_connection
from ..models import MemoryItem, MemoryProfile
from .snapshot import FINGERPRINT_COLUMNS

logger = logging.getLogger("agentmemory.cache")
_MISSING = object()


def _guard(what: str, func, default=None):
    try:
        return func()
    except Exception as exc:  # any backend failure: the cache is an optimisation, never a dependency
        logger.warning("cache %s failed (%s): bypassed", what, exc)
        return default


def _prefix(user_id: str) -> str:
    return "agentmemory:memory:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


def cache_get(user_id: str, name: str, default: Any = None) -> Any:
    """A cached value derived from ``user_id``'s memories, or ``default``."""
    return _guard("read", lambda: cache.get(f"{_prefix(user_id)}:{name}", default), default)


def cache_set(user_id: str, name: str, value: Any, timeout: float | None = None) -> None:
    """Cache ``value`` for ``user_id``; it is dropped by the next write to that user's memories."""
    prefix = _prefix(user_id)
    index_key = f"{prefix}:_keys"
    ttl = app_settings.MEMORY_CACHE_SECONDS if timeout is None else timeout

    def write() -> None:
        keys = set(cache.get(index_key) or ())
        keys.add(f"{prefix}:{name}")
        cache.set(index_key, sorted(keys), None)
        cache.set(f"{prefix}:{name}", value, ttl)

    _guard("write", write)


def stamp(user_id: str) -> tuple:
    """What the user's cached values derive from, as it is now in the database: the count, sum and maximum
    of their memories' revisions (every insert, update and delete changes one) and the profile row's version
    (its ``xmin``: any update, the admin's too)."""
    with read_connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {FINGERPRINT_COLUMNS}, "
            f"(SELECT xmin::text FROM {MemoryProfile._meta.db_table} WHERE user_id = %s) "
            f"FROM {MemoryItem._meta.db_table} WHERE user_id = %s", [user_id, user_id])
        return tuple(cursor.fetchone())


def get_or_set(user_id: str, name: str, compute, timeout: float | None = None) -> Any:
    """The cached value when it was derived from the user's data as it is now (``stamp``), else
    ``compute()``, cached with the stamp read before it (a write racing the computation only makes the next
    read compute again)."""
    current = stamp(user_id)
    held = cache_get(user_id, name, _MISSING)
    if isinstance(held, tuple) and len(held) == 2 and held[0] == current:
        return held[1]
    value = compute()
    cache_set(user_id, name, (current, value), timeout)
    return value


def invalidate_user(user_id: str) -> int:
    """Drop every cached entry of ``user_id``; returns how many keys were listed. Every write of a user's
    memories calls it (now and after commit): with a read replica it also records where the write is in the
    primary's WAL, for read-your-writes (agentmemory/db.py)."""
    note_write(user_id)
    prefix = _prefix(user_id)
    index_key = f"{prefix}:_keys"

    def drop() -> int:
        keys = list(cache.get(index_key) or ())
        cache.delete_many([*keys, index_key])
        return len(keys)

    return _guard("invalidation", drop, 0)

"""Per-user cache (profile, top memories, anything a reader derives from memories), dropped on every write.

Keys are ``agentmemory:memory:<sha256(user)>:<name>``; an index entry lists a user's keys so a write
or a forget deletes all of them at once (forgetting must not leave content in the cache).

A cache that fails (Redis down) is bypassed, never an error: reads compute from the database, and the
entries a failed invalidation could not drop expire after MEMORY_CACHE_SECONDS.
"""
from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.cache import cache

from ..conf import app_settings

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


def get_or_set(user_id: str, name: str, compute, timeout: float | None = None) -> Any:
    value = cache_get(user_id, name, _MISSING)
    if value is _MISSING:
        value = compute()
        cache_set(user_id, name, value, timeout)
    return value


def invalidate_user(user_id: str) -> int:
    """Drop every cached entry of ``user_id``; returns how many keys were listed."""
    prefix = _prefix(user_id)
    index_key = f"{prefix}:_keys"

    def drop() -> int:
        keys = list(cache.get(index_key) or ())
        cache.delete_many([*keys, index_key])
        return len(keys)

    return _guard("invalidation", drop, 0)

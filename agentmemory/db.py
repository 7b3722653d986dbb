"""Where retrieval reads: the primary, or a read replica, with read-your-writes.

With ``AGENTMEMORY["READ_REPLICA"] = "replica"`` (a DATABASES alias of a streaming standby) and
``DATABASE_ROUTERS = ["agentmemory.db.ReplicaRouter"]``, the retrieval entry points (context assembly,
knowledge search, memory recall) read inside ``retrieval_reads(user_id)``: the app's models (through the
router) and its raw SQL (through ``read_connection``) go to the replica, unless

- the user wrote recently and the replica has not replayed that write yet: every write of a user records the
  primary's WAL position after it commits (``note_write``, kept in the cache for READ_YOUR_WRITES_SECONDS);
  a read compares it with the replica's replayed position (``pg_last_wal_replay_lsn()``): behind, the
  primary answers;
- the read runs inside a transaction on the primary (it must see that transaction's own writes, as the
  publish gate's trial searches do);
- the replica does not answer (each retrieval entry asks it once, the same round trip as the position
  check); a failure sends reads to the primary for 30 seconds.

Writes always go to the primary; the router lets no migration run on the replica alias. Without the setting,
everything reads the default database exactly as before (no query is added). The WAL markers live in the
Django cache: with a per-process cache another process's writes are not known, so give web and workers one
shared cache (docs/deployment.md, "Read replica").
"""
from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from .conf import app_settings

logger = logging.getLogger("agentmemory.db")
_alias: ContextVar[str | None] = ContextVar("agentmemory_read_alias", default=None)
_down_until: dict[str, float] = {}
_lock = threading.Lock()
DOWN_SECONDS = 30.0


def read_alias() -> str:
    """The alias retrieval reads from now: the replica inside ``retrieval_reads`` when chosen, else default."""
    return _alias.get() or DEFAULT_DB_ALIAS


class _ReadConnection:
    """``django.db.connection``, but for the alias retrieval reads from now (``read_alias``)."""

    def __getattr__(self, name):
        return getattr(connections[read_alias()], name)


read_connection = _ReadConnection()


def router_installed() -> bool:
    return any((r if isinstance(r, str) else f"{type(r).__module__}.{type(r).__name__}")
               == "agentmemory.db.ReplicaRouter" for r in getattr(settings, "DATABASE_ROUTERS", []))


def replica_alias() -> str | None:
    """The replica's alias when one is configured and routed (both, or the ORM and raw SQL would disagree)."""
    alias = app_settings.READ_REPLICA
    if not alias or alias == DEFAULT_DB_ALIAS or alias not in settings.DATABASES or not router_installed():
        return None
    return alias


def _marker(user_id: str) -> str:
    import hashlib

    return "agentmemory:wal:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


def note_write(user_id: str) -> None:
    """Remember the primary's WAL position after ``user_id``'s write (only with a replica configured)."""
    if replica_alias() is None or not user_id:
        return
    from django.core.cache import cache

    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn()::text")
            lsn = cursor.fetchone()[0]
        cache.set(_marker(user_id), lsn, app_settings.READ_YOUR_WRITES_SECONDS)
    except Exception as exc:  # the cache or the primary failed: the read side then checks the replica's lag
        logger.warning("read-your-writes marker of a write not kept (%s)", exc)


def _probe(alias: str, wrote: str | None) -> bool:
    """One round trip to the replica, which is also its health probe: True when it answers and has replayed
    the WAL position ``wrote`` (when given). A replica that fails is left alone for DOWN_SECONDS."""
    now = time.monotonic()
    if _down_until.get(alias, 0.0) > now:
        return False
    try:
        with connections[alias].cursor() as cursor:
            if wrote:
                cursor.execute("SELECT coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, true)", [wrote])
            else:
                cursor.execute("SELECT true")
            return bool(cursor.fetchone()[0])
    except DatabaseError as exc:
        with _lock:
            _down_until[alias] = now + DOWN_SECONDS
        logger.warning("read replica %r unavailable (%s): reads go to the primary for %d s", alias, exc,
                       DOWN_SECONDS)
        try:
            connections[alias].close()
        except DatabaseError:
            pass
        return False


def choose_read_alias(user_id: str | None) -> str | None:
    """The replica's alias when retrieval for ``user_id`` may read there now (see the module docstring)."""
    alias = replica_alias()
    if alias is None or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return None
    wrote = None
    if user_id:
        from django.core.cache import cache

        try:
            wrote = cache.get(_marker(user_id))
        except Exception:  # a cache that fails: the replica is asked without the marker
            wrote = None
    return alias if _probe(alias, wrote) else None


@contextmanager
def retrieval_reads(user_id: str | None = None) -> Iterator[str]:
    """Read from the replica in this block when it may (nested blocks keep the outer choice); yields the alias."""
    if _alias.get() is not None:
        yield _alias.get()
        return
    token = _alias.set(choose_read_alias(user_id))
    try:
        yield read_alias()
    finally:
        _alias.reset(token)


def retrieval_entry(*, user_first: bool = False):
    """Decorate a retrieval service so it reads inside ``retrieval_reads`` (for the user given first, when
    ``user_first``): knowledge search and memory recall."""
    def decorate(func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            user_id = (args[0] if args else kwargs.get("user_id")) if user_first else None
            with retrieval_reads(user_id):
                return func(*args, **kwargs)

        return run

    return decorate


class ReplicaRouter:
    """Sends agentmemory's ORM reads inside ``retrieval_reads`` to the replica; everything else as before."""

    def db_for_read(self, model, **hints):
        if model._meta.app_label == "agentmemory":
            return _alias.get()
        return None

    def db_for_write(self, model, **hints):
        # Never the replica, even for an instance read there (Django would save it where it came from).
        instance = hints.get("instance")
        if instance is not None and instance._state.db and instance._state.db == replica_alias():
            return DEFAULT_DB_ALIAS
        return None

    def allow_relation(self, obj1, obj2, **hints):
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return False if db == replica_alias() else None

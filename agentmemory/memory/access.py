"""Access statistics of recalled memories: count + 1, last access = now, a recalled cold item is active again.

Recall returns first and records access after: the UPDATE writes new row versions, and on a busy
table that is the slowest part of a recall. ``record_access`` hands the ids to one background
thread per process, which coalesces what queued up meanwhile into one UPDATE per user, in its own
connection (kept while recalls keep coming, released after IDLE_SECONDS without work unless
CONN_MAX_AGE keeps it, and closed by a flush), with an asynchronous commit (access statistics are not worth a disk flush). Inside a
transaction (a test, an atomic view) or with MEMORY_ACCESS_ASYNC off it writes inline instead: a
background connection could not see the caller's uncommitted rows. ``flush_access`` waits until
everything queued is written (benchmarks, shutdown; also registered with atexit).
"""
from __future__ import annotations

import atexit
import datetime as dt
import logging
import os
import queue
import threading
from collections import defaultdict

from django.db import DatabaseError, close_old_connections, connection, transaction
from django.db.models import Case, F, Value, When
from django.db.models.functions import Coalesce, Greatest

from ..conf import app_settings
from ..models import MemoryItem

logger = logging.getLogger(__name__)

_queue: queue.Queue = queue.Queue()
_thread: threading.Thread | None = None
_thread_lock = threading.Lock()


def touch_now(user_id: str, ids: list[int], now: dt.datetime, *, times: int = 1) -> int:
    """One UPDATE of ``user_id``'s items ``ids`` (recalled ``times`` times); returns the rows written."""
    if not ids:
        return 0
    outer = connection.in_atomic_block  # inside a caller's transaction, leave its commit alone
    with transaction.atomic(), connection.cursor() as cursor:
        if not outer:
            cursor.execute("SET LOCAL synchronous_commit = off")
        return MemoryItem.objects.for_user(user_id).filter(pk__in=ids).update(
            access_count=F("access_count") + times,
            # A batch written late must not move a newer inline access back in time.
            last_accessed_at=Greatest(Coalesce(F("last_accessed_at"), Value(now)), Value(now)),
            status=Case(When(status=MemoryItem.Status.COLD, then=Value(MemoryItem.Status.ACTIVE)),
                        default=F("status")),
        )


def record_access(user_id: str, ids: list[int], now: dt.datetime) -> None:
    """Record that ``ids`` of ``user_id`` were recalled at ``now`` (in the background when possible)."""
    if not ids:
        return
    if connection.in_atomic_block or not app_settings.MEMORY_ACCESS_ASYNC:
        touch_now(user_id, ids, now)
        return
    _ensure_thread()
    _queue.put((user_id, list(ids), now))


def flush_access(timeout: float | None = 30.0) -> None:
    """Block until every access queued so far is written."""
    if _thread is None or not _thread.is_alive():
        return
    done = threading.Event()
    _queue.put(done)
    done.wait(timeout)


def _ensure_thread() -> None:
    global _thread
    if _thread is not None and _thread.is_alive():
        return
    with _thread_lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_run, name="agentmemory-access", daemon=True)
            _thread.start()


#: Seconds without work after which the writer releases its connection (as a request would).
IDLE_SECONDS = 2.0


def _run() -> None:
    while True:
        try:
            batch = [_queue.get(timeout=IDLE_SECONDS)]
        except queue.Empty:
            close_old_connections()  # closed unless CONN_MAX_AGE keeps it
            continue
        while True:  # coalesce whatever queued up while the last batch was written
            try:
                batch.append(_queue.get_nowait())
            except queue.Empty:
                break
        # user -> item -> (times recalled, latest time)
        pending: dict[str, dict[int, tuple[int, dt.datetime]]] = defaultdict(dict)
        waiters = []
        for entry in batch:
            if isinstance(entry, threading.Event):
                waiters.append(entry)
                continue
            user_id, ids, now = entry
            for pk in ids:
                times, latest = pending[user_id].get(pk, (0, now))
                pending[user_id][pk] = (times + 1, max(now, latest))
        for user_id, items in pending.items():
            groups: dict[int, list[int]] = defaultdict(list)
            for pk, (times, _latest) in items.items():
                groups[times].append(pk)
            latest = max(stamp for _times, stamp in items.values())
            for times, ids in groups.items():
                try:
                    _write(user_id, ids, latest, times)
                except Exception:  # the writer thread must outlive any one bad batch
                    logger.exception("access statistics of %d memories of %s not recorded", len(ids), user_id)
        if waiters:
            connection.close()  # a flush (shutdown, tests, benchmarks) leaves no session behind
        for waiter in waiters:
            waiter.set()


def _write(user_id: str, ids: list[int], now: dt.datetime, times: int) -> None:
    # Items of one batch get the batch's latest access time (they were recalled milliseconds apart).
    for attempt in (1, 2):
        try:
            touch_now(user_id, ids, now, times=times)
            return
        except DatabaseError as exc:  # e.g. the server restarted: reconnect once, then give up
            connection.close()
            if attempt == 2:
                logger.warning("access statistics of %d memories of %s not recorded: %s", len(ids), user_id, exc)


def _reset_after_fork() -> None:
    global _queue, _thread, _thread_lock
    # The writer thread stayed in the parent, and a lock held by a parent thread is never released.
    _queue, _thread, _thread_lock = queue.Queue(), None, threading.Lock()


os.register_at_fork(after_in_child=_reset_after_fork)
atexit.register(flush_access, 5.0)

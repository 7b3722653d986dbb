"""Access statistics of recalled memories: count + 1, last access = now, a recalled cold item is active again.

Recall returns first and records access after: the UPDATE writes new row versions, and on a busy
table that is the slowest part of a recall. ``record_access`` hands the ids to one background
thread per process, which writes what queued up meanwhile in one UPDATE, each row matched on its
id and its user. The thread keeps its connection while recalls keep coming, releases it after
IDLE_SECONDS without work (unless CONN_MAX_AGE keeps it), and closes it on a flush; commits are
asynchronous (access statistics are not worth a disk flush). Inside a transaction (a test, an
atomic view) or with MEMORY_ACCESS_ASYNC off it writes inline instead: a background connection
could not see the caller's uncommitted rows. ``flush_access`` waits until everything queued is
written (benchmarks, shutdown; also registered with atexit).
"""
from __future__ import annotations

import atexit
import datetime as dt
import logging
import os
import queue
import threading

from django.db import DatabaseError, close_old_connections, connection, transaction

from ..conf import app_settings
from ..models import MemoryItem

logger = logging.getLogger(__name__)

_queue: queue.Queue = queue.Queue()
_thread: threading.Thread | None = None
_thread_lock = threading.Lock()


def write_access(pending: dict[tuple[str, int], tuple[int, dt.datetime]]) -> None:
    """One UPDATE for ``{(user_id, memory_id): (times recalled, latest time)}``.

    Every row is matched on its id *and* its user, so an id paired with another user changes nothing.
    """
    if not pending:
        return
    table = MemoryItem._meta.db_table
    keys = list(pending)
    args = [[pk for _user, pk in keys], [user for user, _pk in keys], [pending[k][0] for k in keys],
            [pending[k][1] for k in keys]]
    outer = connection.in_atomic_block  # inside a caller's transaction, leave its commit alone
    with transaction.atomic(), connection.cursor() as cursor:
        if not outer:
            cursor.execute("SET LOCAL synchronous_commit = off")
        # The rows are locked in id order first, as forget_user locks them: two writers taking one user's rows in
        # different orders would deadlock. GREATEST: a batch written late must not move a newer access back in time.
        cursor.execute(
            f"""
            WITH u AS (
                SELECT m.id, u.times, u.at
                FROM {table} AS m
                JOIN unnest(%s::bigint[], %s::text[], %s::int[], %s::timestamptz[]) AS u(id, user_id, times, at)
                  ON m.id = u.id AND m.user_id = u.user_id
                ORDER BY m.id
                FOR NO KEY UPDATE OF m
            )
            UPDATE {table} AS m
            SET access_count = m.access_count + u.times,
                last_accessed_at = GREATEST(coalesce(m.last_accessed_at, u.at), u.at),
                status = CASE WHEN m.status = %s THEN %s ELSE m.status END
            FROM u
            WHERE m.id = u.id""",
            [*args, MemoryItem.Status.COLD, MemoryItem.Status.ACTIVE],
        )


def record_access(user_id: str, ids: list[int], now: dt.datetime) -> None:
    """Record that ``ids`` of ``user_id`` were recalled at ``now`` (in the background when possible)."""
    if not ids:
        return
    if connection.in_atomic_block or not app_settings.MEMORY_ACCESS_ASYNC:
        write_access({(user_id, pk): (1, now) for pk in ids})
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
            try:
                close_old_connections()  # closed unless CONN_MAX_AGE keeps it
            except Exception:  # a host (or a test runner) may forbid database access in this thread now
                logger.debug("access writer: idle connection check skipped", exc_info=True)
            continue
        while True:  # coalesce whatever queued up while the last batch was written
            try:
                batch.append(_queue.get_nowait())
            except queue.Empty:
                break
        # (user, item) -> (times recalled, latest time)
        pending: dict[tuple[str, int], tuple[int, dt.datetime]] = {}
        waiters = []
        for entry in batch:
            if isinstance(entry, threading.Event):
                waiters.append(entry)
                continue
            user_id, ids, now = entry
            for pk in ids:
                times, latest = pending.get((user_id, pk), (0, now))
                pending[(user_id, pk)] = (times + 1, max(now, latest))
        if pending:
            try:
                _write(pending)
            except Exception:  # the writer thread must outlive any one bad batch
                logger.exception("access statistics of %d memories not recorded", len(pending))
        if waiters:
            connection.close()  # a flush (shutdown, tests, benchmarks) leaves no session behind
        for waiter in waiters:
            waiter.set()


def _write(pending: dict[tuple[str, int], tuple[int, dt.datetime]]) -> None:
    for attempt in (1, 2):
        try:
            write_access(pending)
            return
        except DatabaseError as exc:  # e.g. the server restarted: reconnect once, then give up
            connection.close()
            if attempt == 2:
                logger.warning("access statistics of %d memories not recorded: %s", len(pending), exc)


def _reset_after_fork() -> None:
    global _queue, _thread, _thread_lock
    # The writer thread stayed in the parent, and a lock held by a parent thread is never released.
    _queue, _thread, _thread_lock = queue.Queue(), None, threading.Lock()


os.register_at_fork(after_in_child=_reset_after_fork)
atexit.register(flush_access, 5.0)

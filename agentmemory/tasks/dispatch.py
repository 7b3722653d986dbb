"""Sending tasks: after the transaction commits, and never failing the request when the broker is down.

The work a task does is always recorded first (an import job, an extraction run, a memory pending
embedding), so a message that could not be sent is not lost: the beat sweeps find the recorded work and
dispatch it again once the broker is back.
"""
from __future__ import annotations

import logging
import threading

from django.db import connections, transaction

logger = logging.getLogger("agentmemory.tasks")


def send(task, *args, **options) -> bool:
    """Send ``task`` now; False (logged) when the broker cannot be reached."""
    try:
        task.apply_async(args, **options)
    except Exception as exc:  # kombu's OperationalError, redis ConnectionError, ...: all mean "not sent"
        logger.warning("could not send %s%r (%s); the sweep will dispatch it later", task.name, args, exc)
        return False
    return True


def enqueue_on_commit(task, *args, **options) -> None:
    """Send ``task`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send(task, *args, **options))


def run_in_background_on_commit(name: str, func, *args) -> None:
    """Run ``func(*args)`` in a daemon thread once the transaction commits (eager mode, no worker).

    For work too long for a request when Celery runs tasks in-process: the request answers at once with
    the recorded job, the thread does the work with its own database connection. A failure is logged;
    the recorded job keeps its state for the retry sweep.
    """
    def run() -> None:
        try:
            func(*args)
        except Exception:
            logger.warning("background %s failed; the job is kept for the retry sweep", name, exc_info=True)
        finally:
            connections.close_all()

    transaction.on_commit(lambda: threading.Thread(target=run, name=f"agentmemory-{name}", daemon=True).start())

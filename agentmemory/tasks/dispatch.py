"""Sending tasks: after the transaction commits, and never failing the request when the broker is down.

The work a task does is always recorded first (an import job, an extraction run, a memory pending
embedding), so a message that could not be sent is not lost: the beat sweeps find the recorded work and
dispatch it again once the broker is back.
"""
from __future__ import annotations

import logging

from django.db import transaction

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

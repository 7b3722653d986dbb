"""Celery state shared by the worker tests."""
from __future__ import annotations


def reset_broker_state(app) -> None:
    """Drop the connection pool, producers and result backend cached before the broker was set (eager runs
    earlier in the session leave a DisabledBackend and pools for the old URL)."""
    app._pool = None
    app.amqp._producer_pool = None
    if hasattr(app._local, "backend"):
        del app._local.backend

"""System tasks."""
from __future__ import annotations

from celery import shared_task

from ..health import run_health_check


@shared_task(name="agentmemory.health_check")
def health_check() -> dict:
    """Probe the database and the embedder from a worker."""
    return run_health_check()

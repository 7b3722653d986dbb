"""System tasks."""
from __future__ import annotations

from ..health import run_health_check
from .retry import agentmemory_task


@agentmemory_task("agentmemory.health_check", acks_late=False, audited=False)
def health_check() -> dict:
    """Probe the database and the embedder from a worker."""
    return run_health_check()

"""System tasks."""
from __future__ import annotations

from ..backlog import backlog, log_warnings
from ..health import run_health_check
from .retry import agentmemory_task


@agentmemory_task("agentmemory.health_check", acks_late=False, audited=False)
def health_check() -> dict:
    """Probe the database and the embedder from a worker, and report the backlog (its warnings logged)."""
    report = {**run_health_check(), "backlog": backlog()}
    log_warnings(report["backlog"])
    return report

"""Context tasks: the ledger's retention purge (a beat job)."""
from __future__ import annotations

from .retry import agentmemory_task


@agentmemory_task("agentmemory.purge_contexts")
def purge_contexts() -> dict:
    """Beat job: delete context-ledger rows older than CONTEXT_LEDGER_RETENTION_DAYS; the result (and the audit
    event ``ledger.purge``) is the receipt."""
    from ..context.ledger import purge_expired

    return purge_expired()

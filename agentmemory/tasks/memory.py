"""Long-term memory tasks: the daily cold-status job and forgetting a user in the background."""
from __future__ import annotations

from ..audit import audit_reason
from .retry import DECAY, EMBED_PENDING, FORGET, REEMBED_MEMORIES, agentmemory_task


@agentmemory_task("agentmemory.decay_memories", retry=DECAY)
def decay_memories() -> dict:
    """Mark active memories not accessed for MEMORY_COLD_AFTER_DAYS as cold (idempotent)."""
    from ..memory.decay import mark_cold_memories

    return {"cold": mark_cold_memories()}


@agentmemory_task("agentmemory.forget_user", retry=FORGET)
def forget_user(user_id: str, reason: str = "") -> dict:
    """Forget ``user_id``; a rerun after success deletes nothing more and writes another empty receipt."""
    from ..memory.forget import forget_user as forget

    with audit_reason(reason):
        receipt = forget(user_id, reason=reason)
    return {"receipt_id": receipt.pk, "counts": receipt.counts}


@agentmemory_task("agentmemory.embed_pending_memories", retry=EMBED_PENDING)
def embed_pending_memories(user_id: str | None = None) -> dict:
    """Give vectors to memories stored while the embedder was down; never raises for the embedder
    (items stay pending and the periodic sweep tries again), so eager mode cannot fail a request."""
    from ..memory.embed import embed_pending_memories as embed_pending

    return embed_pending(user_id=user_id)


@agentmemory_task("agentmemory.distill_profiles")
def distill_profiles() -> dict:
    """Beat job: rewrite the profile summaries that are due (old, or enough changed since)."""
    from ..memory.distill import distill_due_profiles

    results = distill_due_profiles()
    return {"rewritten": [r.user_id for r in results if r.action == "rewritten"],
            "unchanged": [r.user_id for r in results if r.action == "unchanged"]}


@agentmemory_task("agentmemory.purge_memories")
def purge_memories() -> dict:
    """Beat job: delete the memories past their type's retention, each with a receipt."""
    from ..memory.retention import purge_expired_memories

    result = purge_expired_memories()
    return {"due": result.due, "deleted": result.deleted, "receipts": result.receipts}


@agentmemory_task("agentmemory.reembed_memories", retry=REEMBED_MEMORIES)
def reembed_memories(user_id: str | None = None) -> dict:
    """Re-embed memories whose vector is missing or of another model (after an embedder change); resumable."""
    from ..memory.embed import embed_pending_memories

    return embed_pending_memories(user_id=user_id, other_models=True)

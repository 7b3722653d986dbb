"""Long-term memory tasks: the daily cold-status job and forgetting a user in the background."""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ..audit import audit_context, task_actor

_TRANSIENT = (OperationalError, InterfaceError)


@shared_task(name="agentmemory.decay_memories", bind=True, acks_late=True, reject_on_worker_lost=True,
             max_retries=3)
def decay_memories(self) -> dict:
    """Mark active memories not accessed for MEMORY_COLD_AFTER_DAYS as cold (idempotent)."""
    from ..memory.decay import mark_cold_memories

    with task_actor("agentmemory.decay_memories"):
        try:
            return {"cold": mark_cold_memories()}
        except _TRANSIENT as exc:
            raise self.retry(exc=exc, countdown=60) from exc


@shared_task(name="agentmemory.forget_user", bind=True, acks_late=True, reject_on_worker_lost=True,
             max_retries=5)
def forget_user(self, user_id: str, reason: str = "") -> dict:
    """Forget ``user_id``; a rerun after success deletes nothing more and writes another empty receipt."""
    from ..memory.forget import forget_user as forget

    with audit_context("task:agentmemory.forget_user", reason):
        try:
            receipt = forget(user_id, reason=reason)
        except _TRANSIENT as exc:
            raise self.retry(exc=exc, countdown=30) from exc
    return {"receipt_id": receipt.pk, "counts": receipt.counts}


@shared_task(name="agentmemory.embed_pending_memories", bind=True, acks_late=True, reject_on_worker_lost=True,
             max_retries=3)
def embed_pending_memories(self, user_id: str | None = None) -> dict:
    """Give vectors to memories stored while the embedder was down; never raises for the embedder
    (items stay pending and the periodic sweep tries again), so eager mode cannot fail a request."""
    from ..memory.embed import embed_pending_memories as embed_pending

    with task_actor("agentmemory.embed_pending_memories"):
        try:
            return embed_pending(user_id=user_id)
        except _TRANSIENT as exc:
            raise self.retry(exc=exc, countdown=30) from exc


@shared_task(name="agentmemory.distill_profiles", acks_late=True)
def distill_profiles() -> dict:
    """Beat job: rewrite the profile summaries that are due (old, or enough changed since)."""
    from ..memory.distill import distill_due_profiles

    with task_actor("agentmemory.distill_profiles"):
        results = distill_due_profiles()
    return {"rewritten": [r.user_id for r in results if r.action == "rewritten"],
            "unchanged": [r.user_id for r in results if r.action == "unchanged"]}


@shared_task(name="agentmemory.purge_memories", acks_late=True)
def purge_memories() -> dict:
    """Beat job: delete the memories past their type's retention, each with a receipt."""
    from ..memory.retention import purge_expired_memories

    with task_actor("agentmemory.purge_memories"):
        result = purge_expired_memories()
    return {"due": result.due, "deleted": result.deleted, "receipts": result.receipts}


@shared_task(name="agentmemory.reembed_memories", acks_late=True, autoretry_for=(OperationalError, InterfaceError),
             max_retries=3, retry_backoff=True)
def reembed_memories(user_id: str | None = None) -> dict:
    """Re-embed memories whose vector is missing or of another model (after an embedder change); resumable."""
    from ..memory.embed import embed_pending_memories

    with task_actor("agentmemory.reembed_memories"):
        return embed_pending_memories(user_id=user_id, other_models=True)

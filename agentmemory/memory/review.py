"""An operator's review of quarantined memories (memory/guard.py): approve or reject, audited; and
``mark_down``, which a user's negative feedback on a context uses (context/feedback.py) to lower a memory's
confidence and, below FEEDBACK_REVIEW_BELOW, send it to the same review queue.

Approving makes the memory active with its text quoted as the user's own words (``guard.
quote_as_user_words``), so a prompt carries what the user said, never an instruction; rejecting deletes it
as any deletion does (tombstone, history scrubbed, a receipt). Both need ``agentmemory.review_memoryitem``
in the admin.
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from ..audit import record_event
from ..backends.extractors.base import is_chinese
from ..exceptions import InvalidInput, NotFound
from ..models import DeletionReceipt, MemoryItem
from ..timestamps import iso
from ..validation import validate_user_id
from .forget import delete_memory
from .guard import quote_as_user_words
from .rows import after_commit, lock_user, search_fields, snapshot


def _quarantined(user_id: str, memory_id: int) -> MemoryItem:
    item = MemoryItem.objects.for_user(user_id).select_for_update().filter(pk=memory_id).first()
    if item is None or item.status == MemoryItem.Status.DELETED:
        raise NotFound(f"memory {memory_id} not found for this user")
    if item.status != MemoryItem.Status.QUARANTINED:
        raise InvalidInput(f"memory {memory_id} is {item.status}, not quarantined.", field="status")
    return item


def approve_memory(user_id: str, memory_id: int, *, reason: str = "") -> MemoryItem:
    """Make a quarantined memory active, its text quoted as the user's words."""
    validate_user_id(user_id)
    with transaction.atomic():
        lock_user(user_id)
        item = _quarantined(user_id, memory_id)
        before = snapshot(item)
        if not _held_by_feedback(item):  # an instruction is kept as the user's quoted words
            item.content = quote_as_user_words(item.content, chinese=is_chinese(item.content))
        item.status, item.updated_at = MemoryItem.Status.ACTIVE, timezone.now()
        item.provenance = [*(item.provenance or []), {"review": "approved", "at": iso(item.updated_at)}][-50:]
        for name, value in search_fields(item.content, item.tags or {}).items():
            setattr(item, name, value)
        item.save()
        record_event("approve", object_type="memory", object_id=item.pk, user_id=user_id, before=before,
                     after=snapshot(item), reason=reason or "approved in review")
        after_commit(user_id)
    return item


def _held_by_feedback(item: MemoryItem) -> bool:
    return bool(item.provenance) and (item.provenance[-1] or {}).get("review") == "feedback"


def mark_down(user_id: str, memory_id: int, *, step: float, review_below: float, reason: str) -> dict:
    """Lower a current memory's confidence by ``step``; below ``review_below`` (or when it was a model's
    inference) it is quarantined for review, out of every prompt until an operator approves it.
    Returns the effect ({"memory_id", "action": lowered|review|skipped, "confidence"})."""
    validate_user_id(user_id)
    with transaction.atomic():
        lock_user(user_id)
        item = MemoryItem.objects.for_user(user_id).select_for_update().filter(pk=memory_id).first()
        if item is None or item.status not in (MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD):
            return {"memory_id": memory_id, "action": "skipped",
                    "reason": "not a current memory" if item else "not found"}
        before = snapshot(item)
        item.confidence = round(max(0.0, item.confidence - step), 4)
        review = item.confidence < review_below or item.source == MemoryItem.Source.MODEL_INFERRED
        item.updated_at = timezone.now()
        if review:
            item.status = MemoryItem.Status.QUARANTINED
            item.provenance = [*(item.provenance or []),
                               {"review": "feedback", "reason": reason[:200], "at": iso(item.updated_at)}][-50:]
        item.save(update_fields=["confidence", "status", "provenance", "updated_at"])
        record_event("feedback.mark_down", object_type="memory", object_id=item.pk, user_id=user_id,
                     before=before, after=snapshot(item), reason=reason)
        after_commit(user_id)
    return {"memory_id": memory_id, "action": "review" if review else "lowered", "confidence": item.confidence}


def reject_memory(user_id: str, memory_id: int, *, reason: str = "") -> DeletionReceipt:
    """Delete a quarantined memory (a receipt, history scrubbed), recording that a review rejected it."""
    validate_user_id(user_id)
    with transaction.atomic():
        item = _quarantined(user_id, memory_id)
        record_event("reject", object_type="memory", object_id=item.pk, user_id=user_id,
                     after={"status": "rejected"}, reason=reason or "rejected in review")
        return delete_memory(user_id, item.pk, reason=reason or "rejected in review")

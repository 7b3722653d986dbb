"""An operator's review of quarantined memories (memory/guard.py): approve or reject, audited.

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


def reject_memory(user_id: str, memory_id: int, *, reason: str = "") -> DeletionReceipt:
    """Delete a quarantined memory (a receipt, history scrubbed), recording that a review rejected it."""
    validate_user_id(user_id)
    with transaction.atomic():
        item = _quarantined(user_id, memory_id)
        record_event("reject", object_type="memory", object_id=item.pk, user_id=user_id,
                     after={"status": "rejected"}, reason=reason or "rejected in review")
        return delete_memory(user_id, item.pk, reason=reason or "rejected in review")

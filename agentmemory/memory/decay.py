"""Cold status: active memories not accessed for MEMORY_COLD_AFTER_DAYS leave default recall (beat job)."""
from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone

from ..audit import current_actor
from ..conf import app_settings
from ..models import AuditEvent, MemoryItem
from . import cache


def mark_cold_memories(*, now: dt.datetime | None = None, batch_size: int = 1000) -> int:
    """Set status ``cold`` on active items untouched for MEMORY_COLD_AFTER_DAYS; returns how many.

    Idempotent (a second run finds nothing); each batch is one transaction with its audit events.
    A cold item comes back to ``active`` when a recall returns it.
    """
    now = now or timezone.now()
    cutoff = now - dt.timedelta(days=float(app_settings.MEMORY_COLD_AFTER_DAYS))
    total = 0
    while True:
        with transaction.atomic():
            batch = list(MemoryItem.objects.due_for_decay(now, cutoff).select_for_update(skip_locked=True)
                         .values_list("id", "user_id")[:batch_size])
            if not batch:
                break
            ids = [pk for pk, _user in batch]
            MemoryItem.objects.get_queryset().filter(pk__in=ids, status=MemoryItem.Status.ACTIVE).update(
                status=MemoryItem.Status.COLD, updated_at=now)
            AuditEvent.objects.bulk_create([
                AuditEvent(actor=current_actor(), action="cold", object_type="memory",
                           object_id=str(pk), user_id=user, before={"status": "active"}, after={"status": "cold"},
                           reason=f"not accessed for {app_settings.MEMORY_COLD_AFTER_DAYS:g} days")
                for pk, user in batch
            ])
            users = {user for _pk, user in batch}
            transaction.on_commit(lambda users=users: [cache.invalidate_user(u) for u in users])
        total += len(batch)
        if len(batch) < batch_size:
            break
    return total

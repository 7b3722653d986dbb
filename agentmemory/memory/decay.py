"""Decay: how age and use weigh in a memory's score (the maths recall ranks by), and the cold status that
active memories not accessed for MEMORY_COLD_AFTER_DAYS take (beat job), leaving default recall."""
from __future__ import annotations

import datetime as dt
import math

from django.db import transaction
from django.utils import timezone

from ..audit import current_actor
from ..conf import app_settings
from ..models import AuditEvent, MemoryItem
from . import cache


def decay_factor(last_touch: dt.datetime, now: dt.datetime, *, half_life_days: float, floor: float) -> float:
    """0.5 ** (days since last access / half-life), at least ``floor``."""
    return decay_of_age((now - last_touch).total_seconds(), half_life_days=half_life_days, floor=floor)


def decay_of_age(seconds: float, *, half_life_days: float, floor: float) -> float:
    """decay_factor of an age in seconds (recall's times are epoch seconds)."""
    return max(floor, 0.5 ** (max(0.0, seconds / 86400.0) / half_life_days))


def frequency_factor(access_count: int, *, weight: float, saturation: int) -> float:
    """1 + weight x min(1, ln(1 + count) / ln(1 + saturation)): used often ranks higher, with diminishing
    returns, and never more than ``1 + weight`` (a popular item must not bury a better match)."""
    if weight <= 0 or access_count <= 0:
        return 1.0
    return 1.0 + weight * min(1.0, math.log1p(access_count) / math.log1p(max(1, saturation)))


def mark_cold_memories(*, now: dt.datetime | None = None, batch_size: int = 1000) -> int:
    """Set status ``cold`` on active items untouched for MEMORY_COLD_AFTER_DAYS; returns how many.

    Idempotent (a second run finds nothing); each batch is one transaction with its audit events.
    A cold item comes back to ``active`` when a recall returns it.
    """
    now = now or timezone.now()
    cutoff = now - dt.timedelta(days=app_settings.MEMORY_COLD_AFTER_DAYS)
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

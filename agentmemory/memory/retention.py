"""Retention: memories past their type's retention are deleted, each with a receipt (beat job and command).

A memory is past retention when it has not been accessed (or, never accessed, created) for
MEMORY_RETENTION_DAYS[type] days; ``None`` keeps a type forever. Items the user pinned (tag
``pinned``) or confirmed (user-stated with confidence >= 0.9) are kept unless
MEMORY_RETENTION_KEEP_CONFIRMED is off. Idempotent: a second run finds nothing.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils import timezone

from ..conf import app_settings
from ..exceptions import NotFound
from ..models import MemoryItem
from .forget import delete_memory


@dataclass(frozen=True)
class RetentionResult:
    due: int
    deleted: int
    receipts: list[int] = field(default_factory=list)


def due_for_retention(*, now: dt.datetime | None = None):
    """Current items of every user past their type's retention (ids and users only)."""
    now = now or timezone.now()
    condition = Q(pk__in=[])
    for type_, days in dict(app_settings.MEMORY_RETENTION_DAYS).items():
        if days is None:
            continue
        cutoff = now - dt.timedelta(days=float(days))
        condition |= Q(type=type_) & (Q(last_accessed_at__lt=cutoff) | Q(last_accessed_at__isnull=True,
                                                                          created_at__lt=cutoff))
    qs = (MemoryItem.objects.get_queryset().filter(condition)
          .filter(status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD]))
    if app_settings.MEMORY_RETENTION_KEEP_CONFIRMED:
        # has_key first: a JSON key comparison on rows without the key is NULL, which NOT would keep out too.
        qs = (qs.exclude(Q(tags__has_key="pinned") & Q(tags__pinned="true"))
              .exclude(source=MemoryItem.Source.USER_STATED, confidence__gte=0.9))
    return qs.order_by("pk").values_list("pk", "user_id")


def purge_expired_memories(*, now: dt.datetime | None = None, dry_run: bool = False,
                           limit: int = 10_000) -> RetentionResult:
    """Delete the memories past retention, oldest id first; each deletion leaves a receipt without content."""
    due = list(due_for_retention(now=now)[:limit])
    if dry_run:
        return RetentionResult(len(due), 0)
    receipts = []
    for pk, user_id in due:
        try:
            receipts.append(delete_memory(user_id, pk, reason="retention: past its type's retention period").pk)
        except NotFound:
            continue  # deleted meanwhile: with a newer version of it, by a user, or by another run of the job
    return RetentionResult(len(due), len(receipts), receipts)

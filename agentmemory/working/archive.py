"""Retention: ended sessions keep their raw turns for SESSION_RETENTION_DAYS, then the turns are purged."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from ..audit import record_event
from ..conf import app_settings
from ..models import Session, Turn


@dataclass(frozen=True)
class PurgeResult:
    sessions: int  # sessions archived (turns purged)
    turns: int  # turns deleted (or that would be, on a dry run)
    kept_unextracted: int  # past retention but their turns are not all extracted yet: kept
    dry_run: bool = False


def purge_ended_sessions(*, days: float | None = None, now: dt.datetime | None = None,
                         dry_run: bool = False, limit: int = 1000) -> PurgeResult:
    """Archive ended sessions older than the retention period: delete their turns and summary.

    A session whose turns were not all extracted keeps them (nothing is lost before it is
    remembered); the extraction's retry or the next run covers them first.
    """
    now = now or timezone.now()
    days = float(app_settings.SESSION_RETENTION_DAYS if days is None else days)
    cutoff = now - dt.timedelta(days=days)
    due = list(Session.objects.due_for_purge(cutoff).order_by("ended_at")[:limit])
    ready = [s for s in due if s.extracted_up_to >= s.turn_count]
    kept = len(due) - len(ready)
    turns = Turn.objects.filter(session__in=ready).count()
    if dry_run or not ready:
        return PurgeResult(len(ready), turns, kept, dry_run)
    with transaction.atomic():
        deleted, _ = Turn.objects.filter(session__in=ready).delete()
        for session in ready:
            session.status = Session.Status.ARCHIVED
            session.archived_at = now
            session.summary = ""
            session.save(update_fields=["status", "archived_at", "summary"])
            record_event("archive", object_type="session", object_id=session.pk, user_id=session.user_id,
                         reason=f"retention {days:g} days")
    return PurgeResult(len(ready), deleted, kept, False)

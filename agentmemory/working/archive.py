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
    if dry_run:
        due = list(Session.objects.due_for_purge(cutoff).order_by("ended_at")[:limit])
        ready = [s for s in due if s.extracted_up_to >= s.turn_count]
        turns = Turn.objects.filter(session__in=ready).count()
        return PurgeResult(len(ready), turns, len(due) - len(ready), True)
    with transaction.atomic():
        # Rows another run holds are skipped, not waited for: two runs at once archive each session once.
        due = list(Session.objects.due_for_purge(cutoff).select_for_update(skip_locked=True)
                   .order_by("ended_at")[:limit])
        ready = [s for s in due if s.extracted_up_to >= s.turn_count]
        kept = len(due) - len(ready)
        if not ready:
            return PurgeResult(0, 0, kept, False)
        deleted, _ = Turn.objects.filter(session__in=ready).delete()
        for session in ready:
            session.status = Session.Status.ARCHIVED
            session.archived_at = now
            session.summary = ""
            session.save(update_fields=["status", "archived_at", "summary"])
            record_event("archive", object_type="session", object_id=session.pk, user_id=session.user_id,
                         reason=f"retention {days:g} days")
    return PurgeResult(len(ready), deleted, kept, False)


@dataclass(frozen=True)
class CloseResult:
    sessions: list[str]
    runs: list[int]
    dry_run: bool


def close_idle_sessions(*, now: dt.datetime | None = None, dry_run: bool = False, limit: int = 1000) -> CloseResult:
    """End the active sessions with no turn for SESSION_CLOSE_AFTER_HOURS; the purge job archives them once
    past SESSION_RETENTION_DAYS. Idempotent. ``runs``: the extraction runs to queue once this returns (the
    task and the command queue them; the worker must see the ended sessions, committed here)."""
    from .sessions import end_session

    now = now or timezone.now()
    cutoff = now - dt.timedelta(hours=app_settings.SESSION_CLOSE_AFTER_HOURS)
    idle = Session.objects.active().filter(last_activity_at__lt=cutoff).order_by("last_activity_at")
    if dry_run:
        return CloseResult([str(s.pk) for s in idle[:limit]], [], True)
    runs = []
    with transaction.atomic():
        # Sessions another run holds are skipped, not waited for: two runs at once end each session once.
        sessions = list(idle.select_for_update(skip_locked=True)[:limit])
        for session in sessions:
            run = end_session(session, now=now)
            if run is not None and run.status != run.Status.SUCCEEDED:
                runs.append(run.pk)
    return CloseResult([str(s.pk) for s in sessions], runs, False)

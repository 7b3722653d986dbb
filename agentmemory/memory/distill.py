"""The profile layer's distillation: rewrite a user's summary from their current memories.

Run by the beat job ``agentmemory.distill_profiles`` (and ``manage.py agentmemory_distill_profiles``) for
users whose summary is older than PROFILE_MAX_AGE_DAYS (the seeds say quarterly) or who changed enough
since (PROFILE_REFRESH_MIN_CHANGES memories written or updated); on demand from the admin or REST. The
summary keeps its provenance: the memories it came from, the method, when. Idempotent: a rewrite that
would give the same text changes nothing.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from ..audit import record_event
from ..backends.distillers import MemoryLine, SessionLine
from ..conf import app_settings
from ..models import MemoryItem, MemoryProfile, Session
from ..usage import llm_usage
from ..validation import validate_user_id
from . import cache


@dataclass(frozen=True)
class DistillResult:
    user_id: str
    action: str  # "rewritten" | "unchanged" | "would_rewrite" (dry run) | "no_memories"
    summary: str = ""
    sources: list[int] = field(default_factory=list)
    method: str = ""
    sessions: list[str] = field(default_factory=list)  # the recent sessions an LLM distiller also read


def _lines(user_id: str) -> list[MemoryLine]:
    """Current user-stated and logged memories shared by all agents, newest first, one per slot.

    The summary is one text every caller of the user's profile reads, so it is written only from what
    every agent may see: an agent's own memories (``agent_id`` set) never enter it; they reach that
    agent's prompts as its profile facts and recalled memories. Episodes (the user's own words) reach
    prompts through recall, not through the summary.
    """
    items = (MemoryItem.objects.for_user(user_id).active().filter(agent_id="")
             .exclude(source=MemoryItem.Source.MODEL_INFERRED).exclude(type=MemoryItem.Type.EPISODE)
             .only("id", "type", "key", "content", "created_at").order_by("-created_at", "-id"))
    seen: set[tuple[str, str]] = set()
    lines = []
    for item in items[:500]:
        slot = (item.type, item.key or f"#{item.pk}")
        if slot not in seen:
            seen.add(slot)
            lines.append(MemoryLine(item.pk, item.type, item.key, item.content))
    return lines


def recent_sessions(user_id: str, limit: int | None = None) -> list[SessionLine]:
    """The user's most recent sessions that have a rolling summary, newest first."""
    limit = app_settings.PROFILE_DISTILL_SESSIONS if limit is None else limit
    if limit <= 0:
        return []
    rows = (Session.objects.filter(user_id=user_id).exclude(summary="")
            .order_by("-last_activity_at").only("id", "summary", "last_activity_at")[:limit])
    return [SessionLine(str(s.pk), s.last_activity_at.date().isoformat(), s.summary) for s in rows]


def distiller():
    return import_string(app_settings.PROFILE_DISTILLER)()


def distill_profile(user_id: str, *, now: dt.datetime | None = None, dry_run: bool = False) -> DistillResult:
    """Rewrite ``user_id``'s summary from their current memories (audited, cache dropped)."""
    validate_user_id(user_id)
    now = now or timezone.now()
    lines = _lines(user_id)
    if not lines:
        return DistillResult(user_id, "no_memories")
    backend = distiller()
    sessions = recent_sessions(user_id) if getattr(backend, "uses_sessions", False) else []
    max_chars = app_settings.PROFILE_SUMMARY_MAX_CHARS
    with llm_usage("distill", user_id=user_id, job=f"profile:{user_id}"):
        summary = (backend.distill(lines, max_chars=max_chars, sessions=sessions) if sessions
                   else backend.distill(lines, max_chars=max_chars))
    sources = [line.id for line in lines]
    session_ids = [s.id for s in sessions]
    if dry_run:
        return DistillResult(user_id, "would_rewrite", summary, sources, backend.name, session_ids)
    with transaction.atomic():
        row, _created = MemoryProfile.objects.select_for_update().get_or_create(user_id=user_id)
        if row.summary == summary and row.summary_sources == sources:
            MemoryProfile.objects.filter(pk=row.pk).update(distilled_at=now)
            return DistillResult(user_id, "unchanged", summary, sources, row.summary_method)
        before = {"summary": row.summary, "method": row.summary_method, "sources": row.summary_sources}
        row.summary, row.summary_sources, row.summary_method = summary, sources, backend.name
        row.updated_at = row.distilled_at = now
        row.save(update_fields=["summary", "summary_sources", "summary_method", "updated_at", "distilled_at"])
        record_event("distill", object_type="profile", object_id=row.pk, user_id=user_id, before=before,
                     after={"summary": summary, "method": backend.name, "sources": sources, "sessions": session_ids})
        transaction.on_commit(lambda: cache.invalidate_user(user_id))
    cache.invalidate_user(user_id)
    return DistillResult(user_id, "rewritten", summary, sources, backend.name, session_ids)


def due_profiles(*, now: dt.datetime | None = None, limit: int = 1000) -> list[str]:
    """Users whose summary is due: never distilled, older than PROFILE_MAX_AGE_DAYS, or with at least
    PROFILE_REFRESH_MIN_CHANGES memories written since it was."""
    now = now or timezone.now()
    stale_before = now - dt.timedelta(days=app_settings.PROFILE_MAX_AGE_DAYS)
    min_changes = app_settings.PROFILE_REFRESH_MIN_CHANGES
    users = (MemoryItem.objects.get_queryset().filter(status=MemoryItem.Status.ACTIVE)
             .exclude(source=MemoryItem.Source.MODEL_INFERRED).values("user_id")
             .annotate(newest=Max("updated_at")).order_by("user_id"))
    profiles = {p.user_id: p for p in MemoryProfile.objects.filter(user_id__in=users.values("user_id"))}
    due = []
    for row in users:
        profile = profiles.get(row["user_id"])
        if profile is None or profile.distilled_at is None or profile.distilled_at < stale_before:
            due.append(row["user_id"])
            continue
        changed = MemoryItem.objects.for_user(row["user_id"]).filter(
            Q(created_at__gt=profile.distilled_at) | Q(updated_at__gt=profile.distilled_at)).count()
        if changed >= min_changes:
            due.append(row["user_id"])
        if len(due) >= limit:
            break
    return due


def distill_due_profiles(*, now: dt.datetime | None = None, dry_run: bool = False) -> list[DistillResult]:
    """The job: distill every due profile (each in its own transaction)."""
    return [distill_profile(user_id, now=now, dry_run=dry_run) for user_id in due_profiles(now=now)]

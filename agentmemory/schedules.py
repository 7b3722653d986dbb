"""Celery beat schedule of agentmemory's periodic jobs, and the rows that put them in the admin.

Two ways to run them, pick one:

- ``manage.py agentmemory_setup_schedules`` writes django-celery-beat ``PeriodicTask`` rows (run it
  after each upgrade; operators then see and edit the jobs in the admin), with beat on
  ``django_celery_beat.schedulers:DatabaseScheduler``;
- or merge the dict into the settings: ``CELERY_BEAT_SCHEDULE = {**CELERY_BEAT_SCHEDULE, **BEAT_SCHEDULE}``.
"""
from __future__ import annotations

from dataclasses import dataclass

from celery.schedules import crontab

BEAT_SCHEDULE: dict[str, dict] = {
    # Each area adds its entries here: "agentmemory-<what>": {"task": "agentmemory.<verb>_<noun>", "schedule": ...}
    # Working memory: interim extraction of sessions idle for SESSION_IDLE_MINUTES (checked every 5 minutes).
    "agentmemory-extract-idle-sessions": {"task": "agentmemory.extract_idle_sessions", "schedule": 300.0},
    # Working memory: purge raw turns of sessions ended more than SESSION_RETENTION_DAYS ago, nightly.
    "agentmemory-purge-sessions": {"task": "agentmemory.purge_sessions", "schedule": crontab(hour=3, minute=40)},
    # Working memory: end sessions idle for SESSION_CLOSE_AFTER_HOURS (their turns get extracted), hourly.
    "agentmemory-close-idle-sessions": {"task": "agentmemory.close_idle_sessions", "schedule": crontab(minute=25)},
    # Long-term memory: delete memories past their type's retention (MEMORY_RETENTION_DAYS), nightly.
    "agentmemory-purge-memories": {"task": "agentmemory.purge_memories", "schedule": crontab(hour=3, minute=50)},
    # Long-term memory: mark memories not accessed for MEMORY_COLD_AFTER_DAYS as cold, nightly.
    "agentmemory-decay-memories": {"task": "agentmemory.decay_memories", "schedule": crontab(hour=3, minute=10)},
    # Long-term memory: embed memories stored while the embedder was down, every 10 minutes.
    "agentmemory-embed-pending-memories": {"task": "agentmemory.embed_pending_memories", "schedule": 600.0},
    # Profile: rewrite the summaries that are due (PROFILE_MAX_AGE_DAYS old, or enough changed), nightly.
    "agentmemory-distill-profiles": {"task": "agentmemory.distill_profiles", "schedule": crontab(hour=4, minute=20)},
    # Context ledger: delete records older than CONTEXT_LEDGER_RETENTION_DAYS, nightly.
    "agentmemory-purge-contexts": {"task": "agentmemory.purge_contexts", "schedule": crontab(hour=4, minute=40)},
    # Knowledge: import and re-embed jobs left queued while the broker or the embedder was down, every 5 minutes.
    "agentmemory-retry-import-jobs": {"task": "agentmemory.retry_import_jobs", "schedule": 300.0},
}


@dataclass(frozen=True)
class ScheduleChange:
    name: str
    task: str
    action: str  # "created" | "updated" | "unchanged"
    schedule: str


def setup_schedules(*, reset: bool = False, dry_run: bool = False) -> list[ScheduleChange]:
    """Create django-celery-beat PeriodicTask rows for BEAT_SCHEDULE; idempotent.

    A missing row is created; an existing row keeps what an operator changed in the admin (its
    schedule, enabled flag, arguments) and only gets its task name corrected, unless ``reset`` puts
    it back to the defaults here.
    """
    from django.apps import apps
    from django.db import transaction

    from .exceptions import ConfigurationError

    if not apps.is_installed("django_celery_beat"):
        raise ConfigurationError(
            "django-celery-beat is not in INSTALLED_APPS: add 'django_celery_beat' and migrate, or merge "
            "agentmemory.schedules.BEAT_SCHEDULE into CELERY_BEAT_SCHEDULE instead.")
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import ModelEntry

    changes = []
    with transaction.atomic():
        for name, entry in BEAT_SCHEDULE.items():
            task = entry["task"]
            existing = PeriodicTask.objects.filter(name=name).first()
            if existing is not None and not reset:
                action = "unchanged" if existing.task == task else "updated"
                if action == "updated" and not dry_run:
                    existing.task = task
                    existing.save(update_fields=["task"])
                changes.append(ScheduleChange(name, task, action, _one_line(existing.schedule)))
                continue
            if dry_run:
                changes.append(ScheduleChange(name, task, "updated" if existing else "created",
                                              _one_line(entry["schedule"])))
                continue
            model_schedule, field = ModelEntry.to_model_schedule(entry["schedule"])
            defaults = {"task": task, "enabled": True, "interval": None, "crontab": None, "solar": None,
                        "clocked": None, field: model_schedule,
                        "description": "agentmemory (agentmemory_setup_schedules)"}
            row, created = PeriodicTask.objects.update_or_create(name=name, defaults=defaults)
            changes.append(ScheduleChange(name, task, "created" if created else "updated", _one_line(row.schedule)))
    return changes


def _one_line(schedule) -> str:
    return " ".join(str(schedule).split())

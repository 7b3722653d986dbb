"""Celery beat schedule of agentmemory's periodic jobs; merge it into your CELERY_BEAT_SCHEDULE.

    from agentmemory.schedules import BEAT_SCHEDULE
    CELERY_BEAT_SCHEDULE = {**BEAT_SCHEDULE}

With django-celery-beat's DatabaseScheduler these entries appear (and can be edited) in the admin.
"""
from __future__ import annotations

from celery.schedules import crontab

BEAT_SCHEDULE: dict[str, dict] = {
    # Each area adds its entries here: "agentmemory-<what>": {"task": "agentmemory.<verb>_<noun>", "schedule": ...}
    # Working memory: interim extraction of sessions idle for SESSION_IDLE_MINUTES (checked every 5 minutes).
    "agentmemory-extract-idle-sessions": {"task": "agentmemory.extract_idle_sessions", "schedule": 300.0},
    # Working memory: purge raw turns of sessions ended more than SESSION_RETENTION_DAYS ago, nightly.
    "agentmemory-purge-sessions": {"task": "agentmemory.purge_sessions", "schedule": crontab(hour=3, minute=40)},
    # Long-term memory: mark memories not accessed for MEMORY_COLD_AFTER_DAYS as cold, nightly.
    "agentmemory-decay-memories": {"task": "agentmemory.decay_memories", "schedule": crontab(hour=3, minute=10)},
    # Long-term memory: embed memories stored while the embedder was down, every 10 minutes.
    "agentmemory-embed-pending-memories": {"task": "agentmemory.embed_pending_memories", "schedule": 600.0},
}

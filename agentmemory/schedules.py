"""Celery beat schedule of agentmemory's periodic jobs; merge it into your CELERY_BEAT_SCHEDULE.

    from agentmemory.schedules import BEAT_SCHEDULE
    CELERY_BEAT_SCHEDULE = {**BEAT_SCHEDULE}

With django-celery-beat's DatabaseScheduler these entries appear (and can be edited) in the admin.
"""
from __future__ import annotations

from celery.schedules import crontab  # noqa: F401  (used by the entries areas add)

BEAT_SCHEDULE: dict[str, dict] = {
    # Each area adds its entries here: "agentmemory-<what>": {"task": "agentmemory.<verb>_<noun>", "schedule": ...}
}

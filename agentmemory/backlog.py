"""The backlog of asynchronous work: how many jobs wait and how long the oldest has waited, per workload,
and the broker's queue depths; a warning past BACKLOG_WARN_SECONDS.

Read from the database (the work a task does is always recorded first: extraction runs, import jobs), so it
holds whatever the broker: an extraction run is waiting while pending, running, or failed with attempts
left; an import or re-embed job while queued or running. The broker's depths (messages not yet taken by a
worker) come from a passive declare of each queue agentmemory sends to (TASK_QUEUES and the default queue),
with a short timeout; none when tasks run eagerly. Reported by ``GET health/?backlog=1`` (authenticated),
the ``agentmemory.health_check`` task (which logs the warnings) and the admin's extraction-run and import-job
lists (a warning banner).
"""
from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db.models import Count, Min, Q
from django.utils import timezone

from .conf import app_settings

logger = logging.getLogger("agentmemory.backlog")


def _age(oldest: dt.datetime | None, now: dt.datetime) -> float | None:
    return round((now - oldest).total_seconds(), 1) if oldest else None


def backlog(*, now: dt.datetime | None = None, queues: bool = True) -> dict[str, Any]:
    """``{"extraction": {"waiting", "oldest_seconds"}, "imports": {...}, "queues": {name: depth}, "warnings"}``."""
    from .models import ExtractionRun, ImportJob

    now = now or timezone.now()
    max_attempts = app_settings.EXTRACTION_MAX_RETRIES + 1
    runs = ExtractionRun.objects.filter(
        Q(status__in=[ExtractionRun.Status.PENDING, ExtractionRun.Status.RUNNING])
        | Q(status=ExtractionRun.Status.FAILED, attempts__lt=max_attempts)).aggregate(n=Count("id"),
                                                                                     oldest=Min("created_at"))
    jobs = ImportJob.objects.unfinished().aggregate(n=Count("id"), oldest=Min("created_at"))
    out: dict[str, Any] = {
        "extraction": {"waiting": runs["n"], "oldest_seconds": _age(runs["oldest"], now)},
        "imports": {"waiting": jobs["n"], "oldest_seconds": _age(jobs["oldest"], now)},
    }
    if queues:
        out["queues"] = queue_depths()
    limit = app_settings.BACKLOG_WARN_SECONDS
    out["warnings"] = [
        f"{name}: {part['waiting']} waiting, the oldest for {int(part['oldest_seconds'])} s "
        f"(over BACKLOG_WARN_SECONDS, {int(limit)} s): are the workers of this queue running?"
        for name, part in (("extraction", out["extraction"]), ("imports", out["imports"]))
        if part["oldest_seconds"] is not None and part["oldest_seconds"] > limit]
    return out


def queue_depths(timeout: float = 2.0) -> dict[str, int | None]:
    """Messages waiting in each queue agentmemory sends to (None: could not be read); {} when eager."""
    from celery import current_app

    conf = current_app.conf
    if conf.task_always_eager or not conf.broker_url:
        return {}
    names = sorted({conf.task_default_queue or "celery", *(app_settings.TASK_QUEUES or {}).values()})
    depths: dict[str, int | None] = {}
    try:
        with current_app.connection_for_read(connect_timeout=timeout) as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout)
            channel = connection.default_channel
            for name in names:
                try:
                    depths[name] = int(channel.queue_declare(queue=name, passive=True).message_count)
                except Exception:  # not declared yet: nothing was ever sent there
                    depths[name] = 0
                    channel = connection.channel()  # a failed passive declare may close the channel (AMQP)
    except Exception as exc:  # the broker does not answer: say so, never fail the probe
        logger.warning("queue depths not read (%s)", exc)
        return {name: None for name in names}
    return depths


def log_warnings(report: dict[str, Any]) -> None:
    for warning in report.get("warnings", []):
        logger.warning("backlog: %s", warning)

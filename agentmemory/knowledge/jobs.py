"""Import and re-embed jobs: the beat sweep that runs again the jobs left waiting, and the job API's names.

A job row carries an import or a re-embed through Celery: ``create_import_job`` records an import
(the extracted text is kept for retries), ``run_import_job`` runs it through ``ingest.ingest_document``
(both with ``run_job`` in job_records.py, the re-embed's in reembed.py), and ``resume_waiting_jobs``
runs again the jobs left queued while the broker or the embedding backend was down.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.utils import timezone

from ..exceptions import AgentMemoryError, EmbeddingError
from ..models import ImportJob
from .ingest import run_import_job
from .job_records import create_import_job, job_progress, run_job
from .reembed import run_reembed_job

__all__ = ["SweepResult", "create_import_job", "job_progress", "resume_waiting_jobs", "run_import_job", "run_job"]


@dataclass(frozen=True)
class SweepResult:
    succeeded: list[int] = field(default_factory=list)
    still_waiting: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"succeeded": self.succeeded, "still_waiting": self.still_waiting, "failed": self.failed}


def resume_waiting_jobs(*, now: dt.datetime | None = None, older_than_seconds: float = 120.0,
                        limit: int = 50) -> SweepResult:
    """Run queued jobs older than ``older_than_seconds`` in this process, oldest first.

    Each job resumes where it stopped (the services are idempotent); one whose backend is still down
    stays queued for the next sweep, one that fails for another reason is marked failed.
    """
    before = (now or timezone.now()) - dt.timedelta(seconds=older_than_seconds)
    jobs = list(ImportJob.objects.waiting(before).order_by("created_at", "pk").values_list("pk", "kind")[:limit])
    result = SweepResult()
    for pk, kind in jobs:
        runner = run_reembed_job if kind == ImportJob.Kind.REEMBED else run_import_job
        try:
            runner(pk)
        except EmbeddingError:
            result.still_waiting.append(pk)
        except AgentMemoryError:
            result.failed.append(pk)
        else:
            result.succeeded.append(pk)
    return result

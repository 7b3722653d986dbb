"""Import and re-embed jobs that wait: run them again once their broker or backend is back (beat sweep)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.utils import timezone

from ..exceptions import AgentMemoryError, EmbeddingError
from ..models import ImportJob
from .ingest import run_import_job
from .reembed import run_reembed_job


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

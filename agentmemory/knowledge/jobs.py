"""Import and re-embed jobs: recorded, run (or resumed) by the task and the command, swept when waiting.

A job row carries an import through Celery: ``create_import_job`` records it (the extracted text is
kept for retries), ``run_import_job`` runs it through ``ingest.ingest_document``, and
``resume_waiting_jobs`` (the beat sweep) runs again the jobs left queued while the broker or the
embedding backend was down.
"""
from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils import timezone

from ..audit import audit_context, current_actor
from ..exceptions import AgentMemoryError, EmbeddingError, NotFound
from ..models import ImportJob, KnowledgeBase
from ..progress import Progress
from .parse import ParsedDocument, check_format


def create_import_job(*, knowledge_base: KnowledgeBase, parsed: ParsedDocument, title: str, fmt: str,
                      external_id: str = "", metadata: dict | None = None,
                      propose_checks: bool | None = None) -> ImportJob:
    """Record an import to run now or on a worker; the extracted text is kept for retries.

    ``propose_checks``: this import proposes evaluation cases from its content (None: as the base says).
    """
    from .ingest import validate_text

    validate_text(parsed.text)
    return ImportJob.objects.create(
        knowledge_base=knowledge_base, kind=ImportJob.Kind.INGEST, external_id=(external_id or "")[:255],
        title=(title or "")[:500], format=check_format(fmt), source_text=parsed.text,
        structure=parsed.structure(), metadata=metadata if metadata is not None else {},
        result={"metadata_given": metadata is not None, "propose_checks": propose_checks},
        requested_by=current_actor()[:200],
    )


def job_progress(job_id: int, *, every: float = 1.0) -> Progress:
    """A progress callback that records (done, total) on the job row, at most once per ``every`` seconds.

    Short imports write nothing until the job's final update: each write is a commit.
    """
    last = [time.monotonic()]

    def report(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= every:
            last[0] = now
            ImportJob.objects.filter(pk=job_id).update(progress=done, total=total)
    return report


def run_job(job_id: int, kind: str, work: Callable[[ImportJob, Progress], tuple[dict, dict]], *,
            progress: Progress | None = None) -> dict:
    """Run (or resume) a job of ``kind``: a succeeded job returns its result unchanged; a failure is
    recorded on the job and re-raised. ``work(job, report)`` returns (result, extra job fields)."""
    job = ImportJob.objects.select_related("knowledge_base").filter(pk=job_id, kind=kind).first()
    if job is None:
        name = "Re-embed" if kind == ImportJob.Kind.REEMBED else "Import"
        raise NotFound(f"{name} job {job_id} does not exist.")
    if job.status == ImportJob.Status.SUCCEEDED:
        return job.result
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.RUNNING, started_at=timezone.now(), error="")
    record = job_progress(job.pk)

    def report(done: int, total: int) -> None:
        record(done, total)
        if progress:
            progress(done, total)

    try:
        result, fields = work(job, report)
    except EmbeddingError as exc:
        # The backend is down, not the job wrong: it waits, queued, for a retry (the task's own, then
        # the beat sweep's); the work done so far is kept and resumed.
        ImportJob.objects.filter(pk=job.pk).update(
            status=ImportJob.Status.QUEUED, error=f"waiting for the embedding backend: {exc}"[:2000])
        raise
    except Exception as exc:
        ImportJob.objects.filter(pk=job.pk).update(
            status=ImportJob.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now(),
        )
        raise
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.SUCCEEDED, result=result,
                                               finished_at=timezone.now(), **fields)
    return result


def run_import_job(job_id: int, *, progress: Progress | None = None) -> dict:
    """Run (or resume) an ingest job; a job already succeeded returns its result unchanged."""
    from .ingest import ingest_document  # ingest re-exports this module's names

    def work(job: ImportJob, report: Progress) -> tuple[dict, dict]:
        parsed = ParsedDocument.from_structure(job.source_text, job.structure, title=job.title)
        # Writes made on a worker are still attributed to whoever asked for the import.
        with audit_context(job.requested_by or current_actor(), f"import job {job.pk}"):
            result = ingest_document(
                knowledge_base=job.knowledge_base, parsed=parsed, title=job.title, fmt=job.format,
                external_id=job.external_id,
                metadata=job.metadata if (job.result or {}).get("metadata_given", True) else None,
                progress=report, propose_checks=(job.result or {}).get("propose_checks"),
            )
        return result.as_dict(), {
            "external_id": result.external_id, "progress": result.embedded, "total": result.embedded,
            "source_text": "", "structure": {},  # the text now lives in the document version
        }

    return run_job(job_id, ImportJob.Kind.INGEST, work, progress=progress)


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
    from .reembed import run_reembed_job  # reembed runs its jobs through run_job above

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

"""Import and re-embed job rows: recorded, their progress written, run (or resumed) with the outcome kept.

The bottom of the job path: ``ingest.run_import_job`` and ``reembed.run_reembed_job`` run their work
through ``run_job``; ``jobs.resume_waiting_jobs`` (the beat sweep) runs both kinds again.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from django.utils import timezone

from ..audit import current_actor
from ..exceptions import EmbeddingError, NotFound
from ..models import ImportJob, KnowledgeBase
from ..progress import Progress
from .parse import ParsedDocument, check_format
from .prepare import validate_text


def create_import_job(*, knowledge_base: KnowledgeBase, parsed: ParsedDocument, title: str, fmt: str,
                      external_id: str = "", metadata: dict | None = None,
                      propose_checks: bool | None = None) -> ImportJob:
    """Record an import to run now or on a worker; the extracted text is kept for retries.

    ``propose_checks``: this import proposes evaluation cases from its content (None: as the base says).
    """
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

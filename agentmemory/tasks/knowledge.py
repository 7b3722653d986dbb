"""Knowledge tasks: import a document and re-embed a knowledge base (ids in, one service call).

``submit_import`` / ``submit_reembed`` are the one place that decides whether a recorded job runs in
the request (Celery eager, no broker, a short document) or on a worker (202 and a job to poll).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..conf import app_settings
from ..exceptions import EmbeddingError
from ..models import ImportJob
from .dispatch import enqueue_on_commit, run_in_background_on_commit
from .retry import KNOWLEDGE_JOB, agentmemory_task


@agentmemory_task("agentmemory.ingest_document", retry=KNOWLEDGE_JOB)
def ingest_document(job_id: int) -> dict:
    """Run (or resume) ImportJob ``job_id``; a job already done returns its result (idempotent)."""
    from ..knowledge.jobs import run_import_job

    return run_import_job(job_id)


def enqueue_import(job_id: int, *, size: int) -> None:
    """Have ImportJob ``job_id`` (a document of ``size`` characters) run once the transaction commits.

    A worker runs it when a broker is configured. Without one (Celery eager, tasks in-process) a document
    over IMPORT_INLINE_MAX_CHARS runs in a background thread, so no request waits for its embeddings;
    a shorter one runs at the commit. The job keeps who asked for it (``requested_by``) either way.
    """
    if runs_eagerly() and size > app_settings.IMPORT_INLINE_MAX_CHARS:
        run_in_background_on_commit(f"import-{job_id}", ingest_document, job_id)
    else:
        enqueue_on_commit(ingest_document, job_id)


@agentmemory_task("agentmemory.reembed_knowledge_base", retry=KNOWLEDGE_JOB)
def reembed_knowledge_base(job_id: int) -> dict:
    """Run (or resume) a re-embed ImportJob, recording progress on it."""
    from ..knowledge.reembed import run_reembed_job

    return run_reembed_job(job_id)


@agentmemory_task("agentmemory.retry_import_jobs")
def retry_import_jobs() -> dict:
    """Beat job: run again the import and re-embed jobs left queued (broker or embedder was down)."""
    from ..knowledge.jobs import resume_waiting_jobs

    return resume_waiting_jobs().as_dict()


def runs_eagerly() -> bool:
    """True when Celery has no broker (tasks run in-process): a short job then runs in the request."""
    return bool(ingest_document.app.conf.task_always_eager)


@dataclass(frozen=True)
class Submitted:
    """What became of a submitted job: run here (``result``), queued, or waiting for the embedder."""

    job: ImportJob
    result: dict | None = None  # None: a worker (or a background thread) runs it; poll the job
    waiting: bool = False  # the embedding backend is down: queued and retried (task retries, beat sweep)


def _submit(job: ImportJob, run: Callable[[int], dict], enqueue: Callable[[], None], *, inline: bool) -> Submitted:
    if not inline:
        enqueue()
        return Submitted(job)
    try:
        return Submitted(job, result=run(job.pk))
    except EmbeddingError:
        job.refresh_from_db()
        return Submitted(job, waiting=True)


def submit_import(job: ImportJob) -> Submitted:
    """Run an import job now when tasks run in-process and the document is short; otherwise enqueue it."""
    from ..knowledge.jobs import run_import_job

    size = len(job.source_text)
    inline = runs_eagerly() and size <= app_settings.IMPORT_INLINE_MAX_CHARS
    return _submit(job, run_import_job, lambda: enqueue_import(job.pk, size=size), inline=inline)


def submit_reembed(job: ImportJob) -> Submitted:
    """Run a re-embed job now when tasks run in-process; otherwise enqueue it."""
    from ..knowledge.reembed import run_reembed_job

    return _submit(job, run_reembed_job, lambda: enqueue_on_commit(reembed_knowledge_base, job.pk),
                   inline=runs_eagerly())

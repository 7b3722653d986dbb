"""Knowledge tasks: import a document and re-embed a knowledge base (ids in, one service call)."""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ..audit import task_actor
from ..exceptions import EmbeddingError

# Transient failures are retried with backoff; the services resume where they stopped.
_RETRY = {
    "acks_late": True,
    "autoretry_for": (EmbeddingError, OperationalError, InterfaceError),
    "max_retries": 3,
    "retry_backoff": 5,
    "retry_backoff_max": 300,
    "retry_jitter": True,
}


@shared_task(name="agentmemory.ingest_document", **_RETRY)
def ingest_document(job_id: int) -> dict:
    """Run (or resume) ImportJob ``job_id``; a job already done returns its result (idempotent)."""
    from ..knowledge.ingest import run_import_job

    with task_actor("agentmemory.ingest_document"):
        return run_import_job(job_id)


def enqueue_import(job_id: int, *, size: int) -> None:
    """Have ImportJob ``job_id`` (a document of ``size`` characters) run once the transaction commits.

    A worker runs it when a broker is configured. Without one (Celery eager, tasks in-process) a document
    over IMPORT_INLINE_MAX_CHARS runs in a background thread, so no request waits for its embeddings;
    a shorter one runs at the commit. The job keeps who asked for it (``requested_by``) either way.
    """
    from ..conf import app_settings
    from .dispatch import enqueue_on_commit, run_in_background_on_commit

    if ingest_document.app.conf.task_always_eager and size > int(app_settings.IMPORT_INLINE_MAX_CHARS):
        run_in_background_on_commit(f"import-{job_id}", ingest_document, job_id)
    else:
        enqueue_on_commit(ingest_document, job_id)


@shared_task(name="agentmemory.reembed_knowledge_base", **_RETRY)
def reembed_knowledge_base(job_id: int) -> dict:
    """Run (or resume) a re-embed ImportJob, recording progress on it."""
    from ..knowledge.reembed import run_reembed_job

    with task_actor("agentmemory.reembed_knowledge_base"):
        return run_reembed_job(job_id)


@shared_task(name="agentmemory.retry_import_jobs", acks_late=True)
def retry_import_jobs() -> dict:
    """Beat job: run again the import and re-embed jobs left queued (broker or embedder was down)."""
    from ..knowledge.jobs import resume_waiting_jobs

    with task_actor("agentmemory.retry_import_jobs"):
        return resume_waiting_jobs().as_dict()

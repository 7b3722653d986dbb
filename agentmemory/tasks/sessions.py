"""Working-memory tasks: extraction, rolling summary, idle-session sweep, retention purge (ids in)."""
from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ..audit import task_actor
from ..conf import app_settings
from ..exceptions import BackendError
from .dispatch import enqueue_on_commit, send

_TRANSIENT = (BackendError, OperationalError, InterfaceError)


def _retry(task, exc: Exception):
    """Bounded retry with exponential backoff (EXTRACTION_MAX_RETRIES, read when the task runs).

    Run eagerly (no broker), a retry would block the web request: the run is left ``failed`` and the
    beat sweep (extract_idle_sessions) retries it later instead.
    """
    if task.request.is_eager:
        return None
    countdown = min(600, 5 * 2 ** task.request.retries)
    return task.retry(exc=exc, countdown=countdown, max_retries=int(app_settings.EXTRACTION_MAX_RETRIES))


@shared_task(name="agentmemory.extract_session", bind=True, acks_late=True, reject_on_worker_lost=True)
def extract_session(self, run_id: int) -> dict:
    """Run (or resume) ExtractionRun ``run_id``; a finished run is a no-op, so redelivery is safe."""
    from ..models import ExtractionRun
    from ..working.extract import run_extraction, run_summary

    with task_actor("agentmemory.extract_session"):
        try:
            run = run_extraction(run_id)
        except _TRANSIENT as exc:
            retry = _retry(self, exc)
            if retry is not None:
                raise retry from exc
            run = ExtractionRun.objects.get(pk=run_id)
    return {k: v for k, v in run_summary(run).items() if not k.endswith("_at")}


@shared_task(name="agentmemory.summarize_session", bind=True, acks_late=True, reject_on_worker_lost=True)
def summarize_session(self, session_id: str) -> dict:
    """Fold the turns older than the window into the session's rolling summary (no-op when not due)."""
    from ..working.summary import update_summary

    with task_actor("agentmemory.summarize_session"):
        try:
            result = update_summary(session_id)
        except _TRANSIENT as exc:
            retry = _retry(self, exc)
            if retry is not None:
                raise retry from exc
            return {"session_id": str(session_id), "folded": 0, "error": str(exc)}
    return {"session_id": result.session_id, "folded": result.folded, "covers_up_to": result.covers_up_to}


@shared_task(name="agentmemory.extract_idle_sessions", acks_late=True)
def extract_idle_sessions() -> dict:
    """Beat job: interim extraction of idle sessions, and another try for failed runs whose backoff passed."""
    from ..working.extract import due_extractions

    with task_actor("agentmemory.extract_idle_sessions"):
        run_ids = due_extractions()
    for run_id in run_ids:
        send(extract_session, run_id)
    return {"runs": run_ids}


@shared_task(name="agentmemory.purge_sessions", acks_late=True)
def purge_sessions() -> dict:
    """Beat job: purge the raw turns of sessions ended longer ago than SESSION_RETENTION_DAYS."""
    from ..working.archive import purge_ended_sessions

    with task_actor("agentmemory.purge_sessions"):
        result = purge_ended_sessions()
    return {"sessions": result.sessions, "turns": result.turns, "kept_unextracted": result.kept_unextracted}


def enqueue_extraction(run_id: int) -> None:
    """Queue the extraction of ``run_id`` once the current transaction commits."""
    enqueue_on_commit(extract_session, run_id)


def enqueue_summary(session_id) -> None:
    """Queue a rolling-summary update once the current transaction commits."""
    enqueue_on_commit(summarize_session, str(session_id))


@shared_task(name="agentmemory.close_idle_sessions", acks_late=True)
def close_idle_sessions() -> dict:
    """Beat job: end sessions idle for SESSION_CLOSE_AFTER_HOURS; their extraction is queued."""
    from ..working.archive import close_idle_sessions as close

    with task_actor("agentmemory.close_idle_sessions"):
        result = close()
    return {"sessions": result.sessions, "runs": result.runs}

"""Working-memory tasks: extraction, rolling summary, idle-session sweep, retention purge (ids in)."""
from __future__ import annotations

from .dispatch import enqueue_on_commit, send
from .retry import EXTRACTION, agentmemory_task


def _extraction_left_failed(exc: Exception, run_id: int) -> dict:
    """Eagerly, a failed extraction is not retried in the request: the run stays failed for the sweep."""
    from ..models import ExtractionRun
    from ..working.extract import run_summary

    return _summary(run_summary(ExtractionRun.objects.get(pk=run_id)))


def _summary(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if not k.endswith("_at")}


@agentmemory_task("agentmemory.extract_session", retry=EXTRACTION, fallback=_extraction_left_failed)
def extract_session(run_id: int) -> dict:
    """Run (or resume) ExtractionRun ``run_id``; a finished run is a no-op, so redelivery is safe."""
    from ..working.extract import run_extraction, run_summary

    return _summary(run_summary(run_extraction(run_id)))


def _summary_not_folded(exc: Exception, session_id: str) -> dict:
    return {"session_id": str(session_id), "folded": 0, "error": str(exc)}


@agentmemory_task("agentmemory.summarize_session", retry=EXTRACTION, fallback=_summary_not_folded)
def summarize_session(session_id: str) -> dict:
    """Fold the turns older than the window into the session's rolling summary (no-op when not due)."""
    from ..working.summary import update_summary

    result = update_summary(session_id)
    return {"session_id": result.session_id, "folded": result.folded, "covers_up_to": result.covers_up_to}


@agentmemory_task("agentmemory.extract_idle_sessions")
def extract_idle_sessions() -> dict:
    """Beat job: interim extraction of idle sessions, and another try for failed runs whose backoff passed."""
    from ..working.extract import due_extractions

    run_ids = due_extractions()
    for run_id in run_ids:
        send(extract_session, run_id)
    return {"runs": run_ids}


@agentmemory_task("agentmemory.purge_sessions")
def purge_sessions() -> dict:
    """Beat job: purge the raw turns of sessions ended longer ago than SESSION_RETENTION_DAYS."""
    from ..working.archive import purge_ended_sessions

    result = purge_ended_sessions()
    return {"sessions": result.sessions, "turns": result.turns, "kept_unextracted": result.kept_unextracted}


def enqueue_extraction(run_id: int) -> None:
    """Queue the extraction of ``run_id`` once the current transaction commits."""
    enqueue_on_commit(extract_session, run_id)


def enqueue_summary(session_id) -> None:
    """Queue a rolling-summary update once the current transaction commits."""
    enqueue_on_commit(summarize_session, str(session_id))


@agentmemory_task("agentmemory.close_idle_sessions")
def close_idle_sessions() -> dict:
    """Beat job: end sessions idle for SESSION_CLOSE_AFTER_HOURS; their extraction is queued."""
    from ..working.archive import close_idle_sessions as close

    result = close()
    for run_id in result.runs:
        enqueue_extraction(run_id)
    return {"sessions": result.sessions, "runs": result.runs}

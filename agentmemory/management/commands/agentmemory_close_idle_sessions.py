"""End the sessions idle for SESSION_CLOSE_AFTER_HOURS; their turns are extracted (queued)."""
from __future__ import annotations

from ...audit import audit_context
from ...tasks.working import enqueue_extraction
from ...working.archive import close_idle_sessions
from ._lifecycle import LifecycleCommand


class Command(LifecycleCommand):
    help = ("End active sessions with no turn for SESSION_CLOSE_AFTER_HOURS and queue their extraction; the purge "
            "job archives them after SESSION_RETENTION_DAYS. The beat job does the same hourly.")

    def handle(self, *args, dry_run: bool, now: str | None, **options):
        with audit_context("command:agentmemory_close_idle_sessions"):
            result = close_idle_sessions(now=self.moment(now), dry_run=dry_run)
        for run_id in result.runs:
            enqueue_extraction(run_id)
        verb = "Would end" if dry_run else "Ended"
        self.stdout.write(f"{verb} {len(result.sessions)} idle session(s); queued {len(result.runs)} extraction(s).")

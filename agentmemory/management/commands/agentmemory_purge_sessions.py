"""Purge the raw turns of sessions ended longer ago than the retention period (the beat job's service)."""
from __future__ import annotations

from ...audit import audit_context
from ...conf import app_settings
from ...working.archive import purge_ended_sessions
from ._lifecycle import LifecycleCommand


class Command(LifecycleCommand):
    help = ("Archive ended sessions older than --days (default SESSION_RETENTION_DAYS): delete their raw turns "
            "and summary. Sessions whose turns are not all extracted yet are kept.")

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--days", type=float, default=None, help="Retention in days (default: the setting).")

    def handle(self, *args, days: float | None, dry_run: bool, now: str | None, **options):
        with audit_context("command:agentmemory_purge_sessions"):
            result = purge_ended_sessions(days=days, now=self.moment(now), dry_run=dry_run)
        days = app_settings.SESSION_RETENTION_DAYS if days is None else days
        verb = "Would archive" if dry_run else "Archived"
        self.stdout.write(f"{verb} {result.sessions} session(s) ended more than {days:g} days ago "
                          f"({result.turns} turn(s)); kept {result.kept_unextracted} not yet extracted.")

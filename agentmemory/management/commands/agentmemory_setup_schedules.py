"""Create or update the PeriodicTask rows of agentmemory's periodic jobs (django-celery-beat); idempotent."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ...exceptions import ConfigurationError
from ...schedules import setup_schedules


class Command(BaseCommand):
    help = ("Create agentmemory's periodic jobs as django-celery-beat PeriodicTask rows, shown and editable in "
            "the admin. Existing rows keep an operator's edits unless --reset. Safe to run on every deploy.")

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true",
                            help="Put existing rows back to agentmemory's default schedules (and enable them).")
        parser.add_argument("--dry-run", action="store_true", help="Say what would change; write nothing.")

    def handle(self, *args, reset: bool, dry_run: bool, **options):
        try:
            changes = setup_schedules(reset=reset, dry_run=dry_run)
        except ConfigurationError as exc:
            raise CommandError(str(exc)) from exc
        width = max(len(c.name) for c in changes)
        for change in changes:
            self.stdout.write(f"{change.action:<9}  {change.name:<{width}}  {change.task}  ({change.schedule})")
        counts = {a: sum(c.action == a for c in changes) for a in ("created", "updated", "unchanged")}
        prefix = "Dry run: would have " if dry_run else ""
        self.stdout.write(f"{prefix}{counts['created']} created, {counts['updated']} updated, "
                          f"{counts['unchanged']} unchanged.")

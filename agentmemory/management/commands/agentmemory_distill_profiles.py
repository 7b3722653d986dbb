"""Rewrite profile summaries from the users' memories: the due ones (the beat job's choice) or named users."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.dateparse import parse_datetime

from ...audit import audit_context
from ...memory.distill import distill_due_profiles, distill_profile


class Command(BaseCommand):
    help = ("Distill profile summaries: the users that are due (summary older than PROFILE_MAX_AGE_DAYS, or "
            "PROFILE_REFRESH_MIN_CHANGES memories changed since), or those given with --user.")

    def add_arguments(self, parser):
        parser.add_argument("--user", action="append", dest="users", default=[], help="Distill this user (repeatable).")
        parser.add_argument("--dry-run", action="store_true", help="Print what would be written; write nothing.")
        parser.add_argument("--now", default=None, help="Pretend it is this ISO time (for due-ness and the stamps).")

    def handle(self, *args, users: list[str], dry_run: bool, now: str | None, **options):
        moment = None
        if now:
            moment = parse_datetime(now)
            if moment is None:
                raise CommandError(f"--now must be an ISO date-time, got {now!r}.")
        with audit_context("command:agentmemory_distill_profiles"):
            results = ([distill_profile(u, now=moment, dry_run=dry_run) for u in users] if users
                       else distill_due_profiles(now=moment, dry_run=dry_run))
        for result in results:
            self.stdout.write(f"{result.action:<13} {result.user_id}  ({result.method or '-'}, "
                              f"{len(result.sources)} memories) {result.summary[:100]}")
        self.stdout.write(f"{len(results)} profile(s){' (dry run)' if dry_run else ''}.")

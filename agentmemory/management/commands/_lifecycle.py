"""Shared options of the lifecycle commands: --dry-run and an injectable --now."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime


class LifecycleCommand(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Say what would change; change nothing.")
        parser.add_argument("--now", default=None, help="Run as if it were this ISO date-time (e.g. to test).")

    def moment(self, value: str | None):
        if not value:
            return timezone.now()
        moment = parse_datetime(value)
        if moment is None:
            raise CommandError(f"--now must be an ISO date-time, got {value!r}.")
        return moment if timezone.is_aware(moment) else timezone.make_aware(moment)

"""Move the memories of the site's logged-in users from one USER_ID_RESOLVER to another.

Sites that used the earlier default (the username, often the e-mail address, which may change and be
registered again by someone else) move to the primary key, the default now:

    manage.py agentmemory_migrate_user_ids --dry-run
    manage.py agentmemory_migrate_user_ids
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

from ...audit import audit_context
from ...conf import app_settings
from ...exceptions import InvalidInput
from ...memory.move import move_user


class Command(BaseCommand):
    help = ("Move each Django user's memories from the id an old USER_ID_RESOLVER gave (default: the "
            "username) to the id the configured one gives (default: the primary key).")

    def add_arguments(self, parser):
        parser.add_argument("--from-resolver", default="agentmemory.api.access.username_as_user_id",
                            help="Dotted path of the resolver the memories were keyed by.")
        parser.add_argument("--to-resolver", default=None,
                            help="Dotted path of the resolver to key them by (default: USER_ID_RESOLVER).")
        parser.add_argument("--dry-run", action="store_true", help="Report what would move; change nothing.")

    def handle(self, *args, from_resolver: str, to_resolver: str | None, dry_run: bool, **options):
        try:
            old_of, new_of = import_string(from_resolver), import_string(to_resolver or app_settings.USER_ID_RESOLVER)
        except ImportError as exc:
            raise CommandError(str(exc)) from exc
        tally: dict[str, int] = {}
        with audit_context("command:agentmemory_migrate_user_ids", "user id resolver changed"):
            for user in get_user_model()._default_manager.order_by("pk").iterator():
                old, new = old_of(user), new_of(user)
                if not old or not new:
                    continue
                try:
                    result = move_user(str(old), str(new), dry_run=dry_run)
                except InvalidInput as exc:
                    self.stderr.write(f"user pk={user.pk}: skipped ({exc})")
                    continue
                tally[result.action] = tally.get(result.action, 0) + 1
                if result.action in ("moved", "would_move"):
                    rows = ", ".join(f"{k} {v}" for k, v in result.counts.items())
                    self.stdout.write(f"user pk={user.pk}: {result.action} ({rows})")
                elif result.action == "target_has_data":
                    self.stderr.write(f"user pk={user.pk}: not moved: the new id already holds memories")
        summary = ", ".join(f"{k}: {v}" for k, v in sorted(tally.items())) or "no users"
        self.stdout.write(("Dry run. " if dry_run else "") + summary)

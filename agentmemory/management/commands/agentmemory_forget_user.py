"""Forget a user: delete everything agentmemory holds about them and print the deletion receipt."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from ...audit import audit_context
from ...memory.forget import forget_user


class Command(BaseCommand):
    help = "Delete every memory, session, turn, profile, audit event and cache entry of a user."

    def add_arguments(self, parser):
        parser.add_argument("user_id")
        parser.add_argument("--reason", default="", help="Why (kept in the receipt).")

    def handle(self, *args, user_id: str, reason: str, **options):
        with audit_context("command:agentmemory_forget_user", reason):
            receipt = forget_user(user_id, reason=reason)
        self.stdout.write(f"Deletion receipt #{receipt.pk} at {receipt.created_at:%Y-%m-%d %H:%M:%S} "
                          f"(subject sha256 {receipt.subject_digest[:16]}…)")
        for kind, count in receipt.counts.items():
            self.stdout.write(f"  {kind}: {count}")

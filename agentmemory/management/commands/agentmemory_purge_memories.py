"""Delete the memories past their type's retention (MEMORY_RETENTION_DAYS), each with a deletion receipt."""
from __future__ import annotations

from ...audit import audit_context
from ...memory.retention import purge_expired_memories
from ._lifecycle import LifecycleCommand


class Command(LifecycleCommand):
    help = ("Delete memories not accessed for their type's retention period (MEMORY_RETENTION_DAYS); pinned and "
            "user-confirmed ones are kept (MEMORY_RETENTION_KEEP_CONFIRMED). The beat job does the same nightly.")

    def handle(self, *args, dry_run: bool, now: str | None, **options):
        with audit_context("command:agentmemory_purge_memories"):
            result = purge_expired_memories(now=self.moment(now), dry_run=dry_run)
        if dry_run:
            self.stdout.write(f"Would delete {result.due} memory item(s) past retention.")
        else:
            self.stdout.write(f"Deleted {result.deleted} memory item(s) past retention; receipts "
                              f"{', '.join(f'#{r}' for r in result.receipts) or '-'}.")

"""Mark memories not accessed for MEMORY_COLD_AFTER_DAYS as cold (the nightly beat job's service)."""
from __future__ import annotations

import datetime as dt

from ...audit import audit_context
from ...conf import app_settings
from ...memory.decay import mark_cold_memories
from ...models import MemoryItem
from ._lifecycle import LifecycleCommand


class Command(LifecycleCommand):
    help = "Mark active memories not accessed for MEMORY_COLD_AFTER_DAYS as cold (they leave default recall)."

    def handle(self, *args, dry_run: bool, now: str | None, **options):
        moment = self.moment(now)
        if dry_run:
            cutoff = moment - dt.timedelta(days=app_settings.MEMORY_COLD_AFTER_DAYS)
            self.stdout.write(f"Would mark {MemoryItem.objects.due_for_decay(moment, cutoff).count()} item(s) cold.")
            return
        with audit_context("command:agentmemory_decay_memories"):
            count = mark_cold_memories(now=moment)
        self.stdout.write(f"Marked {count} item(s) cold.")

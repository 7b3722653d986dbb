"""The base of the benchmark commands: each runs on a database of its own, migrated first if it is new.

The README tells a user to give each benchmark its own embedded database
(``AGENTMEMORY_EMBEDDED_DB_NAME=bench_ingest``). Such a database starts empty; without this, a benchmark
would spend minutes on its first measurements and then fail on a missing table.
"""
from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor


def migrate_if_needed(write) -> int:
    """Apply the unapplied migrations of the default database; return how many there were."""
    connection = connections[DEFAULT_DB_ALIAS]
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        write(f"database {connection.settings_dict['NAME']}: applying {len(plan)} migration(s) first")
        call_command("migrate", interactive=False, verbosity=0)
    return len(plan)


class BenchCommand(BaseCommand):
    def execute(self, *args, **options):
        from django.conf import settings

        # With DEBUG on, Django keeps the text of the last 9,000 statements of a connection: a bulk load's
        # inserts carry megabytes of vectors each (the 1M-row build was killed for memory at 600k chunks).
        settings.DEBUG = False
        migrate_if_needed(self.stderr.write)
        return super().execute(*args, **options)

"""Run the operator's memory test cases (and save new ones from a file): which phrasings the memory keeps."""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...audit import audit_context
from ...context.memory_tests import run_memory_test
from ...models import MemoryTestCase


class Command(BaseCommand):
    help = ("Run memory test cases: replay each case's sessions for a throwaway user, ask its question, and "
            "say whether the answer reached the context, or why not (not stored, not recalled, stale shown).")

    def add_arguments(self, parser):
        parser.add_argument("names", nargs="*", help="Cases to run (default: all).")
        parser.add_argument("--file", help='JSON Lines of cases to save first: {"name", "sessions", "question", '
                                           '"expected", "stale"?} (an existing name is replaced).')

    def handle(self, *args, names: list[str], file: str | None, **options):
        if file:
            path = Path(file)
            if not path.exists():
                raise CommandError(f"No such file: {path}")
            for number, line in enumerate(path.open(encoding="utf-8"), 1):
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                    MemoryTestCase.objects.update_or_create(name=data["name"], defaults={
                        "sessions": data["sessions"], "question": data["question"],
                        "expected": list(data["expected"]), "stale": list(data.get("stale") or [])})
                except (ValueError, KeyError, TypeError) as exc:
                    raise CommandError(f"{path}:{number}: not a case ({exc})") from exc
        cases = MemoryTestCase.objects.all()
        if names:
            cases = cases.filter(name__in=names)
        tally: dict[str, int] = {}
        with audit_context("command:agentmemory_memory_tests"):
            for case in cases:
                result = run_memory_test(case)
                tally[result.outcome] = tally.get(result.outcome, 0) + 1
                detail = "" if result.outcome == "answered" else f"  memories: {result.memories[:5]}"
                self.stdout.write(f"{result.outcome:<14} {case.name}{detail}")
        missed = ", ".join(f"{k} {v}" for k, v in sorted(tally.items()) if k != "answered")
        self.stdout.write(f"{tally.get('answered', 0)} of {sum(tally.values())} answered"
                          + (f"; {missed}" if missed else ""))

"""Models and migrations never drift; the first migration creates the vector extension."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from agentmemory.migrations import __path__ as migrations_path


@pytest.mark.django_db
def test_no_model_change_is_missing_a_migration():
    out = io.StringIO()
    try:
        call_command("makemigrations", "agentmemory", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # makemigrations --check exits 1 when a migration is missing
        pytest.fail(f"models changed without a migration (exit {exc.code}):\n{out.getvalue()}")


def test_first_operation_creates_the_vector_extension():
    from importlib import import_module

    from pgvector.django import VectorExtension

    initial = import_module("agentmemory.migrations.0001_initial").Migration
    kinds = [type(op) for op in initial.operations[:2]]
    assert VectorExtension in kinds


def test_migrations_are_numbered_without_gaps_or_twins():
    from pathlib import Path

    numbers = sorted(int(p.name[:4]) for p in Path(next(iter(migrations_path))).glob("[0-9][0-9][0-9][0-9]_*.py"))
    assert numbers and numbers[0] == 1, "no numbered migration found"
    assert numbers == list(range(1, len(numbers) + 1)), numbers

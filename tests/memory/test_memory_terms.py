"""Recall's keyword postings (MemoryTerm) follow every write of the memory table, whatever writes it.

They are kept by a database trigger (migration 0010), so the checks go through the real write paths
and raw SQL, and compare the postings with what the memory's own search_vector holds.
"""
from __future__ import annotations

import pytest
from django.db import connection

from agentmemory.memory.bulk import import_log
from agentmemory.memory.keywords import keyword_fields
from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem, MemoryTerm
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db


def expected(memory_id: int) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1) FROM agentmemory_memoryitem m "
                       "CROSS JOIN LATERAL unnest(m.search_vector) u WHERE m.id = %s", [memory_id])
        return dict(cursor.fetchall())


def postings(memory_id: int) -> dict[str, int]:
    return dict(MemoryTerm.objects.filter(memory_id=memory_id).values_list("lexeme", "tf"))


def test_written_memories_have_exact_postings_with_their_owner():
    result = write_memory("terms-u1", MemoryDraft(content="公司用 PostgreSQL 和 PostgreSQL 的扩展 pgvector",
                                                  type="fact", source="user_stated"))
    got = postings(result.memory_id)
    assert got and got == expected(result.memory_id)
    assert got.get("postgresql") == 2  # frequency, not presence
    assert set(MemoryTerm.objects.filter(memory_id=result.memory_id).values_list("user_id", flat=True)) == {"terms-u1"}


def test_bulk_imports_updates_and_deletes_keep_postings_exact():
    ids = import_log("terms-u2", [MemoryDraft(content=f"Alice: turn {n} about hiking trips", type="event",
                                              source="system_log", session_id="s1", turn_id=n) for n in range(3)])
    for pk in ids:
        assert postings(pk) == expected(pk) != {}
    # bulk_create, as the benchmarks and importers use it
    words = keyword_fields("Bob: 去上海出差")
    created = MemoryItem.objects.bulk_create([MemoryItem(user_id="terms-u2", type="event", source="system_log",
                                                         content="Bob: 去上海出差", **words)])
    assert postings(created[0].pk) == expected(created[0].pk) != {}
    # a new search_vector replaces the old postings; another column does not touch them
    MemoryItem.objects.for_user("terms-u2").filter(pk=ids[0]).update(**keyword_fields("Alice: climbing instead"))
    assert postings(ids[0]) == expected(ids[0])
    assert "hike" not in postings(ids[0]) and "hiking" not in postings(ids[0])
    MemoryItem.objects.for_user("terms-u2").filter(pk=ids[1]).update(confidence=0.5)
    assert postings(ids[1]) == expected(ids[1])
    # deletes, through the ORM and raw SQL
    MemoryItem.objects.for_user("terms-u2").filter(pk=ids[1]).delete()
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM agentmemory_memoryitem WHERE id = %s", [ids[2]])
    assert not MemoryTerm.objects.filter(memory_id__in=ids[1:]).exists()


def test_postings_are_per_user():
    a = write_memory("terms-a", MemoryDraft(content="喜欢爬山", type="preference", source="user_stated"))
    b = write_memory("terms-b", MemoryDraft(content="喜欢爬山", type="preference", source="user_stated"))
    assert postings(a.memory_id) == postings(b.memory_id) != {}
    lexeme = next(iter(postings(a.memory_id)))
    owners = MemoryTerm.objects.filter(lexeme=lexeme, memory_id__in=[a.memory_id, b.memory_id])
    assert sorted(owners.values_list("user_id", flat=True)) == ["terms-a", "terms-b"]


def test_a_missing_trigger_is_system_check_e007():
    from agentmemory.checks import check_memory_terms_trigger

    assert check_memory_terms_trigger(databases=["default"]) == []
    with connection.cursor() as cursor:  # rolled back with the test's transaction
        cursor.execute("DROP TRIGGER am_memory_terms_update ON agentmemory_memoryitem")
    assert [e.id for e in check_memory_terms_trigger(databases=["default"])] == ["agentmemory.E007"]


def test_a_missing_revision_trigger_is_system_check_e008():
    from agentmemory.checks import check_memory_terms_trigger

    with connection.cursor() as cursor:  # rolled back with the test's transaction
        cursor.execute("DROP TRIGGER am_memory_rev_update ON agentmemory_memoryitem")
    assert [e.id for e in check_memory_terms_trigger(databases=["default"])] == ["agentmemory.E008"]


def test_migrate_is_not_blocked_by_the_checks_of_a_migration_it_is_about_to_run():
    # `migrate` runs the database checks first: a table still without migration 0011 (no rev column, no
    # trigger) is a pending migration, not an error.
    from agentmemory.checks import check_memory_terms_trigger

    with connection.cursor() as cursor:  # rolled back with the test's transaction
        cursor.execute("DROP TRIGGER am_memory_rev_update ON agentmemory_memoryitem")
        cursor.execute("DROP TRIGGER am_memory_rev_insert ON agentmemory_memoryitem")
        cursor.execute("ALTER TABLE agentmemory_memoryitem DROP COLUMN rev")
    assert check_memory_terms_trigger(databases=["default"]) == []

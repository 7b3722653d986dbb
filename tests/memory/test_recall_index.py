"""Recall's in-process index (memory/snapshot.py, memory/indexed.py): the same answers as the SQL channels,
current after every kind of write (ORM, bulk, raw SQL), never another user's rows, bounded in memory."""
from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from agentmemory.memory import recall as recall_module
from agentmemory.memory import snapshot
from agentmemory.memory.bulk import import_log
from agentmemory.memory.keywords import keyword_fields
from agentmemory.memory.recall import recall_memories
from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db

SQL_ONLY = {"MEMORY_RECALL_CACHE_MB": 0}
TURNS = [
    "Sam: We adopted a rescue puppy last week.",
    "Alex: Lovely! Did you book the vet appointment yet?",
    "Sam: Yes, Friday at nine, the clinic on Elm Street.",
    "Alex: My sister visited us from Denver.",
    "Sam: 我们周末去杭州看了西湖，天气很好。",
    "Alex: The quarterly report is due on Monday.",
    "Sam: I started jogging in the mornings again.",
    "Alex: 下周三开会讨论预算和 Kubernetes 迁移。",
]
QUESTIONS = ["rescue puppy vet appointment", "When is the vet?", "杭州西湖", "Kubernetes 预算会议",
             "What is due on Monday?", "jogging", "nothing matches zebra"]


def _log(user: str, session: str, texts: list[str], start: int = 0) -> list[int]:
    return import_log(user, [MemoryDraft(content=t, type="event", source="system_log", session_id=session,
                                         turn_id=start + i) for i, t in enumerate(texts)])


def _answer(user: str, question: str, **kwargs) -> list[tuple[int, float, float | None, float | None]]:
    hits = recall_memories(user, question, top_k=10, touch=False, **kwargs)
    return [(h.memory.pk, h.scores.final, h.scores.window, h.scores.window_cosine) for h in hits]


def _same(indexed: list, sql: list) -> None:
    assert [row[0] for row in indexed] == [row[0] for row in sql]
    for a, b in zip(indexed, sql, strict=True):
        assert a[1] == pytest.approx(b[1], abs=1e-4)
        for x, y in zip(a[2:], b[2:], strict=True):
            assert (x is None) == (y is None) and (x is None or x == pytest.approx(y, abs=1e-4))


@pytest.fixture(autouse=True, params=["small users read whole", "every user by fingerprint"])
def small_user(request, monkeypatch) -> int:
    """Every test runs twice: with small users' rows read whole in the fingerprint's statement (the
    default), and with every user on the fingerprint, access statistics and rows statements."""
    limit = snapshot.SMALL_USER if request.param == "small users read whole" else 0
    monkeypatch.setattr(snapshot, "SMALL_USER", limit)
    return limit


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The users whose rows the index (re)reads during the test."""
    seen: list[str] = []
    original = snapshot.load_index

    def counting(user_id, model_name, **kwargs):
        seen.append(user_id)
        return original(user_id, model_name, **kwargs)

    monkeypatch.setattr(recall_module, "load_index", counting)
    return seen


def test_the_index_answers_exactly_as_the_sql_channels():
    _log("eq", "S1", TURNS)
    _log("eq", "S2", TURNS[::-1])
    write_memory("eq", MemoryDraft(content="The user prefers replies in Chinese.", type="preference",
                                   source="user_stated"))
    write_memory("eq", MemoryDraft(content="The agent-only note about the vet clinic.", type="fact",
                                   source="user_stated", agent_id="helper"))
    for question in QUESTIONS:
        for kwargs in ({}, {"agent_id": "helper"}, {"include_cold": True}):
            indexed = _answer("eq", question, **kwargs)
            with override_settings(AGENTMEMORY=SQL_ONLY):
                _same(indexed, _answer("eq", question, **kwargs))


def test_a_copy_is_reused_until_a_write_changes_the_user(loads):
    ids = _log("fresh", "S1", TURNS)
    recall_memories("fresh", "vet appointment", touch=False)
    recall_memories("fresh", "rescue puppy", touch=True)  # access statistics do not change the copy
    from agentmemory.memory.access import flush_access

    flush_access()
    recall_memories("fresh", "jogging", touch=False)
    assert loads == ["fresh"]

    new = MemoryItem.objects.for_user("fresh").get(pk=write_memory("fresh", MemoryDraft(
        content="Sam's puppy is called Biscuit.", type="fact", source="user_stated")).memory_id)
    assert new.pk in [h.memory.pk for h in recall_memories("fresh", "What is the puppy called?", touch=False)]
    assert loads == ["fresh", "fresh"]

    # Writes that bypass the application (queryset update, raw SQL) are seen as well.
    MemoryItem.objects.for_user("fresh").filter(pk=new.pk).update(status=MemoryItem.Status.DELETED)
    assert new.pk not in [h.memory.pk for h in recall_memories("fresh", "What is the puppy called?", touch=False)]
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {MemoryItem._meta.db_table} SET session_id = 'S9' WHERE id = %s", [ids[1]])
    indexed = _answer("fresh", "rescue puppy vet appointment")
    with override_settings(AGENTMEMORY=SQL_ONLY):
        _same(indexed, _answer("fresh", "rescue puppy vet appointment"))
    assert len(loads) == 4


def test_revisions_change_with_what_the_index_holds_only():
    [pk] = _log("rev", "S1", TURNS[:1])

    def rev() -> int:
        return MemoryItem.objects.for_user("rev").values_list("rev", flat=True).get(pk=pk)

    first = rev()
    assert first > 0
    # Recalls raise the access statistics: no new revision (copies stay current across recalls).
    moment = timezone.now()
    MemoryItem.objects.for_user("rev").filter(pk=pk).update(access_count=5, last_accessed_at=moment)
    assert rev() == first
    MemoryItem.objects.for_user("rev").filter(pk=pk).update(turn_id=7)
    assert rev() > first
    # Every other column: a small user's copy holds the rows whole (the access statistics are read live).
    changes = [{"confidence": 0.4}, {"content": "Sam: The vet moved the appointment."}, {"valid_from": moment},
               {"created_at": moment - dt.timedelta(days=3)}, {"tags": {"project": "vet"}}, {"value": {"day": "Fri"}},
               {"key": "vet_day"}, {"type": "fact"}, {"provenance": [{"session_id": "S2"}]}, {"excerpt": "Friday"},
               {"valid_to": moment}, {"updated_at": moment}, {"tags_key": '{"project":"vet"}'}]
    for change in changes:
        before = rev()
        MemoryItem.objects.for_user("rev").filter(pk=pk).update(**change)
        assert rev() > before, change
    before = rev()
    MemoryItem.objects.for_user("rev").filter(pk=pk).update(access_count=0, last_accessed_at=None)
    assert rev() == before


def test_the_revision_trigger_watches_every_column_but_the_access_statistics():
    """A column added to MemoryItem must be watched by the trigger (a new migration), or a small user's copy
    would keep the old value of it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'am_memory_rev_update' "
                       "AND tgrelid = %s::regclass", [MemoryItem._meta.db_table])
        [definition] = cursor.fetchone()
    watched = set(definition.split(" UPDATE OF ", 1)[1].split(" ON ", 1)[0].replace(" ", "").split(","))
    columns = {f.column for f in MemoryItem._meta.concrete_fields}
    assert watched == columns - {"id", "rev", "access_count", "last_accessed_at"}


def test_an_edit_of_any_column_reaches_a_small_users_recalled_rows(loads):
    [pk] = _log("tags", "S1", TURNS[2:3])
    assert recall_memories("tags", "vet clinic Elm Street", touch=False)[0].memory.tags == {}
    MemoryItem.objects.for_user("tags").filter(pk=pk).update(tags={"pet": "puppy"}, key="vet", value={"day": 5})
    [hit] = recall_memories("tags", "vet clinic Elm Street", touch=False)
    assert (hit.memory.tags, hit.memory.key, hit.memory.value) == ({"pet": "puppy"}, "vet", {"day": 5})
    assert loads == ["tags", "tags"]
    # Recalls raise the access statistics without a new revision: the returned rows carry the live ones.
    recall_memories("tags", "vet clinic Elm Street", touch=True)
    from agentmemory.memory.access import flush_access

    flush_access()
    [hit] = recall_memories("tags", "vet clinic Elm Street", touch=False)
    stored = MemoryItem.objects.for_user("tags").get(pk=pk)
    assert hit.memory.access_count == stored.access_count == 1
    assert hit.memory.last_accessed_at == stored.last_accessed_at is not None
    assert loads == ["tags", "tags"]


def test_the_index_never_proposes_another_users_rows():
    mine = _log("iso-a", "S1", ["Alex: Good morning.", "Sam: Morning!", "Alex: Nothing new here."])
    _log("iso-b", "S1", ["Bob: The submarine cable project starts in Lisbon.", "Bob: Lisbon cable kickoff Monday."])
    recall_memories("iso-b", "submarine cable", touch=False)  # b's copy is in the index too
    hits = recall_memories("iso-a", "submarine cable project in Lisbon", top_k=5, touch=False)
    assert {h.memory.pk for h in hits} <= set(mine)
    assert all(h.scores.bm25 is None and h.scores.window is None for h in hits)


def test_a_row_leaving_the_scope_after_the_copy_is_filtered_by_sql(monkeypatch):
    ids = _log("race", "S1", TURNS)
    recall_memories("race", "vet appointment", touch=False)
    # A stale copy (as if a write landed between the fingerprint and the candidates' read) only proposes
    # ids: the candidates' statement checks the scope again.
    original = recall_module.cached_index
    monkeypatch.setattr(recall_module, "cached_index",
                        lambda user, model, fingerprint: original(user, model, snapshot._cache._items[
                            snapshot._key(user, model)].fingerprint))
    MemoryItem.objects.for_user("race").filter(pk=ids[1]).update(status=MemoryItem.Status.DELETED)
    assert ids[1] not in [h.memory.pk for h in recall_memories("race", "vet appointment", top_k=10, touch=False)]


def test_scopes_the_index_does_not_hold_go_to_sql(loads):
    _log("tags", "S1", TURNS[:3])
    write_memory("tags", MemoryDraft(content="Billing runs on Java 17.", type="fact", source="user_stated",
                                     tags={"project": "billing"}))
    hits = recall_memories("tags", "Java", tags={"project": "billing"}, touch=False)
    assert [h.memory.content for h in hits] == ["Billing runs on Java 17."]
    assert loads == []
    with override_settings(AGENTMEMORY=SQL_ONLY):
        recall_memories("tags", "vet", touch=False)
    assert loads == []


def test_the_index_stays_within_its_budget(loads):
    for user in ("lru-a", "lru-b", "lru-c"):
        _log(user, "S1", TURNS)
    # Each copy here is a few kilobytes: a 1 MB budget holds all three; none is read twice.
    with override_settings(AGENTMEMORY={"MEMORY_RECALL_CACHE_MB": 1}):
        for user in ("lru-a", "lru-b", "lru-c", "lru-a", "lru-b"):
            recall_memories(user, "vet", touch=False)
    assert loads == ["lru-a", "lru-b", "lru-c"]
    # A user whose copy would take over a quarter of the budget (200 rows of 384 floats > 1 MB / 4) is
    # answered from SQL, and nothing of theirs is kept.
    _log("lru-big", "S1", [f"Turn {i}: notes about the vet and the budget" for i in range(200)])
    with override_settings(AGENTMEMORY={"MEMORY_RECALL_CACHE_MB": 1}):
        assert len(recall_memories("lru-big", "vet budget", top_k=5, touch=False)) == 5
    assert "lru-big" not in loads
    # The least recently used copy leaves first.
    cache = snapshot._Cache()
    index = snapshot._build([(1, 1, "active", "system_log", "", "S", 0, 3, None, 0.8, "Sam: hi", 0.0, ["hi"], [1])])
    cache.put(("db", "u1", "m"), index, limit=index.nbytes)
    cache.put(("db", "u2", "m"), index, limit=index.nbytes)
    assert cache.get(("db", "u1", "m"), index.fingerprint) is None
    assert cache.get(("db", "u2", "m"), index.fingerprint) is index


def test_a_large_copy_is_updated_by_its_changed_rows_only():
    from django.test.utils import CaptureQueriesContext

    ids = _log("inc", "S1", [f"Turn {i}: {TURNS[i % len(TURNS)]}" for i in range(300)])
    recall_memories("inc", "vet appointment", touch=False)
    added = _log("inc", "S2", ["Sam: The puppy graduated from obedience school today."])
    MemoryItem.objects.for_user("inc").filter(pk=ids[3]).update(status=MemoryItem.Status.COLD)
    MemoryItem.objects.for_user("inc").filter(pk=ids[5]).delete()
    with CaptureQueriesContext(connection) as queries:
        indexed = _answer("inc", "puppy obedience school vet appointment")
    reads = [q["sql"] for q in queries.captured_queries if "vector_send" in q["sql"]]
    assert len(reads) == 1 and "id = ANY" in reads[0]  # only the changed rows were read again
    assert added[0] == indexed[0][0]
    with override_settings(AGENTMEMORY=SQL_ONLY):
        _same(indexed, _answer("inc", "puppy obedience school vet appointment"))
    for kwargs in ({"include_cold": True}, {}):
        indexed = _answer("inc", "When is the vet?", **kwargs)
        with override_settings(AGENTMEMORY=SQL_ONLY):
            _same(indexed, _answer("inc", "When is the vet?", **kwargs))


def test_forgetting_a_user_drops_this_processs_copy(django_capture_on_commit_callbacks):
    from agentmemory.backends import get_embedder
    from agentmemory.memory.forget import forget_user

    _log("gone", "S1", TURNS[:3])
    recall_memories("gone", "vet", touch=False)
    key = snapshot._key("gone", get_embedder().model_name)
    assert snapshot._cache.peek(key) is not None
    with django_capture_on_commit_callbacks(execute=True):
        forget_user("gone")
    assert snapshot._cache.peek(key) is None
    assert len(recall_memories("gone", "vet", touch=False)) == 0


def test_access_statistics_that_grew_after_the_copy_rank_as_in_sql(loads):
    """Recall raises access statistics without a new revision, so the copy does not hold them: they are
    read live, and items used since the copy was made (in another process, say) rank as in SQL."""
    ids = _log("use", "S1", TURNS)
    _log("use", "S2", TURNS[::-1])
    recall_memories("use", "vet", touch=False)
    now = timezone.now()
    # Raised without a new revision, as record_access raises them: the copy is not reloaded.
    for i, pk in enumerate(ids):
        MemoryItem.objects.for_user("use").filter(pk=pk).update(
            access_count=40 * (i % 3), last_accessed_at=now - dt.timedelta(days=60 * (i % 4)))
    for question in QUESTIONS:
        for top_k in (1, 3, 10):
            indexed = recall_memories("use", question, top_k=top_k, touch=False)
            with override_settings(AGENTMEMORY=SQL_ONLY):
                sql = recall_memories("use", question, top_k=top_k, touch=False)
            assert [h.memory.pk for h in indexed] == [h.memory.pk for h in sql]
            for a, b in zip(indexed, sql, strict=True):
                assert a.scores.frequency == b.scores.frequency
                assert a.scores.decay == pytest.approx(b.scores.decay, abs=1e-4)  # a few ms later
                assert a.scores.final == pytest.approx(b.scores.final, abs=1e-4)
    assert loads == ["use"]


def test_a_question_costs_three_statements_on_a_current_copy(small_user):
    from django.test.utils import CaptureQueriesContext

    _log("few", "S1", [f"Turn {i}: {TURNS[i % len(TURNS)]}" for i in range(120)])
    recall_memories("few", "vet appointment", touch=False)
    with CaptureQueriesContext(connection) as queries:
        hits = recall_memories("few", "rescue puppy vet appointment", top_k=3, touch=False)
    assert len(hits) == 3
    assert all(h.memory.content.startswith("Turn ") and h.memory.tags == {} for h in hits)
    statements = [q["sql"] for q in queries.captured_queries]
    if small_user:
        # 120 rows: read whole with their revisions in one statement, while the query embeds.
        assert len(statements) == 1, statements
        assert "access_count" in statements[0] and "rev" in statements[0]
        return
    # The fingerprint, the candidates' access statistics (the scope checked again), the rows of the top 3.
    assert len(statements) == 3, statements
    assert "access_count" in statements[1] and "m.status" in statements[1]


def test_an_edit_of_the_words_reaches_the_copy(loads):
    ids = _log("edit", "S1", TURNS)
    text = "Alex: I take saxophone lessons today."  # as many terms as the turn it replaces
    fields = keyword_fields(text)
    assert fields["term_count"] == keyword_fields(TURNS[5])["term_count"]

    def keyword_hit() -> bool:
        hits = recall_memories("edit", "saxophone lessons", top_k=10, touch=False)
        return any(h.memory.pk == ids[5] and h.scores.bm25 is not None for h in hits)

    assert not keyword_hit()  # the turn's own words do not match

    with connection.cursor() as cursor:  # as a host's own SQL would: the content first, then its words
        cursor.execute("UPDATE agentmemory_memoryitem SET content = %s WHERE id = %s", [text, ids[5]])
        assert not keyword_hit()
        cursor.execute("UPDATE agentmemory_memoryitem SET search_vector = %s::tsvector WHERE id = %s",
                       [fields["search_vector"], ids[5]])
    assert keyword_hit() and loads == ["edit"] * 3
    indexed = _answer("edit", "saxophone lessons")
    with override_settings(AGENTMEMORY=SQL_ONLY):
        _same(indexed, _answer("edit", "saxophone lessons"))


def test_a_database_without_the_current_trigger_is_answered_from_sql(loads, monkeypatch):
    _log("old-db", "S1", TURNS)
    monkeypatch.setattr(snapshot, "_trigger_ok", {})
    with connection.cursor() as cursor:  # the trigger as migration 0011 left it
        cursor.execute("DROP TRIGGER am_memory_rev_update ON agentmemory_memoryitem; "
                       "CREATE TRIGGER am_memory_rev_update BEFORE UPDATE OF status ON agentmemory_memoryitem "
                       "FOR EACH ROW EXECUTE FUNCTION am_memory_rev_next()")
    assert len(recall_memories("old-db", "vet appointment", touch=False)) > 0
    assert loads == []


def test_recalled_items_are_whole_model_instances():
    write_memory("whole", MemoryDraft(content="The user's billing service runs on Java 17.", type="fact",
                                      source="user_stated", value={"java": 17}, tags={"project": "billing"}))
    stored = MemoryItem.objects.for_user("whole").get()
    MemoryItem.objects.for_user("whole").update(  # times with microseconds, before and after 1970's epoch
        valid_from=dt.datetime(1969, 7, 20, 20, 17, 40, 123457, tzinfo=dt.UTC),
        last_accessed_at=dt.datetime(2026, 11, 30, 23, 59, 59, 999999, tzinfo=dt.UTC), access_count=3)
    stored.refresh_from_db()
    for _attempt in range(2):  # the first call makes the copy; the second reads a small user whole
        [hit] = recall_memories("whole", "Java billing service", top_k=1, touch=False)
        item = hit.memory
        assert item.value == {"java": 17} and item.tags == {"project": "billing"}  # JSON fields parsed
        assert item.created_at.tzinfo is not None and item.user_id == "whole"
        for field in MemoryItem._meta.concrete_fields:
            if field.name not in ("embedding", "search_vector"):
                assert getattr(item, field.attname) == getattr(stored, field.attname), field.name
        assert item.embedding is not None  # deferred, loaded when touched


def test_a_small_users_times_read_as_the_orm_reads_them_with_use_tz_off():
    """A host with USE_TZ off gets naive local times from the ORM; a small user's rows, read whole as
    epoch microseconds, must come back the same."""
    write_memory("naive", MemoryDraft(content="The user's billing service runs on Java 17.", type="fact",
                                      source="user_stated"))
    with override_settings(USE_TZ=False, TIME_ZONE="Asia/Shanghai"):
        stored = MemoryItem.objects.for_user("naive").get()
        assert stored.created_at.tzinfo is None
        for _attempt in range(2):
            [hit] = recall_memories("naive", "Java billing service", top_k=1, touch=False)
            assert hit.memory.created_at == stored.created_at and hit.memory.updated_at == stored.updated_at


def test_window_sums_agree_between_the_dense_table_and_the_sorted_fallback(monkeypatch):
    """Above _DENSE_PAIRS (turn, term) cells the windows' BM25 sums by sorting instead: same scores."""
    from agentmemory.memory import indexed

    _log("dense", "S1", [f"Turn {i}: {TURNS[i % len(TURNS)]}" for i in range(60)])
    dense = [_answer("dense", question) for question in QUESTIONS]
    monkeypatch.setattr(indexed, "_DENSE_PAIRS", 0)
    assert any(row[2] is not None for answer in dense for row in answer)  # the window channel scored
    for question, expected in zip(QUESTIONS, dense, strict=True):
        _same(_answer("dense", question), expected)

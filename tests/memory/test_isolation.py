"""Isolation: with many users, no search, list, history or profile call returns another user's item."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmemory.memory.write import write_memory
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/users"
TEXTS = {
    "alice": ["公司行业是母婴用品", "预算 5000 以内"],
    "bob": ["我们在用 MySQL 数据库", "喜欢简洁的结论"],
    "carol": ["公司做跨境电商，主要卖母婴用品", "prefers short answers in English"],
    "dave": ["uses Java in project billing"],
}
QUERIES = ["母婴用品", "预算", "数据库", "MySQL", "跨境电商", "answers", "Java", "公司行业", "结论"]


def test_no_call_returns_another_users_item(api_client):
    owner_of: dict[int, str] = {}
    for user, texts in TEXTS.items():
        for i, text in enumerate(texts):
            result = write_memory(user, MemoryDraft(content=text, type="fact", source="user_stated",
                                                    key=f"k{i}", confidence=0.9))
            owner_of[result.memory_id] = user
    users = [*TEXTS, "nobody", "Alice", "alice "]
    ids = sorted(owner_of)

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        user=st.sampled_from(users),
        query=st.one_of(st.sampled_from(QUERIES), st.text(min_size=1, max_size=30).filter(lambda t: t.strip() and "\x00" not in t)),
        memory_id=st.sampled_from(ids),
        include=st.booleans(),
    )
    def check(user, query, memory_id, include):
        found = api_client.post(f"{BASE}/{user}/memories/search/",
                                {"query": query, "top_k": 10, "include_cold": include,
                                 "include_inferred": include}, format="json")
        assert found.status_code == 200, found.json()
        assert all(h["user_id"] == user and owner_of[h["id"]] == user for h in found.json()["results"])

        listed = api_client.get(f"{BASE}/{user}/memories/").json()["results"]
        assert {m["id"] for m in listed} == {i for i, u in owner_of.items() if u == user}

        profile = api_client.get(f"{BASE}/{user}/profile/").json()
        assert all(owner_of[f["memory_id"]] == user for f in profile["facts"])
        assert profile["user_id"] == user

        history = api_client.get(f"{BASE}/{user}/memories/{memory_id}/history/")
        if owner_of[memory_id] == user:
            assert history.status_code == 200
            assert {v["user_id"] for v in history.json()["versions"]} == {user}
        else:
            assert history.status_code == 404

    check()


def test_the_model_layer_has_no_unscoped_read():
    from agentmemory.models import MemoryItem
    from agentmemory.models.memory import ScopeRequired

    alice = write_memory("iso-alice", MemoryDraft(content="公司行业是母婴用品", type="fact",
                                                  source="user_stated")).memory_id
    bob = write_memory("iso-bob", MemoryDraft(content="我们在用 MySQL 数据库", type="fact",
                                              source="user_stated")).memory_id
    for unscoped in (MemoryItem.objects.all, MemoryItem.objects.count,
                     lambda: MemoryItem.objects.raw("SELECT * FROM agentmemory_memoryitem")):
        with pytest.raises(ScopeRequired):
            unscoped()
    with pytest.raises(ScopeRequired):
        MemoryItem.objects.by_ids_for_user("", [alice])
    # Ids of another user's items are simply not found in this user's scope.
    found = MemoryItem.objects.by_ids_for_user("iso-alice", [alice, bob])
    assert [m.pk for m in found] == [alice]
    assert found[0].content == "公司行业是母婴用品"
    assert found[0].embedding is not None  # deferred by the query, loaded on use

"""A cold memory the user clearly mentions again comes back through /context/, without any flag."""
from __future__ import annotations

import pytest
from django.test import override_settings

from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


@override_settings(AGENTMEMORY={"MEMORY_ACCESS_ASYNC": False})
def test_a_cold_memory_mentioned_again_is_used_and_becomes_active(api_client):
    cats = write_memory("rc", MemoryDraft(content="用户养了两只猫，叫麻薯和豆腐", type="fact", key="pets",
                                          source="user_stated")).memory_id
    other = write_memory("rc", MemoryDraft(content="用户的公司在杭州", type="fact", key="company_city",
                                           source="user_stated")).memory_id
    MemoryItem.objects.get_queryset().filter(user_id="rc").update(status="cold")

    unrelated = api_client.post(f"{API}context/", {"user_id": "rc", "query": "帮我写一封给供应商的邮件"},
                                format="json").json()
    assert "麻薯" not in unrelated["prompt"]
    assert MemoryItem.objects.for_user("rc").get(pk=cats).status == "cold"

    mentioned = api_client.post(f"{API}context/", {"user_id": "rc", "query": "我家的两只猫麻薯和豆腐最近不爱吃饭"},
                                format="json").json()
    assert "麻薯和豆腐" in mentioned["prompt"]
    assert mentioned["trace"]["layers"]["long_term_memory"]["reactivated"] == [cats]
    assert MemoryItem.objects.for_user("rc").get(pk=cats).status == "active"
    assert MemoryItem.objects.for_user("rc").get(pk=other).status == "cold"


@override_settings(AGENTMEMORY={"MEMORY_ACCESS_ASYNC": False})
def test_profile_and_top_memories_used_in_a_prompt_count_as_access(api_client):
    fact = write_memory("pa", MemoryDraft(content="用户的公司在杭州", type="fact", key="company_city",
                                          source="user_stated", confidence=0.9)).memory_id
    assert MemoryItem.objects.for_user("pa").get(pk=fact).last_accessed_at is None
    prompt = api_client.post(f"{API}context/", {"user_id": "pa", "query": "帮我写一封邮件"}, format="json").json()
    assert "杭州" in prompt["prompt"]
    item = MemoryItem.objects.for_user("pa").get(pk=fact)
    assert item.last_accessed_at is not None and item.access_count >= 1

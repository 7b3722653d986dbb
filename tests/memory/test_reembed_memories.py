"""Memories follow an embedding-model change: recall keeps working, a resumable re-embed, a check says so."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from agentmemory.checks import check_memory_vectors
from agentmemory.memory.recall import recall_memories
from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db


def test_after_a_model_switch_recall_keeps_working_and_the_reembed_brings_vectors_back(api_client):
    for content, key in (("我们公司是做母婴用品的", "company_industry"), ("预算是八万元", "budget"),
                         ("团队有十二个人", "team_size")):
        write_memory("sw", MemoryDraft(content=content, type="fact", key=key, source="user_stated"))
    model = MemoryItem.objects.for_user("sw").values_list("embedding_model", flat=True).first()
    # As if the vectors had been made by the previous embedder.
    MemoryItem.objects.get_queryset().filter(user_id="sw").update(embedding_model="old-model")
    assert [w.id for w in check_memory_vectors(databases=["default"])] == ["agentmemory.W003"]
    health = api_client.get("/api/agentmemory/health/?vectors=1").json()["vectors"]
    assert health["mixed_models"] is True and health["memories_other_model"] == 3

    during = recall_memories("sw", "母婴用品公司", top_k=3, touch=False)
    assert during and during[0].memory.key == "company_industry"  # keywords still find it, never empty

    out = io.StringIO()
    call_command("agentmemory_reembed", "--memories", stdout=out)
    assert "3 memory item(s) embedded" in out.getvalue()
    assert set(MemoryItem.objects.for_user("sw").values_list("embedding_model", flat=True)) == {model}
    assert check_memory_vectors(databases=["default"]) == []
    health = api_client.get("/api/agentmemory/health/?vectors=1").json()["vectors"]
    assert health["mixed_models"] is False and health["memories_other_model"] == 0
    after = recall_memories("sw", "做婴儿产品的企业", top_k=3, touch=False)
    assert after[0].memory.key == "company_industry" and after[0].scores.vector is not None
    again = io.StringIO()
    call_command("agentmemory_reembed", "--memories", stdout=again)
    assert "0 memory item(s) embedded" in again.getvalue()


def test_memory_reembed_goes_batch_by_batch_with_progress():
    from agentmemory.memory.embed import embed_pending_memories

    for n in range(7):
        write_memory("sweep", MemoryDraft(content=f"第{n}条记录：会议安排在周{n}", type="event", source="user_stated"))
    MemoryItem.objects.get_queryset().filter(user_id="sweep").update(embedding_model="old-model")
    seen = []
    result = embed_pending_memories(user_id="sweep", other_models=True, batch_size=3,
                                    progress=lambda done, total: seen.append((done, total)))
    assert result == {"embedded": 7, "still_pending": 0}
    assert seen == [(3, 7), (6, 7), (7, 7)]
    out = io.StringIO()
    MemoryItem.objects.get_queryset().filter(user_id="sweep").update(embedding_model="old-model")
    call_command("agentmemory_reembed", "--memories", "--user", "sweep", stdout=out)
    assert "memories [" in out.getvalue() and "7/7 100%" in out.getvalue()

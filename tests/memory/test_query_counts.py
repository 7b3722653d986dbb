"""The hot paths stay in a fixed number of queries, however many memories or chunks there are."""
from __future__ import annotations

import pytest
from django.test import override_settings

from agentmemory.memory.access import flush_access
from agentmemory.memory.bulk import import_log
from agentmemory.memory.recall import recall_memories
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db


def _log(user: str, n: int) -> None:
    import_log(user, [MemoryDraft(content=f"Turn {i}: we talked about the retro on Friday and budget {i}",
                                  type="event", source="system_log", session_id="S", turn_id=i) for i in range(n)])


@pytest.mark.parametrize("size", [5, 60])
def test_recall_uses_the_same_few_queries_at_any_size(size, django_assert_num_queries):
    _log(f"qc-{size}", size)
    recall_memories(f"qc-{size}", "warm the embedder", top_k=5, touch=False)
    # In-process index (the default), a small user: every row read whole with the fingerprint.
    with django_assert_num_queries(1):
        hits = recall_memories(f"qc-{size}", "When is the retro?", top_k=10, touch=False)
    assert len(hits) == min(10, size)
    # SQL channels: keyword channel (+ count), candidates, rows; no query per hit.
    with override_settings(AGENTMEMORY={"MEMORY_RECALL_CACHE_MB": 0}), django_assert_num_queries(3):
        assert len(recall_memories(f"qc-{size}", "When is the retro?", top_k=10, touch=False)) == min(10, size)
    flush_access()


@pytest.mark.parametrize("docs", [1, 6])
def test_knowledge_search_query_count_does_not_grow_with_hits(docs, django_assert_num_queries):
    from agentmemory.knowledge.ingest import ingest_document, prepare_document
    from agentmemory.knowledge.search import search_knowledge
    from agentmemory.models import KnowledgeBase

    kb = KnowledgeBase.objects.create(slug=f"qc-{docs}", name="qc")
    for i in range(docs):
        ingest_document(knowledge_base=kb, parsed=prepare_document(fmt="text", content=f"退货政策第{i}条：七天无理由退货。"),
                        title=f"doc {i}", fmt="text", external_id=f"d{i}")
    search_knowledge("退货", knowledge_bases=[kb.slug], top_k=5)
    # the base, its term statistics, the postings, the vector scan and the sentence scan (each in a savepoint: 3),
    # the chunks' rows.
    with django_assert_num_queries(10):
        result = search_knowledge("怎么退货", knowledge_bases=[kb.slug], top_k=5)
    assert result.hits

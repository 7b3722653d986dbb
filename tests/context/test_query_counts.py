"""/context/ runs a fixed number of queries: a regression on the hot path shows as a changed count."""
from __future__ import annotations

import pytest

from agentmemory.memory.access import flush_access

from .conftest import add_memory, context, new_session

pytestmark = pytest.mark.django_db


def test_context_with_knowledge_memory_and_a_session_runs_a_fixed_number_of_queries(
        api_client, seeded_kb, django_assert_num_queries):
    add_memory(api_client, "qc", "公司行业是母婴用品", key="company_industry")
    add_memory(api_client, "qc", "做活动偏好低成本的方案", type="preference", key="budget_preference")
    session = new_session(api_client, "qc", [("user", "我们想做一次联名活动"), ("assistant", "好的，预算多少？")])
    body = {"user_id": "qc", "query": "帮我想个联名方案，预算不多。", "knowledge_bases": [seeded_kb],
            "session_id": session}
    assert context(api_client, **body).status_code == 200  # warm: embedder, jieba, profile cache
    flush_access()
    # 16: the memory layer reads a small user whole with its fingerprint (no statements after its ranking); the
    # cached profile and top memories each read the user's stamp (correct across processes, memory/cache.py);
    # the access of what the prompt carries is recorded once (was three times, one per memory layer: 22); the
    # context ledger's row is one INSERT.
    with django_assert_num_queries(20):  # 17 before the sentence channel (its query in its read transaction)
        r = context(api_client, **body)
    assert r.status_code == 200 and r.json()["sections"]["knowledge"]
    flush_access()

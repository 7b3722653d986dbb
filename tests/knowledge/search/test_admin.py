"""Admin hit testing ("召回测试"): same results as the API, channel scores side by side, save a case."""
from __future__ import annotations

import pytest
from django.urls import reverse

from agentmemory.knowledge.search import search_knowledge
from agentmemory.models import EvaluationCase, EvaluationRun

pytestmark = pytest.mark.django_db


def test_hit_test_page_shows_what_production_retrieves(admin_client, seed_kb):
    url = reverse("admin:agentmemory_hit_test", args=[seed_kb.pk])
    response = admin_client.get(url, {"query": "X-200 参数", "mode": "hybrid", "top_k": "3"})
    assert response.status_code == 200
    page = response.content.decode()
    api = search_knowledge("X-200 参数", knowledge_bases=["seed"], top_k=3)
    shown = response.context["result"]
    assert [h.chunk_id for h in shown.hits] == [h.chunk_id for h in api.hits]
    assert "x-200" in page and "keyword (BM25)" in page and "vector (cosine)" in page
    assert api.hits[0].citation in page
    assert "df 1" in page  # term statistics in the trace
    sentence = api.hits[0].channels["sentence"]  # the sentence channel beside the chunk's cosine
    assert f"best sentence #{sentence['rank']}" in page and "sent " in page


def test_hit_test_page_reports_bad_input(admin_client, seed_kb):
    url = reverse("admin:agentmemory_hit_test", args=[seed_kb.pk])
    response = admin_client.get(url, {"query": "x", "top_k": "99"})
    assert response.status_code == 200
    assert "top_k must be an integer from 1 to 50" in response.content.decode()


def test_save_query_and_checked_chunks_as_evaluation_case(admin_client, seed_kb):
    url = reverse("admin:agentmemory_hit_test", args=[seed_kb.pk])
    hit = search_knowledge("冲泡绿茶", knowledge_bases=["seed"], top_k=1).hits[0]
    response = admin_client.post(url, {"action": "save_case", "query": "冲泡绿茶", "mode": "hybrid", "top_k": "5",
                                       "expected_chunk": [str(hit.chunk_id)]}, follow=True)
    assert response.status_code == 200
    case = EvaluationCase.objects.get(knowledge_base=seed_kb)
    assert case.query == "冲泡绿茶" and case.expected_chunk_ids == [hit.chunk_id] and case.source == "admin"
    assert "Saved evaluation case" in response.content.decode()
    empty = admin_client.post(url, {"action": "save_case", "query": "冲泡绿茶"}, follow=True)
    assert "Not saved" in empty.content.decode()
    assert EvaluationCase.objects.count() == 1


def test_knowledge_base_list_flags_a_recall_drop(admin_client, seed_kb):
    EvaluationRun.objects.create(knowledge_base=seed_kb, status="succeeded", case_count=3, hybrid_recall_at_5=0.6,
                                 previous_recall_at_5=0.9, recall_dropped=True)
    response = admin_client.get(reverse("admin:agentmemory_knowledgebaseretrieval_changelist"))
    page = response.content.decode()
    assert response.status_code == 200
    assert "recall@5 dropped 0.900 → 0.600" in page
    assert reverse("admin:agentmemory_hit_test", args=[seed_kb.pk]) in page
    runs = admin_client.get(reverse("admin:agentmemory_evaluationrun_changelist"))
    assert runs.status_code == 200

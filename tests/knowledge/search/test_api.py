"""REST search endpoints: results with channels and trace, and a 4xx JSON error for bad input."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

URL = "/api/agentmemory/knowledge-bases/seed/search/"


def test_search_one_knowledge_base(api_client, seed_kb):
    response = api_client.post(URL, {"query": "X-200 参数", "top_k": 2}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    hit = body["hits"][0]
    assert hit["document_external_id"] == "x200" and hit["document_title"] == "X-200 产品手册"
    assert hit["version"] == 1 and hit["citation"]
    assert hit["channels"]["keyword"]["rank"] == 1 and "x-200" in hit["channels"]["keyword"]["matched_terms"]
    assert hit["channels"]["vector"]["score"] > 0
    assert hit["channels"]["keyword"]["rrf"] > 0
    assert len(body["hits"]) == 2
    assert body["trace"]["timings_ms"]["total"] > 0
    assert "bm25" in body["trace"]["thresholds"]


def test_search_several_knowledge_bases(api_client, seed_kb):
    response = api_client.post("/api/agentmemory/search/",
                               {"query": "冲泡绿茶", "knowledge_bases": ["seed"], "mode": "keyword"}, format="json")
    assert response.status_code == 200
    assert response.json()["hits"][0]["document_external_id"] == "tea"


@pytest.mark.parametrize(("url", "payload", "status", "needle"), [
    (URL, {"query": ""}, 400, "query"),
    (URL, {"query": "x" * 100_000}, 400, "MAX_QUERY_CHARS"),
    (URL, {"query": "x", "mode": "fuzzy"}, 400, "mode"),
    (URL, {"query": "x", "top_k": 0}, 400, "top_k"),
    (URL, {"query": "x", "top_k": 500}, 400, "top_k"),
    (URL, {"query": "x", "thresholds": {"jaccard": 1}}, 400, "jaccard"),
    ("/api/agentmemory/knowledge-bases/nope/search/", {"query": "x"}, 404, "nope"),
    ("/api/agentmemory/search/", {"query": "x", "knowledge_bases": ["seed", "nope"]}, 404, "nope"),
])
def test_bad_input_gets_a_clear_4xx(api_client, seed_kb, url, payload, status, needle):
    response = api_client.post(url, payload, format="json")
    assert response.status_code == status
    body = response.json()
    assert needle in (body.get("detail", "") + str(body.get("field", "")) + str(body.get("fields", "")))


def test_search_requires_authentication(client, seed_kb):
    response = client.post(URL, {"query": "x"}, content_type="application/json")
    assert response.status_code in (401, 403)

"""POST /api/agentmemory/context/answer/ against a local server speaking the OpenAI chat protocol."""
from __future__ import annotations

import json

import pytest
from django.test import override_settings

from agentmemory.testing.openai_server import OpenAIChatServer

from .conftest import add_memory

pytestmark = pytest.mark.django_db

URL = "/api/agentmemory/context/answer/"


def test_answer_with_citations_to_the_chunks_and_memories_used(api_client, seeded_kb):
    add_memory(api_client, "u1", "公司行业是母婴用品", key="company_industry")
    reply = {"answer": "可以参考母婴品牌与绘本出版社的联名 [K1]，总预算控制在五千元以内 [K2]。",
             "citations": ["K1", "M1", "K9"]}
    with OpenAIChatServer([json.dumps(reply, ensure_ascii=False)]) as server, \
            override_settings(AGENTMEMORY={"LLM_URL": server.url, "LLM_MODEL": "test-model"}):
        r = api_client.post(URL, {"user_id": "u1", "query": "帮我想个联名方案，预算不多。",
                                  "knowledge_bases": [seeded_kb]}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["answer"] == reply["answer"] and body["model"] == "test-model"
    sections = body["context"]["sections"]
    by_marker = {c["marker"]: c for c in body["citations"]}
    assert set(by_marker) == {"K1", "K2", "M1"}
    k1 = next(it for it in sections["knowledge"] if it["label"] == "K1")
    assert by_marker["K1"]["type"] == "knowledge"
    assert by_marker["K1"]["chunk_id"] == k1["ref"]["chunk_id"]
    assert by_marker["K1"]["citation"] == k1["ref"]["citation"]
    m1 = next(it for it in sections["profile"] + sections["long_term_memory"] if it["label"] == "M1")
    assert by_marker["M1"] == {"marker": "M1", "type": "memory", "memory_id": m1["ref"]["memory_id"],
                               "layer": m1["layer"], "text": "公司行业是母婴用品", "source": "user_stated"}
    assert body["dropped_citations"] == ["K9"]  # a marker the prompt never had
    sent = server.requests[0]["messages"]
    assert sent[-1]["content"] == body["context"]["prompt"]
    assert "不要编造" in sent[0]["content"]


def test_answer_without_a_model_or_with_a_broken_one_is_a_503(api_client):
    r = api_client.post(URL, {"user_id": "u2", "query": "你好"}, format="json")
    assert r.status_code == 503
    assert "LLM_URL" in r.json()["detail"]
    with OpenAIChatServer(["not json", "still not json"]) as server, \
            override_settings(AGENTMEMORY={"LLM_URL": server.url, "LLM_MODEL": "m"}):
        r = api_client.post(URL, {"user_id": "u2", "query": "你好"}, format="json")
    assert r.status_code == 503
    assert r.json()["error"] == "backend_unavailable"

"""Reranking (HTTP /rerank, Jina/Cohere and TEI protocols) and query rewriting through a local LLM server."""
from __future__ import annotations

import json

import pytest

from agentmemory.knowledge.search import search_knowledge
from agentmemory.testing.openai_server import OpenAIChatServer

from .rerank_server import RerankServer

pytestmark = pytest.mark.django_db

HTTP = "agentmemory.backends.rerankers.http.HttpReranker"
TEI = "agentmemory.backends.rerankers.http.TEIReranker"


@pytest.mark.parametrize("style,backend", [("cohere", HTTP), ("tei", TEI)])
def test_reranker_reorders_the_fused_list(seed_kb, settings, style, backend):
    with RerankServer(style=style) as server:
        settings.AGENTMEMORY = {"RERANKER": backend, "RERANK_URL": server.url, "RERANK_MODEL": "bge-reranker"}
        result = search_knowledge("绿茶水温", knowledge_bases=["seed"], top_k=3)
    assert server.requests and server.requests[0]["path"] == "/v1/rerank"
    assert result.hits[0].document_external_id == "tea"
    assert result.hits[0].score_kind == "rerank"
    scores = [h.channels["rerank"]["score"] for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert "rerank" in result.trace["timings_ms"]


def test_rerank_threshold_zero_removes_negative_scores(seed_kb, settings, no_floor):
    with RerankServer(offset=0.5) as server:
        settings.AGENTMEMORY = {**settings.AGENTMEMORY, "RERANKER": HTTP, "RERANK_URL": server.url}
        result = search_knowledge("绿茶水温", knowledge_bases=["seed"], top_k=4, thresholds={"rerank": 0})
        unfiltered = search_knowledge("绿茶水温", knowledge_bases=["seed"], top_k=4)
    assert [h.document_external_id for h in result.hits] == ["tea"]
    assert result.trace["thresholds"]["rerank"]["removed"] == 3
    assert len(unfiltered.hits) == 4


@pytest.mark.parametrize("failure", [{"status": 500}, {"delay": 1.5}])
def test_rerank_error_or_timeout_keeps_the_fused_order(seed_kb, settings, failure):
    plain = search_knowledge("X-200 参数", knowledge_bases=["seed"], rerank=False)
    with RerankServer(**failure) as server:
        settings.AGENTMEMORY = {"RERANKER": HTTP, "RERANK_URL": server.url, "RERANK_TIMEOUT": 0.5}
        result = search_knowledge("X-200 参数", knowledge_bases=["seed"])
    assert [h.chunk_id for h in result.hits] == [h.chunk_id for h in plain.hits]
    assert any("rerank failed" in d for d in result.trace["degraded"])
    assert all("rerank" not in h.channels for h in result.hits)


def test_rewrite_uses_the_chat_model_and_falls_back(seed_kb, settings):
    answer = json.dumps({"query": "X-200 参数 额定功率"}, ensure_ascii=False)
    with OpenAIChatServer([answer]) as server:
        settings.AGENTMEMORY = {"QUERY_REWRITER": "agentmemory.backends.rewriters.LLMQueryRewriter",
                                "LLM_URL": server.url, "LLM_MODEL": "test"}
        result = search_knowledge("那个两百的功率多大呀", knowledge_bases=["seed"], rewrite=True, mode="keyword")
        failed = search_knowledge("那个两百的功率多大呀", knowledge_bases=["seed"], rewrite=True, mode="keyword")
    assert server.requests[0]["messages"][-1]["content"] == "那个两百的功率多大呀"
    assert result.trace["rewritten_query"] == "X-200 参数 额定功率"
    assert result.hits[0].document_external_id == "x200"
    assert failed.trace["rewritten_query"] == "那个两百的功率多大呀"
    assert any("rewrite failed" in d for d in failed.trace["degraded"])


def test_rewrite_without_a_configured_rewriter_says_so(seed_kb):
    result = search_knowledge("绿茶", knowledge_bases=["seed"], rewrite=True)
    assert any("no QUERY_REWRITER" in d for d in result.trace["degraded"])
    assert result.hits[0].document_external_id == "tea"

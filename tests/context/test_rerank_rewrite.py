"""The context uses what search has: a configured query rewriter for its knowledge search and a configured
reranker for its recalled memories (knowledge hits are reranked by the search itself), each in the trace,
each falling back without failing the context. Local servers speak the real protocols."""
from __future__ import annotations

import json

from agentmemory.testing.openai_server import OpenAIChatServer
from tests.knowledge.search.rerank_server import RerankServer

from .conftest import add_memory, context

REWRITER = "agentmemory.backends.rewriters.LLMQueryRewriter"
RERANKER = "agentmemory.backends.rerankers.http.HttpReranker"
MEMORIES = ("喜欢在周末去爬山", "养了一只叫年糕的猫", "在杭州做跨境电商，主营母婴用品", "对花生过敏")


def test_the_context_rewrites_its_knowledge_query_with_the_configured_rewriter(api_client, seeded_kb, settings):
    answer = json.dumps({"query": "联名活动案例 预算"}, ensure_ascii=False)
    with OpenAIChatServer([answer]) as server:
        settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "QUERY_REWRITER": REWRITER,
                                "LLM_URL": server.url, "LLM_MODEL": "test"}
        body = context(api_client, user_id="rw-user", query="那种和别家一起搞的活动有啥例子",
                       knowledge_bases=[seeded_kb], route="knowledge").json()
    assert server.requests[0]["messages"][-1]["content"] == "那种和别家一起搞的活动有啥例子"
    search = body["trace"]["layers"]["knowledge"]["search"]
    assert search["rewritten_query"] == "联名活动案例 预算"
    assert any(k["ref"]["document_title"] == "联名活动案例" for k in body["sections"]["knowledge"])


def test_the_rewriter_can_be_left_to_search_alone(api_client, seeded_kb, settings):
    with OpenAIChatServer([json.dumps({"query": "x"})]) as server:
        settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "QUERY_REWRITER": REWRITER,
                                "LLM_URL": server.url, "LLM_MODEL": "test", "CONTEXT_QUERY_REWRITE": False}
        body = context(api_client, user_id="rw-user", query="联名活动有什么案例？", knowledge_bases=[seeded_kb],
                       route="knowledge").json()
    assert server.requests == []
    assert "rewritten_query" not in body["trace"]["layers"]["knowledge"]["search"]


def test_recalled_memories_follow_the_configured_reranker(api_client, settings):
    for content in MEMORIES:
        add_memory(api_client, "rr-user", content, type="event", confidence=0.6)
    with RerankServer() as server:
        settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "RERANKER": RERANKER,
                                "RERANK_URL": server.url, "CONTEXT_MEMORY_FLOOR": None}
        body = context(api_client, user_id="rr-user", query="周末爬山带什么零食？注意过敏", route="personal").json()
    assert server.requests and server.requests[0]["path"] == "/v1/rerank"
    layer = body["trace"]["layers"]["long_term_memory"]
    assert layer["rerank"]["backend"] and layer["status"] == "ok"
    scores = layer["rerank"]["scores"]
    recalled = [m for m in body["sections"]["long_term_memory"] if m["ref"].get("via") == "recall"]
    shown = [f"memory:{m['ref']['memory_id']}" for m in recalled]
    assert len(shown) >= 2 and shown == sorted(shown, key=lambda key: -scores[key])  # the reranker's order
    assert recalled[0]["text"] == "喜欢在周末去爬山"


def test_a_failing_reranker_keeps_recall_order_and_says_so(api_client, settings):
    for content in MEMORIES:
        add_memory(api_client, "rr-user", content, type="event", confidence=0.6)
    with RerankServer(status=500) as server:
        settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "RERANKER": RERANKER,
                                "RERANK_URL": server.url, "CONTEXT_MEMORY_FLOOR": None}
        body = context(api_client, user_id="rr-user", query="周末爬山带什么零食？", route="personal").json()
    layer = body["trace"]["layers"]["long_term_memory"]
    assert layer["status"] == "degraded" and "rerank failed" in layer["degraded"]
    assert body["sections"]["long_term_memory"]  # the memories are still there, in recall's order

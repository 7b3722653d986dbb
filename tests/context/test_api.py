"""POST /api/agentmemory/context/ end to end: real database, real embedder, real knowledge and memory."""
from __future__ import annotations

import socket

import pytest
from django.test import override_settings

from agentmemory.text import count_tokens

from .conftest import add_memory, context

pytestmark = pytest.mark.django_db


def test_memory_and_knowledge_in_labelled_sections_question_last(api_client, seeded_kb):
    add_memory(api_client, "u1", "公司行业是母婴用品", key="company_industry")
    add_memory(api_client, "u1", "做活动偏好低成本的方案", type="preference", key="budget_preference")
    r = context(api_client, user_id="u1", query="帮我想个联名方案，预算不多。", knowledge_bases=[seeded_kb])
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["route"] == "mixed"
    prompt = body["prompt"]
    memory_block = prompt.split("\n\n【用户记忆】\n")[1].split("\n\n【知识库检索结果】\n")[0]
    knowledge_block = prompt.split("\n\n【知识库检索结果】\n")[1].split("\n\n【当前问题】\n")[0]
    assert "母婴用品" in memory_block and "低成本" in memory_block
    assert "《联名活动案例》" in knowledge_block and "《低成本活动预算模板》" in knowledge_block
    assert prompt.endswith("【当前问题】\n帮我想个联名方案，预算不多。")
    cited = {hit["ref"]["document_title"] for hit in body["sections"]["knowledge"]}
    assert cited == {"联名活动案例", "低成本活动预算模板"}
    for hit in body["sections"]["knowledge"]:
        assert hit["label"].startswith("K") and hit["ref"]["citation"] in prompt and hit["score"] > 0
    facts = body["sections"]["profile"]
    assert {f["ref"]["key"] for f in facts} == {"company_industry", "budget_preference"}
    assert all(f["source"] == "user_stated" and f["timestamp"] for f in facts)
    assert body["sections"]["current_message"]["text"] == "帮我想个联名方案，预算不多。"
    trace = body["trace"]
    assert trace["fusion"]["weights"]["knowledge"] == 1.0
    assert set(trace["layers"]) == {"profile", "long_term_memory", "knowledge", "working_memory"}
    assert {"gather", "fuse", "budget", "render", "total"} <= set(trace["timings_ms"])
    # The same memory found by recall and in the profile is shown once.
    assert any(d["reason"] == "duplicate" for d in trace["dropped"])
    assert body["token_counts"]["total"] == count_tokens(prompt) <= 4000


def test_question_outside_the_knowledge_base_gets_the_dont_know_instruction(api_client, seeded_kb):
    r = context(api_client, user_id="u2", query="火星上的天气怎么样？", knowledge_bases=[seeded_kb])
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["sections"]["knowledge"] == []
    assert "（知识库中没有找到与当前问题相关的内容。）" in body["prompt"]
    assert "不要编造" in body["prompt"]
    dropped = [d for d in body["trace"]["dropped"] if d["layer"] == "knowledge"]
    # The relevance floor drops them in the search (reason "floor"); the context gate would too ("threshold").
    assert dropped and {d["reason"] for d in dropped} <= {"floor", "threshold"}


def test_english_prompt_by_configured_language(api_client, seeded_kb):
    add_memory(api_client, "u3", "Works at a baby products brand", key="employer")
    with override_settings(AGENTMEMORY={"LANGUAGE": "en"}):
        r = context(api_client, user_id="u3", query="What is the capital of Mars?", route="knowledge")
    body = r.json()
    assert body["route"] == "knowledge"
    assert "[User memory]\n[M1] Works at a baby products brand (stated by the user" in body["prompt"]
    assert "has no information on it; do not invent an answer" in body["prompt"]
    assert body["prompt"].endswith("[Current message]\nWhat is the capital of Mars?")


def test_budget_of_1000_keeps_memory_within_a_quarter_and_the_best(api_client, settings):
    # The token cap alone (the memory section's item cap, five by default, is test_memory_section's).
    settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "CONTEXT_MEMORY_MAX_ITEMS": 100}
    for i in range(30):
        add_memory(api_client, "u4", f"第{i}号项目的预算是{i + 1}万元，负责人是同事{i}号，截止日期在{i % 12 + 1}月",
                   type="fact", key=f"project_{i}", confidence=round(0.5 + i / 70, 3))
    r = context(api_client, user_id="u4", query="项目预算是多少？", token_budget=1000)
    assert r.status_code == 200, r.content
    body = r.json()
    counts = body["token_counts"]
    assert counts["memory_section"] <= 250
    assert counts["profile"] + counts["long_term_memory"] <= 250
    assert counts["total"] <= 1000
    memory_block = body["prompt"].split("\n\n【用户记忆】\n")[1].split("\n\n")[0]
    assert count_tokens("【用户记忆】\n" + memory_block) <= 250
    kept = [it["score"] for name in ("profile", "long_term_memory") for it in body["sections"][name]]
    cut = [d["score"] for d in body["trace"]["dropped"]
           if d["layer"] in ("profile", "long_term_memory") and d["reason"] == "budget"]
    assert kept and cut, "the test needs memories both kept and cut by the cap"
    assert min(kept) >= max(cut)


@pytest.mark.django_db(transaction=True)
def test_a_memory_written_is_in_the_next_context(api_client):
    # Committed writes, as in production: the cache is dropped when the write commits, and the
    # searches run in worker threads with their own connections.
    add_memory(api_client, "u5", "公司行业是跨境物流", key="company_industry")
    first = context(api_client, user_id="u5", query="给我推荐一个营销方向").json()
    assert "跨境物流" in first["prompt"]
    assert first["trace"]["layers"]["profile"]["cache"] == "miss"
    again = context(api_client, user_id="u5", query="给我推荐一个营销方向").json()
    assert again["trace"]["layers"]["profile"]["cache"] == "hit"
    add_memory(api_client, "u5", "回复风格偏好先给结论", type="preference", key="reply_style")
    after = context(api_client, user_id="u5", query="给我推荐一个营销方向").json()
    assert "先给结论" in after["prompt"]
    assert after["trace"]["layers"]["profile"]["cache"] == "miss"


def test_embedder_down_degrades_to_keyword_and_profile(api_client, seeded_kb):
    add_memory(api_client, "u6", "公司行业是母婴用品", key="company_industry")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    broken = {"EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
              "EMBEDDING_URL": f"http://127.0.0.1:{port}/v1", "EMBEDDING_MODEL": "multilingual-e5-small-q4",
              "EMBEDDING_TIMEOUT": 2}
    with override_settings(AGENTMEMORY=broken):
        r = context(api_client, user_id="u6", query="联名活动有什么案例？", knowledge_bases=[seeded_kb],
                        route="mixed")
    assert r.status_code == 200, r.content
    body = r.json()
    assert "母婴用品" in body["prompt"]
    assert any(h["ref"]["document_title"] == "联名活动案例" for h in body["sections"]["knowledge"])
    degraded = " ".join(body["trace"]["degraded"])
    assert "knowledge" in degraded and "long_term_memory" in degraded
    assert body["trace"]["layers"]["knowledge"]["status"] == "degraded"


def test_bad_input_is_a_4xx_with_a_message(api_client, seeded_kb):
    cases = [
        ({"user_id": "u7", "query": "你好", "knowledge_bases": ["nope"]}, 404, "nope"),
        ({"user_id": "u7", "query": "你好", "session_id": "6f1c2b1e-0000-4000-8000-000000000000"}, 404, "session"),
        ({"user_id": "u7", "query": "你好", "session_id": "not-a-uuid"}, 400, "session_id"),
        ({"user_id": "u7", "query": "请把这一段很长的问题" * 20, "token_budget": 100}, 400, "too small"),
        ({"user_id": "u7", "query": ""}, 400, "query"),
        ({"user_id": "u7", "query": "你好", "route": "everything"}, 400, "route"),
        ({"query": "你好"}, 400, "user_id"),
    ]
    for payload, code, words in cases:
        r = context(api_client, **payload)
        assert r.status_code == code, (payload, r.content)
        assert words in r.json()["detail"], (payload, r.json())


def test_a_layer_that_fails_is_left_out_and_reported(api_client, seeded_kb):
    add_memory(api_client, "u8", "公司行业是母婴用品", key="company_industry")
    # A misconfigured embedder (no URL) makes both searches raise instead of degrading: the user's
    # top memories stand in for recall, the knowledge search is asked again in keyword mode, and the
    # profile needs no embedding.
    with override_settings(AGENTMEMORY={"EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder"}):
        r = context(api_client, user_id="u8", query="联名活动有什么案例？", route="mixed")
    assert r.status_code == 200, r.content
    body = r.json()
    layers = body["trace"]["layers"]
    assert layers["long_term_memory"]["status"] == "degraded"
    assert "EMBEDDING_URL" in layers["long_term_memory"]["degraded"]
    assert layers["knowledge"]["status"] == "degraded"
    assert any(h["ref"]["document_title"] == "联名活动案例" for h in body["sections"]["knowledge"])
    assert layers["profile"]["status"] == "ok" and "母婴用品" in body["prompt"]
    degraded = body["trace"]["degraded"]
    assert any(d.startswith("long_term_memory: recall failed") for d in degraded)
    assert any("hybrid search failed" in d for d in degraded)

"""The pure stages of context assembly (route, fuse, budget, render): no database, real outputs."""
from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings

from agentmemory.context.budget import fill_budget
from agentmemory.context.combine import combine_layers, shingles, similarity
from agentmemory.context.render import fixed_tokens, item_tokens, render_prompt
from agentmemory.context.route import decide_route, route_by_rules
from agentmemory.testing.openai_server import OpenAIChatServer
from agentmemory.text import count_tokens
from agentmemory.types import ContextItem

CLASSIFIER = "agentmemory.context.route.LLMRouteClassifier"
WEIGHTS = {"working_memory": 1.2, "knowledge": 1.0, "long_term_memory": 0.8}


@pytest.mark.parametrize(("query", "route"), [
    ("刚才那个再展开说说", "continuation"),
    ("继续", "continuation"),
    ("Tell me more about the second point", "continuation"),
    ("我之前说的预算是多少？", "personal"),
    ("What do you know about me?", "personal"),
    ("How do I configure the HNSW index?", "knowledge"),
    ("退货流程是什么？", "knowledge"),
    ("帮我想个联名方案，预算不多。", "mixed"),
    ("Given my budget, how do I plan a campaign?", "mixed"),
    ("嗯", "mixed"),
])
def test_rules_route_chinese_and_english(query, route):
    assert route_by_rules(query).route == route


def test_full_width_and_matched_patterns_are_reported():
    decision = route_by_rules("ＨＯＷ ＤＯ Ｉ reset it？")
    assert decision.route == "knowledge"
    assert decision.as_trace()["matched"]["knowledge"] == ["how do"]
    assert decision.as_trace()["layers"] == ["profile", "knowledge", "working_memory"]


def test_continuation_without_a_session_retrieves_everything():
    decision = decide_route("刚才那个再展开说说", has_session=False)
    assert decision.route == "mixed" and "session" in decision.note


def test_llm_classifier_overrules_rules_and_failure_falls_back():
    with OpenAIChatServer(['{"route": "personal"}', "not json", "still not json"]) as server, \
            override_settings(AGENTMEMORY={"ROUTE_CLASSIFIER": CLASSIFIER, "LLM_URL": server.url, "LLM_MODEL": "m"}):
        first = decide_route("How do I configure it?")
        second = decide_route("How do I configure it?")
    assert (first.route, first.method) == ("personal", "classifier")
    assert (second.route, second.method) == ("knowledge", "fallback")
    assert "rules used" in second.note
    assert "How do I configure it?" in server.requests[0]["messages"][-1]["content"]


def _item(layer, key, text, relevance=1.0, decay=1.0, kind="memory", tokens=0, **ref):
    return ContextItem(layer=layer, kind=kind, key=key, text=text, relevance=relevance, decay=decay,
                       tokens=tokens, ref=ref)


def test_fusion_applies_layer_weights_relevance_and_decay():
    result = combine_layers([
        _item("long_term_memory", "memory:1", "公司行业是母婴用品", relevance=1.0, decay=0.5),
        _item("knowledge", "chunk:1", "联名活动案例：两个品牌共同推出限定款", relevance=0.9),
        _item("working_memory", "turn:1", "我们刚才聊了预算", relevance=0.5, kind="turn"),
    ], weights=WEIGHTS)
    scores = {it.key: it.score for it in result.items}
    assert scores == {"memory:1": pytest.approx(0.4), "chunk:1": pytest.approx(0.9), "turn:1": pytest.approx(0.6)}
    assert [it.key for it in result.items] == ["chunk:1", "turn:1", "memory:1"]
    assert result.weights["working_memory"] == 1.2
    # The profile weighs what long-term memory weighs unless configured apart.
    profile = combine_layers([_item("profile", "memory:9", "x")], weights=WEIGHTS).items[0]
    assert profile.weight == 0.8


def test_fusion_drops_cross_layer_duplicates_keeping_the_best():
    result = combine_layers([
        _item("profile", "memory:1", "公司行业：母婴用品", relevance=1.0, decay=0.9),
        _item("long_term_memory", "memory:1", "公司行业：母婴用品", relevance=0.6),
        _item("long_term_memory", "memory:2", "Prefers short answers.", relevance=0.5),
        _item("working_memory", "turn:3", "prefers short answers", relevance=0.9, kind="turn"),
        _item("knowledge", "chunk:1", "低成本活动预算模板", relevance=0.01),
    ], weights=WEIGHTS, min_score=0.05)
    assert [it.key for it in result.items] == ["turn:3", "memory:1"]
    reasons = {(d["key"], d["layer"]): d["reason"] for d in result.dropped}
    assert reasons == {("memory:1", "long_term_memory"): "duplicate", ("memory:2", "long_term_memory"): "duplicate",
                       ("chunk:1", "knowledge"): "threshold"}
    assert similarity(shingles("母婴用品品牌"), shingles("母婴用品品牌。")) == 1.0


def test_budget_caps_memory_and_keeps_the_highest_scoring():
    memories = [_item("long_term_memory", f"memory:{i}", f"记忆{i}", relevance=1 - i / 100, tokens=30)
                for i in range(20)]
    chunks = [_item("knowledge", f"chunk:{i}", f"chunk text {i}", relevance=0.5 - i / 100, tokens=200) for i in range(10)]
    fused = combine_layers([*memories, *chunks], weights=WEIGHTS).items
    result = fill_budget(fused, budget=1000, fixed_tokens=100, memory_share=0.25, memory_header_tokens=10)
    kept_memory = [it for it in result.kept if it.layer == "long_term_memory"]
    # (250 - 10) // 30 = 8 memories, the eight best; 900 - 240 = 660 left: three chunks of 200.
    assert [it.key for it in kept_memory] == [f"memory:{i}" for i in range(8)]
    assert sum(it.tokens for it in kept_memory) <= 240
    assert [it.key for it in result.kept if it.layer == "knowledge"] == ["chunk:0", "chunk:1", "chunk:2"]
    assert {d["reason"] for d in result.dropped} == {"budget"}
    assert result.usage["memory_cap"] == 250


def test_unused_memory_share_goes_to_the_other_layers():
    chunks = [_item("knowledge", f"chunk:{i}", f"text number {i}", relevance=0.5, tokens=300) for i in range(4)]
    result = fill_budget(combine_layers(chunks, weights=WEIGHTS).items, budget=1000, fixed_tokens=50,
                         memory_share=0.25)
    assert len(result.kept) == 3


def _sections(language="zh"):
    ts = dt.datetime(2026, 11, 20, tzinfo=dt.UTC)
    return {
        "profile": [ContextItem(layer="profile", kind="fact", key="memory:1", text="公司行业是母婴用品", label="M1",
                                timestamp=ts, ref={"source": "user_stated"})],
        "long_term_memory": [ContextItem(layer="long_term_memory", kind="memory", key="memory:2",
                                         text="偏好低成本的活动", label="M2", ref={"source": "user_stated"})],
        "knowledge": [ContextItem(layer="knowledge", kind="chunk", key="chunk:1", text="两个品牌共同推出限定款。",
                                  label="K1", source="《联名活动案例》 › 案例一")],
        "working_memory": [
            ContextItem(layer="working_memory", kind="summary", key="summary", text="用户想做联名活动"),
            ContextItem(layer="working_memory", kind="turn", key="turn:1", text="你好", ref={"role": "user"}),
        ],
    }


def test_render_puts_sections_in_the_seeds_order_with_the_question_last():
    prompt = render_prompt(_sections(), "帮我想个联名方案，预算不多。").text
    positions = [prompt.index(label) for label in ("不要编造", "\n\n【用户记忆】\n", "[M1] 公司行业是母婴用品（用户陈述，2026-11-20）",
                                                   "\n\n【知识库检索结果】\n", "[K1] 《联名活动案例》 › 案例一",
                                                   "\n\n【对话历史】\n", "此前对话摘要：用户想做联名活动", "用户：你好",
                                                   "\n\n【当前问题】\n")]
    assert positions == sorted(positions)
    assert prompt.endswith("【当前问题】\n帮我想个联名方案，预算不多。")


def test_render_in_english_and_empty_knowledge_says_so():
    sections = _sections()
    sections["knowledge"] = []
    with override_settings(AGENTMEMORY={"LANGUAGE": "en"}):
        rendered = render_prompt(sections, "What is the weather on Mars?", language="en")
    text = rendered.text
    assert "[User memory]" in text and "[Conversation history]" in text
    assert "(The knowledge base has nothing relevant to the current message.)" in text
    assert "do not invent an answer" in text
    assert text.endswith("[Current message]\nWhat is the weather on Mars?")
    assert rendered.token_counts["knowledge"] == 0
    zh = render_prompt({}, "火星天气如何？").text
    assert "（知识库中没有找到与当前问题相关的内容。）" in zh and "不要编造" in zh


def test_token_counts_bound_the_prompt():
    sections = _sections()
    rendered = render_prompt(sections, "帮我想个联名方案，预算不多。")
    fixed = fixed_tokens("帮我想个联名方案，预算不多。", language="zh", with_knowledge=True, with_history=True)
    charged = sum(fixed.values()) + sum(item_tokens(it, "zh") for items in sections.values() for it in items)
    assert rendered.token_counts["total"] == count_tokens(rendered.text)
    assert rendered.token_counts["total"] <= charged
    assert rendered.token_counts["current_message"] == count_tokens("帮我想个联名方案，预算不多。")


def test_working_memory_newest_turn_first_and_the_current_message_once():
    from agentmemory.context.layers.working import gather_working
    from agentmemory.types import WorkingContext, WorkingTurn

    working = WorkingContext(
        session_id="s", summary="用户在筹备联名活动，预算五千元", task_state={"步骤": "选伙伴"},
        turns=(*(WorkingTurn(id=i, seq=i, role="user" if i % 2 else "assistant", content=f"第{i}句")
                 for i in range(1, 6)), WorkingTurn(id=6, seq=6, role="user", content="再展开说说")),
        pinned_turns=(WorkingTurn(id=0, seq=0, role="user", content="记住：预算五千", high_priority=True),))
    result = gather_working(working, "再展开说说")
    turns = {it.ref["seq"]: it.relevance for it in result.items if it.kind == "turn"}
    assert turns[5] == 1.0 and turns[4] == pytest.approx(0.85) and turns[1] == pytest.approx(0.85 ** 4)
    assert turns[0] == 0.7  # a pinned high-priority turn keeps a floor
    assert 6 not in turns and result.detail["dropped"][0]["detail"] == "same as the current message"
    kinds = {it.kind: it for it in result.items}
    assert kinds["task_state"].text == '{"步骤":"选伙伴"}' and kinds["summary"].relevance == 0.9


def test_chunk_text_loses_headings_the_citation_already_names():
    from agentmemory.context.layers.knowledge import strip_headings

    text = "# 联名活动案例\n\n## 案例一\n某品牌联名推出礼盒。\n## 不在路径里的标题"
    assert strip_headings(text, "联名活动案例 > 案例一") == "某品牌联名推出礼盒。\n## 不在路径里的标题"
    assert strip_headings("## 案例一", "联名活动案例 > 案例一") == "## 案例一"

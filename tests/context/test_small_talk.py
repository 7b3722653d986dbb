"""Small talk retrieves nothing: no knowledge, no long-term memory; the profile and the session still load."""
from __future__ import annotations

import pytest
from django.test import override_settings

from agentmemory.context.small_talk import is_small_talk

from .conftest import add_memory, context, new_session

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("message", [
    "嗯", "好的，谢谢！", "哈哈，好的", "你好呀，最近怎么样？", "晚安，明天再聊", "收到👍", "ｏｋ，ｔｈａｎｋｓ",
    "Thanks, that was helpful!", "ok sounds good", "lol thanks", "Hi there!", "How are you?", "Have a good night!",
    # questions to the assistant about itself, the clock or the conversation
    "你叫什么名字？", "你能做什么？", "你是机器人吗？", "你好，你是谁？", "现在几点了？", "今天星期几呢", "我刚才说到哪了？",
    "Who are you?", "What's your name?", "Are you a bot?", "What time is it?", "Where were we?",
])
def test_greetings_thanks_and_acknowledgements_are_small_talk(message):
    assert is_small_talk(message)


@pytest.mark.parametrize("message", [
    "谢谢，那预算怎么分配？", "今天天气怎么样", "好的，帮我写个联名方案", "对了，我换工作了", "可以帮我写个邮件吗",
    "Hi, what is the refund policy?", "thanks, and how do I reset my password?", "", "好的" * 40,
    "你能做什么菜", "现在几点开会", "你是谁的学生", "What can you do about the refund?", "什么",
])
def test_a_message_that_asks_or_tells_something_is_not(message):
    assert not is_small_talk(message)


def test_small_talk_gets_no_knowledge_and_no_recalled_memory(api_client, seeded_kb):
    add_memory(api_client, "st", "公司行业是母婴用品", key="company_industry")
    add_memory(api_client, "st", "做活动偏好低成本的方案", type="preference", key="budget_preference")
    sid = new_session(api_client, "st", [("user", "帮我想个联名方案"), ("assistant", "好的，可以考虑绘本联名。")])
    body = context(api_client, user_id="st", query="好的，谢谢！", knowledge_bases=[seeded_kb], session_id=sid).json()
    assert body["sections"]["knowledge"] == [] and body["sections"]["long_term_memory"] == []
    assert "\n\n【知识库检索结果】\n" not in body["prompt"]
    assert {f["ref"]["key"] for f in body["sections"]["profile"]} == {"company_industry", "budget_preference"}
    assert body["sections"]["working_memory"], "the session still loads"
    trace = body["trace"]
    assert trace["route"]["small_talk"] is True
    for layer in ("knowledge", "long_term_memory"):
        assert trace["layers"][layer]["status"] == "skipped" and "small talk" in trace["layers"][layer]["note"]
    # A question after the thanks is not small talk; with the floor off, small talk is searched as before.
    asked = context(api_client, user_id="st", query="谢谢，那联名方案的预算怎么分配？", knowledge_bases=[seeded_kb]).json()
    assert asked["trace"]["route"]["small_talk"] is False and asked["sections"]["knowledge"]
    with override_settings(AGENTMEMORY={"CONTEXT_SMALL_TALK_FLOOR": False}):
        off = context(api_client, user_id="st", query="好的，谢谢！", knowledge_bases=[seeded_kb]).json()
    assert off["trace"]["route"]["small_talk"] is False
    assert off["trace"]["layers"]["knowledge"]["status"] != "skipped"


def test_recalled_memories_need_a_keyword_or_a_cosine_over_the_memory_floor(api_client):
    add_memory(api_client, "mf", "上周去苏州见了包装供应商，谈了礼盒报价", type="event", confidence=0.6)
    add_memory(api_client, "mf", "Signed up for a Spanish evening class", type="event", confidence=0.6)
    add_memory(api_client, "mf", "女儿下个月过六岁生日", type="event", confidence=0.6)
    query = "礼盒报价谈得怎么样了？"
    default = context(api_client, user_id="mf", query=query, route="personal").json()
    texts = [m["text"] for m in default["sections"]["long_term_memory"]]
    assert any("礼盒报价" in t for t in texts)
    with override_settings(AGENTMEMORY={"CONTEXT_MEMORY_FLOOR": 0.99}):
        strict = context(api_client, user_id="mf", query=query, route="personal").json()
    # Only the memory the question's words match is left of recall; the others are dropped, with the reason
    # (the user's cached top memories still come as background, like the profile).
    recalled = [m["text"] for m in strict["sections"]["long_term_memory"] if m["ref"]["via"] == "recall"]
    assert recalled == ["上周去苏州见了包装供应商，谈了礼盒报价"]
    floored = [d for d in strict["trace"]["dropped"] if d["layer"] == "long_term_memory" and d["reason"] == "floor"]
    assert len(floored) == 2 and all("< 0.99" in d["detail"] for d in floored)
    assert strict["trace"]["layers"]["long_term_memory"]["recalled"] == 1
    with override_settings(AGENTMEMORY={"CONTEXT_MEMORY_FLOOR": None}):
        unfloored = context(api_client, user_id="mf", query=query, route="personal").json()
    assert unfloored["trace"]["layers"]["long_term_memory"]["recalled"] == 3

"""The context with working memory: the seeds' two-session scenario, continuation, other users' sessions."""
from __future__ import annotations

import pytest

from .conftest import context, new_session, wait_for

SESSION_1 = "我们公司是做母婴用品的品牌，主打安全环保，最近想做一次低成本联名活动。"
QUESTION = "帮我想个联名方案，预算不多。"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_seed_scenario_end_to_end(celery_worker, api_client, seeded_kb):
    first = new_session(api_client, "mom-brand", [("user", SESSION_1), ("assistant", "好的，我了解了。")])
    r = api_client.post(f"/api/agentmemory/sessions/{first}/end/")
    assert r.status_code == 202, r.content
    wait_for(lambda: api_client.get(f"/api/agentmemory/sessions/{first}/extraction/").json()["status"]
             in ("succeeded", "failed"))
    second = new_session(api_client, "mom-brand")
    r = context(api_client, user_id="mom-brand", session_id=second, query=QUESTION, knowledge_bases=[seeded_kb])
    assert r.status_code == 200, r.content
    body = r.json()
    prompt = body["prompt"]
    memory = prompt.split("\n\n【用户记忆】\n")[1].split("\n\n【知识库检索结果】\n")[0]
    knowledge = prompt.split("\n\n【知识库检索结果】\n")[1].split("\n\n【当前问题】\n")[0]
    assert "母婴用品" in memory and "低成本" in memory
    assert "《联名活动案例》" in knowledge and "《低成本活动预算模板》" in knowledge
    assert prompt.index("【用户记忆】\n") < prompt.index("【知识库检索结果】\n") < prompt.index("【当前问题】\n")
    assert prompt.endswith("【当前问题】\n" + QUESTION)
    memories = body["sections"]["profile"] + body["sections"]["long_term_memory"]
    assert all(m["ref"]["source"] == "user_stated" for m in memories)


@pytest.mark.django_db
def test_follow_up_routes_to_continuation_and_recent_turns_dominate(api_client, seeded_kb):
    session = new_session(api_client, "u-cont", [
        ("user", "联名活动一般怎么做？"),
        ("assistant", "可以从三步入手：一、选品牌调性相近的伙伴；二、共享会员渠道；三、做限定联名礼盒。"),
        ("user", "第三步的限定礼盒成本高吗？"),
        ("assistant", "限定礼盒可以用现有产品重新包装，成本主要在包装设计和赠品上，大约每套三十元。"),
    ])
    r = context(api_client, user_id="u-cont", session_id=session, query="刚才那个再展开说说")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["route"] == "continuation"
    assert "刚才" in body["trace"]["route"]["matched"]["continuation"]
    assert set(body["trace"]["layers"]) == {"profile", "working_memory"}
    turns = [it for it in body["sections"]["working_memory"] if it["kind"] == "turn"]
    assert [t["ref"]["seq"] for t in turns] == [1, 2, 3, 4]
    assert turns[-1]["score"] == max(t["score"] for t in turns) == pytest.approx(1.2)
    counts = body["token_counts"]
    assert counts["working_memory"] > counts["knowledge"] + counts["long_term_memory"] + counts["profile"]
    history = body["prompt"].split("\n\n【对话历史】\n")[1]
    assert history.index("用户：联名活动一般怎么做？") < history.index("助手：限定礼盒可以用现有产品重新包装")
    assert history.endswith("【当前问题】\n刚才那个再展开说说")
    assert "【知识库检索结果】\n" not in body["prompt"]


@pytest.mark.django_db
def test_the_current_message_already_appended_is_shown_once(api_client):
    session = new_session(api_client, "u-dup", [("user", "你好"), ("assistant", "你好！"), ("user", "今天安排什么？")])
    body = context(api_client, user_id="u-dup", session_id=session, query="今天安排什么？").json()
    assert body["prompt"].count("今天安排什么？") == 1
    assert any(d["detail"] == "same as the current message" for d in body["trace"]["dropped"])


@pytest.mark.django_db
def test_session_of_another_user_is_not_found(api_client):
    session = new_session(api_client, "owner", [("user", "我的预算是五千元")])
    r = context(api_client, user_id="intruder", session_id=session, query="我的预算是多少？")
    assert r.status_code == 404
    assert "No session" in r.json()["detail"]
    assert "五千" not in r.content.decode()


@pytest.mark.django_db
def test_a_key_limited_to_one_agent_sees_neither_other_agents_nor_their_sessions(api_client):
    from rest_framework.test import APIClient

    from agentmemory.api_keys import create_api_key

    r = api_client.post("/api/agentmemory/sessions/", {"user_id": "shared", "agent_id": "sales"}, format="json")
    sales_session = r.json()["id"]
    _key, raw = create_api_key("support-only", agent_ids=["support"])
    support = APIClient()
    support.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    r = context(support, user_id="shared", agent_id="sales", query="你好")
    assert r.status_code == 403 and "sales" in r.json()["detail"]
    r = context(support, user_id="shared", agent_id="support", session_id=sales_session, query="你好")
    assert r.status_code == 404
    assert context(support, user_id="shared", agent_id="support", query="你好").status_code == 200

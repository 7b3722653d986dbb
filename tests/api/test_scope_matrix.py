"""One agent-scope rule, one matrix over every entry point: REST, tools/call, MCP over HTTP.

A key limited to agent ``a1`` acts for user ``u``. Agent ``a2`` has a private memory, a session with a
turn, and (written before the rule) a summary distilled from its memory. Through every entry point the
a1 key must see shared and a1's own memories, and nothing of a2: not its memory, not its turn, not a
summary or a source built from them; a2's session is unknown (404 / a NotFound tool error) wherever a
session id is accepted; the shared summary cannot be written by an agent-limited key.
"""
from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key
from agentmemory.memory.distill import distill_profile
from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryProfile
from agentmemory.types import MemoryDraft
from agentmemory.working.sessions import append_turn, create_session

# MCP runs its tools on a worker thread (its own database connection): committed data is needed.
pytestmark = pytest.mark.django_db(transaction=True)

API = "/api/agentmemory/"
A2_MEMORY, A2_TURN, A1_MEMORY, SHARED = "A2PRIVATEMEMO", "A2TURNWORDS", "A1OWNMEMO", "SHAREDHANGZHOU"


@pytest.fixture
def world():
    shared = write_memory("u", MemoryDraft(content=f"用户住在杭州 {SHARED}", type="fact", source="user_stated",
                                           key="home_city", confidence=0.95)).memory_id
    a2 = write_memory("u", MemoryDraft(content=f"用户的病历号是 {A2_MEMORY}", type="fact", source="user_stated",
                                       key="medical_record", confidence=0.95, agent_id="a2")).memory_id
    write_memory("u", MemoryDraft(content=f"用户喜欢简短回答 {A1_MEMORY}", type="preference", source="user_stated",
                                  key="reply_style", confidence=0.95, agent_id="a1"))
    session = create_session(user_id="u", agent_id="a2")
    append_turn(session, role="user", content=f"帮我查一下 {A2_TURN} 的结果")
    distill_profile("u")
    # A summary written before distillation left other agents' memories out: it names a2's memory.
    legacy_source = write_memory("u2", MemoryDraft(content=f"病历号 {A2_MEMORY}", type="fact", source="user_stated",
                                                   agent_id="a2")).memory_id
    MemoryProfile.objects.create(user_id="u2", summary=f"病历号 {A2_MEMORY}", summary_sources=[legacy_source])
    _key, raw = create_api_key("a1-key", scopes=["read", "write"], agent_ids=["a1"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return {"client": client, "session": str(session.pk), "a2_id": a2, "shared_id": shared}


# --- the entry points: each returns (status, text of the answer) -------------------------------

def rest_context(client, user, session=None):
    body = {"user_id": user, "query": "我的病历号和最近的问题是什么？"}
    if session:
        body["session_id"] = session
    response = client.post(f"{API}context/", body, format="json")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def tool_context(client, user, session=None):
    arguments = {"user_id": user, "query": "我的病历号和最近的问题是什么？", "session_id": session}
    response = client.post(f"{API}tools/call/", {"name": "get_context", "arguments": arguments}, format="json")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def _mcp(client, method: str, params: dict):
    response = client.post(f"{API}mcp/", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                           format="json", HTTP_ACCEPT="application/json, text/event-stream")
    assert response.status_code == 200, response.content
    return json.loads(response.content)["result"]


def mcp_context(client, user, session=None):
    result = _mcp(client, "tools/call", {"name": "get_context", "arguments": {
        "user_id": user, "query": "我的病历号和最近的问题是什么？", "session_id": session}})
    text = result["content"][0]["text"]
    status = 404 if result.get("isError") and text.startswith("NotFound") else (403 if result.get("isError") else 200)
    return status, text


def rest_profile(client, user, session=None):
    response = client.get(f"{API}users/{user}/profile/")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def mcp_profile(client, user, session=None):
    result = _mcp(client, "resources/read", {"uri": f"agentmemory://users/{user}/profile"})
    return 200, result["contents"][0]["text"]


def rest_search(client, user, session=None):
    response = client.post(f"{API}users/{user}/memories/search/", {"query": "病历号"}, format="json")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def tool_recall(client, user, session=None):
    response = client.post(f"{API}tools/call/", {"name": "recall", "arguments": {"user_id": user, "query": "病历号"}},
                           format="json")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def rest_list(client, user, session=None):
    response = client.get(f"{API}users/{user}/memories/")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


def mem0_get_all(client, user, session=None):
    response = client.get(f"{API}v1/memories/?user_id={user}")
    return response.status_code, json.dumps(response.json(), ensure_ascii=False)


READERS = [rest_context, tool_context, mcp_context, rest_profile, mcp_profile, rest_search, tool_recall, rest_list,
           mem0_get_all]
SESSION_TAKERS = [rest_context, tool_context, mcp_context]


@pytest.mark.parametrize("entry", READERS, ids=lambda f: f.__name__)
def test_an_agent_limited_key_reads_nothing_of_another_agent(world, entry):
    status, text = entry(world["client"], "u")
    assert status == 200, text
    assert A2_MEMORY not in text and A2_TURN not in text
    assert f'"{world["a2_id"]}"' not in text and f"#{world['a2_id']}" not in text
    if entry not in (rest_search, tool_recall):  # those answer the query; the rest list what is there
        assert SHARED in text or "杭州" in text


@pytest.mark.parametrize("entry", SESSION_TAKERS, ids=lambda f: f.__name__)
def test_another_agents_session_is_unknown_at_every_entry_point(world, entry):
    status, text = entry(world["client"], "u", world["session"])
    assert status == 404, text
    assert A2_TURN not in text


def test_rest_session_detail_agrees(world):
    response = world["client"].get(f"{API}sessions/{world['session']}/")
    assert response.status_code == 404


@pytest.mark.parametrize("entry", [rest_context, tool_context, mcp_context, rest_profile, mcp_profile],
                         ids=lambda f: f.__name__)
def test_a_summary_built_from_another_agents_memory_is_withheld(world, entry):
    status, text = entry(world["client"], "u2")
    assert status == 200, text
    assert A2_MEMORY not in text


def test_the_distilled_summary_and_its_sources_hold_only_shared_memories(world):
    profile = MemoryProfile.objects.get(user_id="u")
    assert SHARED in profile.summary and A2_MEMORY not in profile.summary and A1_MEMORY not in profile.summary
    assert profile.summary_sources == [world["shared_id"]]


def test_an_agent_limited_key_cannot_write_the_shared_summary(world):
    client = world["client"]
    put = client.put(f"{API}users/u/profile/summary/", {"summary": "a1 说了算"}, format="json")
    assert put.status_code == 403 and "every agent" in put.json()["detail"]
    assert client.post(f"{API}users/u/profile/summary/").status_code == 403
    assert MemoryProfile.objects.get(user_id="u").summary != "a1 说了算"


def test_an_unlimited_key_still_sees_every_agent(world, api_client):
    status, text = rest_list(api_client, "u")
    assert status == 200 and A2_MEMORY in text and A1_MEMORY in text
    status, text = tool_context(api_client, "u", world["session"])
    assert status == 200 and A2_TURN in text

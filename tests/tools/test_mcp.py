"""The MCP server through the SDK's own client: stdio (a subprocess) and streamable HTTP (a live server)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from django.db import connection

from agentmemory.api_keys import create_api_key

ROOT = Path(__file__).resolve().parents[2]
TOOL_NAMES = {"remember", "recall", "forget_memory", "search_knowledge", "get_context", "append_turn", "end_session",
              "context_feedback"}
pytestmark = pytest.mark.django_db(transaction=True)


async def _exercise(session) -> dict:
    """initialize, list, call each tool; return what the assertions need."""
    await session.initialize()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    remembered = await session.call_tool("remember", {"user_id": "u1", "content": "我们公司是做母婴用品的",
                                                      "key": "company_industry"})
    recalled = await session.call_tool("recall", {"user_id": "u1", "query": "帮我写一封营销邮件，公司做什么的？"})
    context = await session.call_tool("get_context", {"user_id": "u1", "query": "我们公司是做什么的？"})
    turn = await session.call_tool("append_turn", {"user_id": "u1", "content": "我们的预算是五万元"})
    sid = json.loads(turn.content[0].text)["session_id"]
    ended = await session.call_tool("end_session", {"session_id": sid})
    searched = await session.call_tool("search_knowledge", {"query": "功率"})
    memory_id = json.loads(remembered.content[0].text)["memory"]["id"]
    forgot = await session.call_tool("forget_memory", {"user_id": "u1", "memory_id": memory_id})
    denied = await session.call_tool("recall", {"user_id": "someone-else", "query": "x"})
    invalid = await session.call_tool("recall", {"user_id": "u1"})
    unknown = await session.call_tool("no_such_tool", {})
    templates = await session.list_resource_templates()
    profile = await session.read_resource("agentmemory://users/u1/profile")
    return {"tools": tools, "remembered": remembered, "recalled": recalled, "context": context, "ended": ended,
            "searched": searched, "forgot": forgot, "denied": denied, "invalid": invalid, "unknown": unknown,
            "templates": templates, "profile": profile}


def _check(result: dict) -> None:
    assert set(result["tools"]) == TOOL_NAMES
    assert all(t.description and t.inputSchema["type"] == "object" for t in result["tools"].values())
    assert not result["remembered"].isError
    recalled = json.loads(result["recalled"].content[0].text)
    assert recalled["memories"][0]["content"] == "我们公司是做母婴用品的"
    # Readable UTF-8 JSON for the model, as REST tools/call gives it; the same object as structured content.
    assert "我们公司是做母婴用品的" in result["recalled"].content[0].text and "\\u" not in result["recalled"].content[0].text
    assert result["recalled"].structuredContent == recalled
    context = json.loads(result["context"].content[0].text)
    assert "【用户记忆】" in context["prompt"] and "母婴用品" in context["prompt"]
    assert json.loads(result["ended"].content[0].text)["status"] == "ended"
    assert not result["searched"].isError and not result["forgot"].isError
    for bad in ("denied", "invalid", "unknown"):
        assert result[bad].isError, bad
    assert "may not act for user" in result["denied"].content[0].text
    assert "query" in result["invalid"].content[0].text
    assert result["templates"].resourceTemplates[0].uriTemplate == "agentmemory://users/{user_id}/profile"
    assert json.loads(result["profile"].contents[0].text)["user_id"] == "u1"


def test_stdio_server_round_trips_through_the_sdk_client():
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    _key, raw = create_api_key("mcp-stdio", user_ids=["u1"])
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "agentmemory_mcp"], cwd=str(ROOT),
        env={**os.environ, "AGENTMEMORY_API_KEY": raw, "AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"],
             "OMP_NUM_THREADS": "1", "DJANGO_SETTINGS_MODULE": "project.settings"})

    async def main():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await _exercise(session)

    _check(anyio.run(main))


def test_streamable_http_with_a_key_and_refused_without(live_server):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    _key, raw = create_api_key("mcp-http", user_ids=["u1"])
    url = f"{live_server.url}/api/agentmemory/mcp/"

    async def main(headers):
        async with streamablehttp_client(url, headers=headers) as (read, write, _), \
                ClientSession(read, write) as session:
            return await _exercise(session)

    _check(anyio.run(main, {"Authorization": f"Bearer {raw}"}))

    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, method="POST", data=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401
    assert json.loads(refused.value.read())["error"] == "not_authenticated"

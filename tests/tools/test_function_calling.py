"""OpenAI-style tool schemas from the serializers, and the dispatcher running a model's tool call."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from agentmemory.memory.write import write_memory
from agentmemory.tools.registry import TOOLS
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def _facts():
    for content, key in (("公司做母婴用品", "company_industry"), ("预算是五万元", "budget"),
                         ("喜欢简短的回答", "reply_style"), ("团队有十二个人", "team_size")):
        write_memory("u1", MemoryDraft(content=content, type="fact", key=key, source="user_stated"))


def test_schemas_come_from_the_serializers(api_client):
    listed = api_client.get(f"{API}tools/").json()["tools"]
    assert [t["function"]["name"] for t in listed] == list(TOOLS)
    recall = next(t["function"] for t in listed if t["function"]["name"] == "recall")
    params = recall["parameters"]
    assert params["required"] == ["user_id", "query"] and params["additionalProperties"] is False
    assert params["properties"]["top_k"] == {"type": "integer", "minimum": 1, "maximum": 50}
    out = io.StringIO()
    call_command("agentmemory_tool_schemas", stdout=out)
    assert json.loads(out.getvalue()) == listed
    out = io.StringIO()
    call_command("agentmemory_tool_schemas", "--format", "mcp", stdout=out)
    assert json.loads(out.getvalue())[1]["inputSchema"] == params


def test_a_recall_tool_call_returns_what_the_rest_search_returns(api_client):
    _facts()
    query = "我们的预算和公司是做什么的？"
    rest = api_client.post(f"{API}users/u1/memories/search/", {"query": query, "top_k": 5}, format="json").json()
    call = {"name": "recall", "arguments": json.dumps({"user_id": "u1", "query": query}, ensure_ascii=False)}
    answer = api_client.post(f"{API}tools/call/", call, format="json")
    assert answer.status_code == 200, answer.json()
    result = answer.json()["result"]
    assert [m["id"] for m in result["memories"]] == [m["id"] for m in rest["results"]]
    assert json.loads(answer.json()["content"]) == result
    # An OpenAI tool_calls item works as is, and its id comes back for the tool message.
    item = {"id": "call_1", "type": "function", "function": call}
    assert api_client.post(f"{API}tools/call/", item, format="json").json()["tool_call_id"] == "call_1"


def test_tool_calls_are_checked_like_rest(api_client):
    from rest_framework.test import APIClient

    from agentmemory.api_keys import create_api_key

    _key, raw = create_api_key("u1-only", scopes=["read"], user_ids=["u1"])
    limited = APIClient()
    limited.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    denied = limited.post(f"{API}tools/call/", {"name": "recall", "arguments": {"user_id": "u2", "query": "x"}},
                          format="json")
    assert denied.status_code == 403 and denied.json()["error"] == "permission_denied"
    no_scope = limited.post(f"{API}tools/call/", {"name": "remember", "arguments": {"user_id": "u1",
                                                                                    "content": "x"}}, format="json")
    assert no_scope.status_code == 403 and "write" in no_scope.json()["detail"]
    bad = api_client.post(f"{API}tools/call/", {"name": "recall", "arguments": "{not json"}, format="json")
    assert bad.status_code == 400
    missing = api_client.post(f"{API}tools/call/", {"name": "recall", "arguments": {"user_id": "u1"}}, format="json")
    assert missing.status_code == 400 and missing.json()["field"] == "query"
    assert api_client.post(f"{API}tools/call/", {"name": "nope"}, format="json").status_code == 404
    assert APIClient().post(f"{API}tools/call/", {"name": "recall"}, format="json").status_code == 401

"""The context ledger: each context recorded (unless asked not to), listed per user, forgotten with the user,
purged after its retention by the beat job."""
from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from agentmemory.api_keys import create_api_key
from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, ContextRecord
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def _fact(user: str, text: str, key: str) -> int:
    return write_memory(user, MemoryDraft(content=text, type="fact", key=key, source="user_stated",
                                          confidence=0.95)).memory_id


def test_a_context_is_recorded_with_what_it_carried_and_found_again(api_client):
    employer = _fact("alice", "用户在腾讯工作", "employer")
    body = api_client.post(f"{API}context/", {"user_id": "alice", "agent_id": "support",
                                               "query": "我手机号13812345678，帮我写一封请假邮件"},
                           format="json").json()
    context_id = body["context_id"]
    assert context_id
    listed = api_client.get(f"{API}contexts/?user_id=alice").json()
    assert [row["id"] for row in listed] == [context_id]
    row = api_client.get(f"{API}contexts/{context_id}/").json()
    assert (row["user_id"], row["agent_id"], row["via"], row["route"]) == ("alice", "support", "rest", body["route"])
    assert "13812345678" not in row["query"] and "138****5678" in row["query"]  # PII redacted
    assert any(item["ref"].get("memory_id") == employer and item["marker"] for item in row["items"])
    assert row["token_counts"]["total"] == body["token_counts"]["total"] and row["prompt"] == ""
    assert row["timings_ms"]["total"] > 0

    # Not recorded when the request says so; filters by agent and date.
    off = api_client.post(f"{API}context/", {"user_id": "alice", "query": "再写一封", "record": False},
                          format="json").json()
    assert off["context_id"] is None and ContextRecord.objects.count() == 1
    assert api_client.get(f"{API}contexts/?user_id=alice&agent_id=other").json() == []
    tomorrow = (timezone.now() + dt.timedelta(days=1)).date().isoformat()
    assert api_client.get(f"{API}contexts/?user_id=alice&since={tomorrow}").json() == []
    assert api_client.get(f"{API}contexts/?user_id=alice&since=yesterday").status_code == 400
    assert api_client.get(f"{API}contexts/").status_code == 400


def test_the_prompt_is_kept_only_when_the_operator_enables_it(api_client, settings):
    settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "CONTEXT_LEDGER_PROMPT": True}
    _fact("pat", "用户的邮箱是 pat.lee@example.com", "email")
    body = api_client.post(f"{API}context/", {"user_id": "pat", "query": "我的邮箱是什么？"}, format="json").json()
    row = ContextRecord.objects.get(pk=body["context_id"])
    assert "【当前问题】" in row.prompt and "pat.lee@example.com" not in row.prompt
    settings.AGENTMEMORY = {**settings.AGENTMEMORY, "CONTEXT_LEDGER": False}
    assert api_client.post(f"{API}context/", {"user_id": "pat", "query": "再问一次"},
                           format="json").json()["context_id"] is None


def test_a_caller_sees_only_the_users_it_acts_for(api_client, client):
    _fact("bob", "bob 住在宁波", "city")
    bob_context = api_client.post(f"{API}context/", {"user_id": "bob", "query": "我住在哪？"},
                                  format="json").json()["context_id"]
    _key, raw = create_api_key("alice-device", scopes=["read", "write"], user_ids=["alice"])
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert client.get(f"{API}contexts/?user_id=bob", **auth).status_code == 403
    assert client.get(f"{API}contexts/{bob_context}/", **auth).status_code == 404
    assert client.get(f"{API}contexts/?user_id=alice", **auth).status_code == 200


def test_forgetting_a_user_removes_their_ledger_and_the_beat_job_purges_old_rows(api_client):
    from agentmemory.memory.forget import forget_user
    from agentmemory.tasks import purge_contexts

    _fact("carol", "carol 养了一只猫", "pet")
    for query in ("我的猫叫什么", "帮我写封信"):
        api_client.post(f"{API}context/", {"user_id": "carol", "query": query}, format="json")
    api_client.post(f"{API}context/", {"user_id": "dan", "query": "你好"}, format="json")
    receipt = forget_user("carol", reason="test")
    assert receipt.counts.get("contextrecord") == 2
    assert not ContextRecord.objects.for_user("carol").exists()

    ContextRecord.objects.for_user("dan").update(created_at=timezone.now() - dt.timedelta(days=31))
    api_client.post(f"{API}context/", {"user_id": "dan", "query": "今天几号"}, format="json")
    result = purge_contexts.delay().get()
    assert result["deleted"] == 1 and result["retention_days"] == 30.0
    assert ContextRecord.objects.for_user("dan").count() == 1
    assert AuditEvent.objects.filter(action="ledger.purge").exists()


def test_the_tool_path_records_too(api_client):
    _fact("erin", "erin 在杭州", "city")
    response = api_client.post(f"{API}tools/call/", {"name": "get_context", "arguments": {
        "user_id": "erin", "query": "我在哪个城市"}}, format="json")
    assert response.status_code == 200, response.content
    assert ContextRecord.objects.for_user("erin").get().via == "tool"


def test_the_admin_lists_a_users_contexts_and_draws_a_sample(api_client, admin_client):
    _fact("gus", "gus 在深圳", "city")
    for query in ("我在哪个城市", "帮我写封信", "今天天气"):
        api_client.post(f"{API}context/", {"user_id": "gus", "query": query}, format="json")
    page = admin_client.get("/admin/agentmemory/contextrecord/?q=gus").content.decode()
    assert page.count("gus") >= 3 and "sample/" in page
    record = ContextRecord.objects.for_user("gus").order_by("created_at").first()
    detail = admin_client.get(f"/admin/agentmemory/contextrecord/{record.pk}/change/").content.decode()
    assert "我在哪个城市" in detail and f"memory:{record.items[0]['ref'].get('memory_id')}" in detail
    sample = admin_client.get("/admin/agentmemory/contextrecord/sample/?n=2&days=1").content.decode()
    assert sample.count("/change/") == 2 and "/ 3" in sample
    personal = admin_client.get("/admin/agentmemory/contextrecord/sample/?n=10&route=personal").content.decode()
    assert all(row.route == "personal" for row in ContextRecord.objects.filter(
        pk__in=[int(pk) for pk in __import__("re").findall(r"contextrecord/(\d+)/change/", personal)]))

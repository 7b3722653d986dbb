"""Who may do what: end users read and correct only their own memories; API keys limited to agents."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key
from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/users"


@pytest.fixture
def end_user_client(settings):
    # The memory user "lin" is the username here: the resolver of earlier releases, still supported
    # (the default, the primary key, is tested in test_identity_and_erasure.py).
    settings.AGENTMEMORY = {**settings.AGENTMEMORY, "USER_ID_RESOLVER": "agentmemory.api.access.username_as_user_id"}
    user = get_user_model().objects.create_user("lin", password="pw")
    client = APIClient()
    client.force_login(user)
    return client


def _write(user, content, **kw):
    kw.setdefault("type", "fact")
    kw.setdefault("source", "user_stated")
    return write_memory(user, MemoryDraft(content=content, **kw)).memory_id


def test_end_user_reads_and_corrects_only_their_own_memories(end_user_client):
    mine = _write("lin", "公司行业是母婴用品", key="company_industry", source="model_inferred", confidence=0.7)
    theirs = _write("other", "预算 5000 以内", key="budget")

    listed = end_user_client.get(f"{BASE}/lin/memories/")
    assert listed.status_code == 200 and [m["id"] for m in listed.json()["results"]] == [mine]
    assert end_user_client.get(f"{BASE}/lin/profile/").status_code == 200
    assert end_user_client.get(f"{BASE}/other/memories/").status_code == 403
    assert end_user_client.get(f"{BASE}/other/memories/{theirs}/").status_code == 403
    assert end_user_client.post(f"{BASE}/other/memories/", {"content": "x", "type": "fact",
                                                           "source": "user_stated"}, format="json").status_code == 403
    assert end_user_client.delete(f"{BASE}/other/").status_code == 403
    assert MemoryItem.objects.for_user("other").get(pk=theirs).status == "active"

    # The correction is a new version, stated by the user, superseding the old one.
    fixed = end_user_client.patch(f"{BASE}/lin/memories/{mine}/", {"content": "公司行业是跨境电商"}, format="json")
    assert fixed.status_code == 200, fixed.json()
    body = fixed.json()
    assert body["action"] == "superseded_previous" and body["superseded_ids"] == [mine]
    assert body["memory"]["source"] == "user_stated" and body["memory"]["supersedes"] == mine
    assert MemoryItem.objects.for_user("lin").get(pk=mine).status == "superseded"
    event = AuditEvent.objects.for_user("lin").get(action="edit")
    assert event.actor == f"user:{get_user_model().objects.get(username='lin').pk}" and event.before["content"] == "公司行业是母婴用品"

    deleted = end_user_client.delete(f"{BASE}/lin/memories/{body['memory']['id']}/")
    assert deleted.status_code == 200 and deleted.json()["kind"] == "memory"
    assert end_user_client.get(f"{BASE}/lin/memories/").json()["count"] == 0
    assert MemoryItem.objects.for_user("other").get(pk=theirs).status == "active"


def test_end_user_states_a_fact_about_themself_and_can_forget_themself(end_user_client):
    wrote = end_user_client.post(f"{BASE}/lin/memories/", {"content": "我们公司在杭州", "type": "fact",
                                                          "key": "company_city", "source": "model_inferred"},
                                 format="json")
    assert wrote.status_code == 201, wrote.json()
    # Whatever the body claims, what a user writes about themself is user_stated, and attributed to them.
    assert wrote.json()["memory"]["source"] == "user_stated"
    assert AuditEvent.objects.for_user("lin").get(action="create").actor == f"user:{get_user_model().objects.get(username='lin').pk}"

    receipt = end_user_client.delete(f"{BASE}/lin/")
    assert receipt.status_code == 200 and receipt.json()["kind"] == "user"
    assert not MemoryItem.objects.for_user("lin").exclude(status="deleted").exists()


def test_api_key_limited_to_an_agent_sees_shared_and_its_own_items_only():
    _key, raw = create_api_key("sales-bot", agent_ids=["sales"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    shared = _write("u", "公司行业是母婴用品", key="company_industry")
    own = _write("u", "客户喜欢先看报价", key="quote_first", type="preference", agent_id="sales")
    foreign = _write("u", "工单系统用 Jira", key="ticket_system", agent_id="support")

    assert {m["id"] for m in client.get(f"{BASE}/u/memories/").json()["results"]} == {shared, own}
    assert client.get(f"{BASE}/u/memories/{foreign}/").status_code == 404
    hits = client.post(f"{BASE}/u/memories/search/", {"query": "工单系统 Jira", "top_k": 10}, format="json").json()
    assert foreign not in [h["id"] for h in hits["results"]]
    # Addressed by id alone (the mem0 verbs), another agent's memory does not exist for the key either.
    for path in (f"{foreign}/", f"{foreign}/history/"):
        assert client.get(f"/api/agentmemory/v1/memories/{path}").status_code == 404
    assert client.get(f"/api/agentmemory/v1/memories/{own}/history/").status_code == 200
    assert [f["memory_id"] for f in client.get(f"{BASE}/u/profile/").json()["facts"]] == [shared, own]
    denied = client.post(f"{BASE}/u/memories/", {"content": "工单系统改用 Linear", "type": "fact",
                                                 "source": "user_stated", "agent_id": "support"}, format="json")
    assert denied.status_code == 403
    assert client.delete(f"{BASE}/u/").status_code == 403
    assert MemoryItem.objects.for_user("u").count() == 3


def test_patch_with_unknown_field_or_bad_status_is_400_and_nothing_changes(api_client):
    item = _write("p", "预算 5000 以内", key="budget")
    for body in ({"embedding": [0.1]}, {"status": "deleted"}, {"confidence": 2}, {"type": "opinion"}):
        response = api_client.patch(f"{BASE}/p/memories/{item}/", body, format="json")
        assert response.status_code == 400, (body, response.json())
    assert api_client.patch(f"{BASE}/p/memories/{item}/", {"status": "cold"}, format="json").json()["action"] == "updated"
    row = MemoryItem.objects.for_user("p").get(pk=item)
    assert row.status == "cold" and row.confidence == 0.8 and row.content == "预算 5000 以内"

"""Forgetting a user and deleting one memory: no content survives anywhere; the receipt remains."""
from __future__ import annotations

import hashlib

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from agentmemory.memory import cache
from agentmemory.memory.profile import get_profile, set_profile_summary
from agentmemory.models import AuditEvent, DeletionReceipt, MemoryItem, Session, Turn

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/users"


def rows_containing(text: str) -> dict[str, int]:
    """Rows of every agentmemory table whose text form contains ``text``."""
    found = {}
    with connection.cursor() as cursor:
        for model in apps.get_app_config("agentmemory").get_models():
            if model._meta.proxy or not model._meta.managed:
                continue
            table = connection.ops.quote_name(model._meta.db_table)
            cursor.execute(f"SELECT count(*) FROM {table} t WHERE t::text LIKE %s", [f"%{text}%"])
            count = cursor.fetchone()[0]
            if count:
                found[model._meta.label] = count
    return found


def _seed(api_client, user: str) -> None:
    api_client.post(f"{BASE}/{user}/memories/", {"content": "我们在用 Sybase 数据库", "type": "fact",
                                                 "key": "tech_stack", "source": "user_stated"}, format="json")
    api_client.post(f"{BASE}/{user}/memories/", {"content": "已经全部迁到 Sybasenext 了", "type": "fact",
                                                 "key": "tech_stack", "source": "user_stated"}, format="json")
    set_profile_summary(user, "Sybase 老用户")
    session = Session.objects.create(user_id=user)
    Turn.objects.create(session=session, user_id=user, seq=1, role="user", content="我们在用 Sybase 数据库")


def test_forget_user_removes_every_row_and_keeps_a_receipt(api_client):
    _seed(api_client, "zoe")
    _seed(api_client, "other")
    assert get_profile("zoe")["summary"] == "Sybase 老用户"  # now cached
    assert rows_containing("Sybase")

    response = api_client.delete(f"{BASE}/zoe/?reason=gdpr")
    assert response.status_code == 200
    receipt = response.json()
    assert receipt["kind"] == "user" and receipt["reason"] == "gdpr"
    assert receipt["counts"]["memoryitem"] == 2 and receipt["counts"]["turn"] == 1
    assert receipt["counts"]["session"] == 1 and receipt["counts"]["memoryprofile"] == 1
    assert receipt["counts"]["auditevent"] >= 3
    assert "Sybase" not in repr(receipt)

    # No row of any agentmemory table mentions zoe or holds her content; the other user's data stays.
    for model in apps.get_app_config("agentmemory").get_models():
        if any(f.name == "user_id" for f in model._meta.get_fields()):
            assert not model._base_manager.filter(user_id="zoe").exists(), model
    assert MemoryItem.objects.for_user("other").count() == 2
    assert Turn.objects.for_user("other").count() == 1
    assert cache.cache_get("zoe", "profile:*") is None
    assert get_profile("zoe") == {"user_id": "zoe", "summary": "", "summary_updated_at": None, "summary_method": "",
                                  "summary_sources": [], "facts": []}
    assert DeletionReceipt.objects.filter(
        subject_digest=hashlib.sha256(b"zoe").hexdigest(), kind="user").count() == 1
    assert AuditEvent.objects.filter(action="forget_user", object_id=str(receipt["id"])).exists()


def test_no_content_survives_forgetting_when_alone(api_client):
    _seed(api_client, "solo")
    api_client.delete(f"{BASE}/solo/")
    assert rows_containing("Sybase") == {}
    assert rows_containing("solo") == {}


def test_delete_one_memory_removes_its_versions_and_their_history_content(api_client):
    _seed(api_client, "yan")
    current = MemoryItem.objects.for_user("yan").active().get()
    response = api_client.delete(f"{BASE}/yan/memories/{current.pk}/")
    assert response.status_code == 200
    assert response.json()["kind"] == "memory" and response.json()["counts"]["memory_items"] == 2
    assert api_client.get(f"{BASE}/yan/memories/").json()["count"] == 0
    assert api_client.get(f"{BASE}/yan/memories/{current.pk}/").status_code == 404
    leftovers = rows_containing("Sybase")
    # Only the raw turn and the profile summary (not memories) still say it; no memory row or its history.
    assert "agentmemory.MemoryItem" not in leftovers
    memory_events = AuditEvent.objects.for_user("yan").filter(object_type="memory")
    assert memory_events.count() >= 4
    assert all("Sybase" not in repr([e.before, e.after]) for e in memory_events)
    assert AuditEvent.objects.for_user("yan").filter(action="delete").exists()


def test_forget_command_prints_the_receipt(api_client):
    import io

    _seed(api_client, "cmd-user")
    out = io.StringIO()
    call_command("agentmemory_forget_user", "cmd-user", "--reason", "ticket 42", stdout=out)
    assert "receipt" in out.getvalue() and "memoryitem: 2" in out.getvalue()
    assert MemoryItem.objects.for_user("cmd-user").count() == 0

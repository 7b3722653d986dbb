"""Who a logged-in user is to the memory (the primary key), what deleting an account does, and erasure that
reaches Django's own tables: the admin's log, checked by a scan of every table of the database."""
from __future__ import annotations

import io

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from agentmemory.memory.write import write_memory
from agentmemory.models import DeletionReceipt, MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def rows_mentioning_anywhere(needle: str) -> dict[str, int]:
    """Per table of the whole database (every app's, Django's own included), the rows holding ``needle``."""
    found = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            quoted = connection.ops.quote_name(table)
            cursor.execute(f"SELECT count(*) FROM {quoted} t WHERE strpos(t::text, %s) > 0", [needle])
            count = cursor.fetchone()[0]
            if count:
                found[table] = count
    return found


def _login(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_a_logged_in_user_is_keyed_by_primary_key_through_an_email_change_and_a_reused_address():
    User = get_user_model()
    alice = User.objects.create_user("alice@example.com", email="alice@example.com", password="pw")
    client = _login(alice)
    me = client.get(f"{API}whoami/").json()
    assert me["memory_user_id"] == str(alice.pk)
    wrote = client.post(f"{API}users/{alice.pk}/memories/", {"content": "A 的病历号是 A-1234", "type": "fact",
                                                         "source": "user_stated"},
                        format="json")
    assert wrote.status_code == 201, wrote.json()

    # She changes her login address: her memory stays hers.
    alice.username = alice.email = "alice.w@example.com"
    alice.save()
    listed = _login(alice).get(f"{API}users/{alice.pk}/memories/").json()
    assert [m["content"] for m in listed["results"]] == ["A 的病历号是 A-1234"]

    # Someone registers her old address: a new account, a new memory user, nothing of hers.
    newcomer = User.objects.create_user("alice@example.com", email="alice@example.com", password="pw")
    other = _login(newcomer)
    assert other.get(f"{API}whoami/").json()["memory_user_id"] == str(newcomer.pk)
    assert other.get(f"{API}users/{newcomer.pk}/memories/").json()["count"] == 0
    assert other.get(f"{API}users/{alice.pk}/memories/").status_code == 403
    assert other.get(f"{API}users/alice@example.com/memories/").status_code == 403
    page = other.get("/memory/", follow=True)
    assert "A-1234" not in page.content.decode()


def test_deleting_a_host_account_forgets_its_memory_with_a_receipt():
    User = get_user_model()
    zed = User.objects.create_user("zed", password="pw")
    write_memory(str(zed.pk), MemoryDraft(content="我的车牌是 浙A-ZED99", type="fact", source="user_stated"))
    keeper = User.objects.create_user("keeper", password="pw")
    write_memory(str(keeper.pk), MemoryDraft(content="我住在宁波", type="fact", source="user_stated"))
    zed_id = str(zed.pk)

    zed.delete()

    assert not MemoryItem.objects.for_user(zed_id).exists()
    assert MemoryItem.objects.for_user(str(keeper.pk)).count() == 1
    receipt = DeletionReceipt.objects.get()
    assert receipt.kind == "user" and receipt.counts["memoryitem"] == 1
    assert receipt.reason == "the site's user account was deleted"


@override_settings(AGENTMEMORY={"FORGET_ON_USER_DELETE": False})
def test_forgetting_on_account_deletion_can_be_turned_off():
    user = get_user_model().objects.create_user("kept", password="pw")
    write_memory(str(user.pk), MemoryDraft(content="我住在宁波", type="fact", source="user_stated"))
    user_id = str(user.pk)
    user.delete()
    assert MemoryItem.objects.for_user(user_id).count() == 1 and not DeletionReceipt.objects.exists()


def test_the_migration_command_moves_username_keyed_memories_to_the_primary_key():
    User = get_user_model()
    lin = User.objects.create_user("lin@example.com", password="pw")
    ghost = User.objects.create_user("ghost", password="pw")
    write_memory("lin@example.com", MemoryDraft(content="我对花生过敏", type="fact", source="user_stated"))
    write_memory(str(ghost.pk), MemoryDraft(content="已经在新 id 下", type="fact", source="user_stated"))
    write_memory("ghost", MemoryDraft(content="旧 id 下的记忆", type="fact", source="user_stated"))

    dry = io.StringIO()
    call_command("agentmemory_migrate_user_ids", "--dry-run", stdout=dry, stderr=io.StringIO())
    assert "would_move" in dry.getvalue() and MemoryItem.objects.for_user("lin@example.com").count() == 1

    out, err = io.StringIO(), io.StringIO()
    call_command("agentmemory_migrate_user_ids", stdout=out, stderr=err)
    assert not MemoryItem.objects.for_user("lin@example.com").exists()
    assert [m.content for m in MemoryItem.objects.for_user(str(lin.pk))] == ["我对花生过敏"]
    # Two people's memories are never merged: the target already had data, so nothing moved.
    assert "already holds memories" in err.getvalue()
    assert MemoryItem.objects.for_user("ghost").count() == 1
    page = _login(lin).get(f"{API}users/{lin.pk}/memories/").json()
    assert page["count"] == 1


def test_user_ids_with_a_slash_are_refused_at_creation_with_a_clear_400(api_client):
    for response in (
        api_client.post(f"{API}sessions/", {"user_id": "team/alice"}, format="json"),
        api_client.post(f"{API}context/", {"user_id": "team/alice", "query": "hi"}, format="json"),
        api_client.post(f"{API}v1/memories/", {"user_id": "team/alice", "messages": "我住在杭州"}, format="json"),
        api_client.post(f"{API}tools/call/", {"name": "remember", "arguments": {"user_id": "team/alice",
                                                                                 "content": "我住在杭州"}},
                        format="json"),
    ):
        assert response.status_code == 400, response.content
        body = response.json()
        assert "'/'" in json_text(body) and body.get("field", "user_id") == "user_id"


def json_text(body) -> str:
    import json

    return json.dumps(body, ensure_ascii=False)


@override_settings(AGENTMEMORY={"USER_ID_RESOLVER": "agentmemory.api.access.username_as_user_id"})
def test_a_username_with_a_slash_has_no_memory_user_instead_of_a_500():
    user = get_user_model().objects.create_user("team/alice", password="pw")
    client = _login(user)
    assert client.get(f"{API}whoami/").json()["memory_user_id"] is None
    assert client.get("/memory/").status_code == 403


def test_erasure_reaches_the_admin_log_and_no_table_of_the_database_keeps_the_text(admin_client, api_client):
    user, secret = "zed-4c1f", "ZEDPLATE77"
    pk = write_memory(user, MemoryDraft(content=f"我的车牌是 {secret}", type="fact", source="user_stated")).memory_id
    # An operator edits the memory in the admin: Django logs the object's text.
    url = reverse("admin:agentmemory_memoryitem_change", args=[pk])
    form = {"agent_id": "", "type": "fact", "key": "", "content": f"我的车牌是 {secret}-2", "value": "null",
            "source": "user_stated", "confidence": "0.9", "status": "active", "tags": "{}"}
    assert admin_client.post(url, form).status_code == 302
    assert LogEntry.objects.filter(object_repr__contains=secret).exists()
    before = rows_mentioning_anywhere(secret)
    assert "django_admin_log" in before, before

    receipt = api_client.delete(f"{API}users/{user}/")
    assert receipt.status_code == 200
    assert receipt.json()["counts"]["admin_log_entries"] >= 1
    assert rows_mentioning_anywhere(secret) == {}
    assert rows_mentioning_anywhere(user) == {}


def test_deleting_one_memory_removes_its_admin_log_entries(admin_client, api_client):
    pk = write_memory("yan", MemoryDraft(content="我的护照号是 PASSYAN1", type="fact", source="user_stated")).memory_id
    form = {"agent_id": "", "type": "fact", "key": "", "content": "我的护照号是 PASSYAN2", "value": "null",
            "source": "user_stated", "confidence": "0.9", "status": "active", "tags": "{}"}
    admin_client.post(reverse("admin:agentmemory_memoryitem_change", args=[pk]), form)
    new_id = MemoryItem.objects.for_user("yan").get(status="active").pk
    assert api_client.delete(f"{API}users/yan/memories/{new_id}/").status_code == 200
    assert not LogEntry.objects.filter(object_repr__contains="PASSYAN").exists()

"""agentmemory in a host whose users log in by e-mail (a custom user model), mounted at /ai/memory/.

The identity of a logged-in user is their primary key, so an e-mail change keeps their memories, an
address registered again by someone else reaches none of them, and deleting the account forgets them;
the erasure leaves nothing in any table of the host's database, Django's admin log included.
"""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from agentmemory.models import DeletionReceipt, MemoryItem

pytestmark = pytest.mark.django_db
API, PAGE = "/ai/memory/", "/ai/me/"


def _signed_in(email: str, password: str) -> APIClient:
    """A client signed in through the host's own login form, with the e-mail address."""
    client = APIClient()
    response = client.post("/accounts/login/", {"username": email, "password": password})
    assert response.status_code == 302, response.content[:300]
    return client


def _rows_anywhere(needle: str) -> dict[str, int]:
    found = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)} t WHERE strpos(t::text, %s) > 0",
                           [needle])
            if count := cursor.fetchone()[0]:
                found[table] = count
    return found


def test_the_memory_follows_the_account_not_its_address():
    User = get_user_model()
    assert User.USERNAME_FIELD == "email"
    alice = User.objects.create_user("a@example.com", password="alice-pass-1")
    client = _signed_in("a@example.com", "alice-pass-1")
    assert client.get(f"{API}whoami/").json()["memory_user_id"] == str(alice.pk)
    wrote = client.post(f"{API}users/{alice.pk}/memories/", {"content": "A 的病历号是 A-1234", "type": "fact",
                                                              "source": "user_stated"}, format="json")
    assert wrote.status_code == 201, wrote.json()
    assert client.get(PAGE).url == f"{PAGE}{alice.pk}/"

    # Her address changes: the same memories, through the API and her page.
    alice.email = "alice.w@example.com"
    alice.save()
    client = _signed_in("alice.w@example.com", "alice-pass-1")
    assert [m["content"] for m in client.get(f"{API}users/{alice.pk}/memories/").json()["results"]] == [
        "A 的病历号是 A-1234"]
    assert "A-1234" in client.get(f"{PAGE}{alice.pk}/").content.decode()

    # Someone registers her old address: nothing of hers, by any path.
    User.objects.create_user("a@example.com", password="mallory-pass-1")
    mallory = _signed_in("a@example.com", "mallory-pass-1")
    me = mallory.get(f"{API}whoami/").json()["memory_user_id"]
    assert me != str(alice.pk)
    assert mallory.get(f"{API}users/{me}/memories/").json()["count"] == 0
    for path in (f"{API}users/{alice.pk}/memories/", f"{API}users/a@example.com/memories/"):
        assert mallory.get(path).status_code == 403
    assert "A-1234" not in mallory.get(PAGE, follow=True).content.decode()
    assert mallory.get(f"{PAGE}{alice.pk}/").status_code == 404


def test_deleting_the_account_forgets_it_and_leaves_nothing_in_any_table():
    User = get_user_model()
    zed = User.objects.create_user("zed@example.com", password="zed-pass-1")
    client = _signed_in("zed@example.com", "zed-pass-1")
    client.post(f"{API}users/{zed.pk}/memories/", {"content": "我的车牌是 浙A-ZED42", "type": "fact",
                                                    "source": "user_stated"}, format="json")
    pk = MemoryItem.objects.for_user(str(zed.pk)).get().pk
    # An operator corrects it in the admin (Django logs the object's text).
    operator = User.objects.create_superuser("ops@example.com", password="ops-pass-1")
    admin = Client()
    admin.force_login(operator)
    form = {"agent_id": "", "type": "fact", "key": "", "content": "我的车牌是 浙A-ZED42X", "value": "null",
            "source": "user_stated", "confidence": "0.9", "status": "active", "tags": "{}"}
    assert admin.post(reverse("admin:agentmemory_memoryitem_change", args=[pk]), form).status_code == 302
    assert "django_admin_log" in _rows_anywhere("ZED42")

    zed.delete()

    assert _rows_anywhere("ZED42") == {}
    receipt = DeletionReceipt.objects.get(kind="user")
    assert receipt.counts["admin_log_entries"] >= 1 and receipt.reason == "the site's user account was deleted"


def test_anonymous_health_under_the_hosts_prefix_says_only_ok():
    assert APIClient().get(f"{API}health/").json() == {"status": "ok"}

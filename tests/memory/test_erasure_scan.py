"""Forgetting a user, verified: no row of any table of the database and no cache value holds their id or content."""
from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import override_settings

from agentmemory.models import DeletionReceipt

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"
USER = "erin-7f3a"
SECRET = "ERINSECRET"


def _rows_mentioning(*needles: str) -> dict[str, int]:
    """Per table of the whole database (every app's, Django's own included), the rows whose text (every
    column, cast as the whole row) holds a needle."""
    found = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            for needle in needles:
                cursor.execute(f'SELECT count(*) FROM "{table}" t WHERE strpos(t::text, %s) > 0', [needle])
                count = cursor.fetchone()[0]
                if count:
                    found[f"{table}:{needle}"] = count
    return found


def _cache_entries_mentioning(client, *needles: str) -> list[bytes]:
    hits = []
    for key in client.scan_iter(count=1000):
        value = client.get(key) if client.type(key) == b"string" else b""
        if any(n.encode() in key or n.encode() in (value or b"") for n in needles):
            hits.append(key)
    return hits


def test_after_forgetting_nothing_of_the_user_is_left_anywhere(api_client, redis_url):
    redis_cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url,
                               "KEY_PREFIX": "erasure-test"}}
    with override_settings(CACHES=redis_cache):
        raw = caches["default"]._cache.get_client(write=True)
        for key in raw.scan_iter(match="erasure-test:*"):
            raw.delete(key)
        # The user's data through every path: memories, a session with a remembered turn, extraction,
        # the profile and a context (both cached), a search (access statistics), a correction (history).
        made = api_client.post(f"{API}users/{USER}/memories/", {"content": f"我们公司的代号是 {SECRET}",
                               "type": "fact", "key": "company_code", "source": "user_stated"}, format="json")
        assert made.status_code == 201
        memory_id = made.json()["memory"]["id"]
        api_client.patch(f"{API}users/{USER}/memories/{memory_id}/", {"content": f"公司代号改成 {SECRET}-2"},
                         format="json")
        session = api_client.post(f"{API}sessions/", {"user_id": USER}, format="json").json()
        api_client.post(f"{API}sessions/{session['id']}/turns/",
                        {"role": "user", "content": f"记住：我的车牌是 {SECRET}-88"}, format="json")
        api_client.post(f"{API}sessions/{session['id']}/turns/", {"role": "assistant", "content": "好的"},
                        format="json")
        assert api_client.post(f"{API}sessions/{session['id']}/end/").status_code == 202
        assert api_client.get(f"{API}users/{USER}/profile/").status_code == 200
        assert api_client.post(f"{API}context/", {"user_id": USER, "query": "我的车牌和公司代号是什么？",
                                                  "session_id": session["id"]}, format="json").status_code == 200
        assert api_client.post(f"{API}users/{USER}/memories/search/", {"query": "车牌"},
                               format="json").status_code == 200
        before = _rows_mentioning(USER, SECRET)
        assert before and _cache_entries_mentioning(raw, USER, SECRET), "the scan must see the data first"

        receipt = api_client.delete(f"{API}users/{USER}/")
        assert receipt.status_code == 200

        assert _rows_mentioning(USER, SECRET) == {}, "rows of the forgotten user remain"
        assert _cache_entries_mentioning(raw, USER, SECRET) == []
        assert DeletionReceipt.objects.filter(pk=receipt.json()["id"]).exists()  # the receipt holds a digest

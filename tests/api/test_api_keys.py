"""API keys: created by the command (key alone on the last line), hashed, revocable; clear 401s."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from agentmemory.api_keys import hash_key
from agentmemory.models import ApiKey

pytestmark = pytest.mark.django_db


def _create(name: str) -> str:
    out = io.StringIO()
    call_command("agentmemory_create_api_key", name, stdout=out)
    return out.getvalue().strip().splitlines()[-1]


def test_key_from_command_authenticates_and_is_stored_hashed():
    raw = _create("crm-bot")
    row = ApiKey.objects.get(name="crm-bot")
    assert row.key_hash == hash_key(raw)
    assert raw not in {row.key_hash, row.prefix}
    client = APIClient()
    resp = client.get("/api/agentmemory/whoami/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert resp.status_code == 200
    assert resp.json()["name"] == "crm-bot"


def test_bad_missing_and_revoked_keys_get_clear_401():
    raw = _create("temp")
    client = APIClient()
    resp = client.get("/api/agentmemory/whoami/")
    assert resp.status_code in (401, 403)
    assert "detail" in resp.json()
    resp = client.get("/api/agentmemory/whoami/", HTTP_AUTHORIZATION="Bearer am_not-a-key")
    assert resp.status_code == 401
    assert resp.json() == {"error": "authentication_failed", "detail": "Invalid or revoked API key."}
    call_command("agentmemory_revoke_api_key", "temp", stdout=io.StringIO())
    resp = client.get("/api/agentmemory/whoami/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert resp.status_code == 401


def test_duplicate_name_is_a_command_error():
    _create("dup")
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="already exists"):
        _create("dup")


def test_staff_session_works_for_the_api(admin_client):
    resp = admin_client.get("/api/agentmemory/whoami/")
    assert resp.status_code == 200
    assert resp.json()["auth"] == "session"


def test_admin_creates_a_key_and_shows_it_once(admin_client):
    resp = admin_client.post("/admin/agentmemory/apikey/add/", {
        "name": "from-admin", "scopes": ["read", "write"], "agent_ids": "[]", "user_ids": '["ann"]',
        "user_id_prefix": ""}, follow=True)
    assert resp.status_code == 200
    messages = [str(m) for m in resp.context["messages"]]
    raw = next(m.split(": ")[-1] for m in messages if "from-admin" in m)
    key = ApiKey.objects.get(name="from-admin")
    assert key.key_hash == hash_key(raw)
    assert key.scopes == ["read", "write"] and key.user_ids == ["ann"]


def test_schema_and_swagger_are_served(client):
    # The app's own addresses, and the bundled project's earlier ones.
    for schema_url, docs_url in (("/api/agentmemory/schema/", "/api/agentmemory/docs/"),
                                 ("/api/schema/", "/api/docs/")):
        schema = client.get(schema_url, {"format": "json"})
        assert schema.status_code == 200
        assert "ApiKeyAuth" in schema.json()["components"]["securitySchemes"]
        swagger = client.get(docs_url)
        assert swagger.status_code == 200
        assert b"swagger-ui" in swagger.content
    assert client.get("/admin/login/").status_code == 200

"""health/: anonymous callers learn only ok/unavailable; versions go to authenticated callers."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db
URL = "/api/agentmemory/health/"


def test_anonymous_health_says_only_ok():
    response = APIClient().get(URL + "?vectors=1")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_a_wrong_key_is_answered_as_anonymous_not_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer am_wrong")
    response = client.get(URL)
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_an_authenticated_caller_sees_the_versions(api_client):
    body = api_client.get(URL + "?vectors=1").json()
    assert body["status"] == "ok" and body["version"] and body["pgvector"]
    assert "mixed_models" in body["vectors"]

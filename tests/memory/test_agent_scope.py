"""The one agent-scope check of the API (api/access.py): 403 for an agent named, 404 for another agent's
object addressed by id, 403 for a user-wide operation by an agent-limited key, 400 when one must be named."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key
from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db

API = "/api/agentmemory/"


def _client(**limits) -> APIClient:
    _key, raw = create_api_key(f"scoped-{'-'.join(limits['agent_ids'])}", scopes=["read", "write", "admin"],
                               **limits)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def test_agent_limited_keys_are_refused_user_wide_deletes_with_403():
    write_memory("u", MemoryDraft(content="住在苏州", type="fact", source="user_stated", agent_id="sales"))
    client = _client(agent_ids=["sales"])
    delete_all = client.delete(f"{API}v1/memories/?user_id=u")
    assert delete_all.status_code == 403 and delete_all.json()["error"] == "permission_denied"
    assert "one by one" in delete_all.json()["detail"]
    assert client.delete(f"{API}users/u/").status_code == 403
    assert MemoryItem.objects.for_user("u").current().count() == 1


def test_a_session_of_another_agent_is_not_found_and_another_agent_named_is_403():
    other = _client(agent_ids=["support"])
    session = other.post(f"{API}sessions/", {"user_id": "u"}, format="json").json()
    client = _client(agent_ids=["sales"])
    hidden = client.get(f"{API}sessions/{session['id']}/")
    assert hidden.status_code == 404 and hidden.json()["detail"] == f"Session {session['id']} does not exist."
    context = client.post(f"{API}context/", {"user_id": "u", "query": "x", "session_id": session["id"]},
                          format="json")
    assert context.status_code == 404 and "No session" in context.json()["detail"]
    named = client.post(f"{API}sessions/", {"user_id": "u", "agent_id": "support"}, format="json")
    assert named.status_code == 403 and "support" in named.json()["detail"]


def test_a_key_limited_to_several_agents_must_name_one_for_the_profile():
    client = _client(agent_ids=["sales", "support"])
    unnamed = client.get(f"{API}users/u/profile/")
    assert unnamed.status_code == 400 and unnamed.json()["field"] == "agent_id"
    assert client.get(f"{API}users/u/profile/?agent_id=sales").status_code == 200
    assert client.get(f"{API}users/u/profile/?agent_id=ops").status_code == 403

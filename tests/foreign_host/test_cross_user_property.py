"""Hypothesis drives principals, user ids and endpoints for cross-user reads: 0 leaks in 3,000 attempts."""
from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmemory.memory.write import write_memory
from agentmemory.types import MemoryDraft
from agentmemory.working.sessions import append_turn, create_session

from .conftest_data import API, SECRETS, Principal, build_world, client_for

pytestmark = pytest.mark.django_db

ALL_SECRETS = {**SECRETS, "t1:zoe": "ZOESECRET"}
PRINCIPALS = [
    Principal("alice", "user", own_user="alice"),
    Principal("bob", "user", own_user="bob"),
    Principal("key-alice-device", "key", scopes=("read", "write"), users=("alice",)),
    Principal("key-bob-read", "key", scopes=("read",), users=("bob",)),
    Principal("key-tenant-t1", "key", scopes=("read",), users=()),  # prefix key, see below
]
KNOWN_USERS = [*ALL_SECRETS, "Alice", "alice ", "ALICE", "t1:", "t1", "t2:zoe", "bob\u200b"]
READS = ["memories", "memory", "history", "search", "profile", "sessions", "session", "turns", "extraction",
         "context", "context-session", "mem0-get", "mem0-history", "mem0-search", "mem0-all", "tool-recall",
         "tool-context"]


def _may_act_for(principal: Principal, user_id: str) -> bool:
    """Whether ``principal`` may act for ``user_id``, given as a name of ALL_SECRETS or a memory user id."""
    if principal.name == "key-tenant-t1":
        return user_id.startswith("t1:")
    return principal.may_act_for(MEMORY_IDS.get(user_id, user_id), MEMORY_IDS)


#: alice's and bob's memory user ids (their Django primary keys), filled by the world fixture.
MEMORY_IDS: dict[str, str] = {}


@pytest.fixture
def world():
    built = build_world(with_knowledge=False)
    MEMORY_IDS.clear()
    MEMORY_IDS.update(built.ids)
    built.memory["t1:zoe"] = write_memory("t1:zoe", MemoryDraft(
        content=f"我的会员号是 {ALL_SECRETS['t1:zoe']}", type="fact", key="member", source="user_stated")).memory_id
    session = create_session(user_id="t1:zoe")
    append_turn(session, role="user", content=f"会员号 {ALL_SECRETS['t1:zoe']}")
    built.session["t1:zoe"] = str(session.pk)
    clients = {}
    for principal in PRINCIPALS:
        if principal.name == "key-tenant-t1":
            from rest_framework.test import APIClient

            from agentmemory.api_keys import create_api_key

            _key, raw = create_api_key(principal.name, scopes=["read"], user_id_prefix="t1:")
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        else:
            client = client_for(principal)
        clients[principal.name] = client
    return built, clients


def _request(client, endpoint: str, user_id: str, world, owner: str):
    u = quote(user_id, safe="")
    memory_id, session_id = world.memory[owner], world.session[owner]
    if endpoint == "memories":
        return client.get(f"{API}users/{u}/memories/")
    if endpoint == "memory":
        return client.get(f"{API}users/{u}/memories/{memory_id}/")
    if endpoint == "history":
        return client.get(f"{API}users/{u}/memories/{memory_id}/history/")
    if endpoint == "search":
        return client.post(f"{API}users/{u}/memories/search/", {"query": "代号 会员号 工号"}, format="json")
    if endpoint == "profile":
        return client.get(f"{API}users/{u}/profile/")
    if endpoint == "sessions":
        return client.get(f"{API}sessions/", {"user_id": user_id})
    if endpoint == "session":
        return client.get(f"{API}sessions/{session_id}/")
    if endpoint == "turns":
        return client.get(f"{API}sessions/{session_id}/turns/")
    if endpoint == "extraction":
        return client.get(f"{API}sessions/{session_id}/extraction/")
    if endpoint == "context":
        return client.post(f"{API}context/", {"user_id": user_id, "query": "我的代号和会员号是什么？"}, format="json")
    if endpoint == "mem0-get":
        return client.get(f"{API}v1/memories/{memory_id}/")
    if endpoint == "mem0-history":
        return client.get(f"{API}v1/memories/{memory_id}/history/")
    if endpoint == "mem0-search":
        return client.post(f"{API}v1/memories/search/", {"query": "代号 会员号", "user_id": user_id}, format="json")
    if endpoint == "mem0-all":
        return client.get(f"{API}v1/memories/", {"user_id": user_id})
    if endpoint in ("tool-recall", "tool-context"):
        name = "recall" if endpoint == "tool-recall" else "get_context"
        return client.post(f"{API}tools/call/", {"name": name, "arguments": {"user_id": user_id, "query": "代号"}},
                           format="json")
    # context for one user with another user's session id
    return client.post(f"{API}context/", {"user_id": user_id, "session_id": session_id, "query": "工号是多少？"},
                       format="json")


@settings(max_examples=3000, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(principal=st.sampled_from(PRINCIPALS), endpoint=st.sampled_from(READS),
       user_id=st.one_of(st.sampled_from(KNOWN_USERS), st.text(min_size=1, max_size=12)),
       owner=st.sampled_from(list(ALL_SECRETS)))
def test_no_principal_ever_reads_another_users_data(world, principal, endpoint, user_id, owner):
    built, clients = world
    user_id = MEMORY_IDS.get(user_id, user_id)  # alice and bob are known by their Django primary keys
    response = _request(clients[principal.name], endpoint, user_id, built, owner)
    body = response.content.decode("utf-8", "replace")
    assert response.status_code < 500, body[:300]
    for user, secret in ALL_SECRETS.items():
        if not _may_act_for(principal, user):
            assert secret not in body, f"{principal.name} read {user}'s data via {endpoint} as {user_id!r}"
    if response.status_code == 200 and endpoint not in ("session", "turns", "extraction", "mem0-get",
                                                           "mem0-history"):
        # Body fields are trimmed (as the serializers do); path segments are taken as they are.
        trimmed = ("sessions", "context", "context-session", "mem0-search", "mem0-all", "tool-recall", "tool-context")
        effective = user_id.strip() if endpoint in trimmed else user_id
        assert _may_act_for(principal, effective), f"{principal.name} was served {endpoint} for {user_id!r}"

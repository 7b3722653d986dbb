"""Every endpoint x every principal, inside a host whose REST_FRAMEWORK was left as it was.

The expected status follows the app's one permission model (README, "Security"): API keys by scope
and user list, staff by Django model permission, a non-staff user only as their own memory user;
a denial is JSON, 401 for no or dead credentials, 403 for not allowed, 404 where a session id must
not reveal that it exists. No response carries the content of a user the caller may not act for.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from .conftest_data import API, PRINCIPALS, SECRETS, Principal, build_world, client_for, uid

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: str  # formatted with the world: {m} alice's memory, {s} alice's session, {c} alice's recorded context,
    # {d} document, {j} job
    body: dict | None = None
    scope: str | None = None  # None: open to every authenticated principal (or to all, with public)
    perms: tuple[str, ...] = ()
    self_service: bool = False
    user_bound: bool = False  # acts on alice's data
    session_bound: bool = False  # alice's session by id: a stranger gets 404
    ok: int = 200
    knowledge: bool = False
    public: bool = False


def _p(*codenames: str) -> tuple[str, ...]:
    return tuple(f"agentmemory.{c}" for c in codenames)


MEM = dict(self_service=True, user_bound=True)
SES = dict(self_service=True, user_bound=True, session_bound=True)
KB = dict(knowledge=True)

ENDPOINTS = [
    Endpoint("health", "get", "health/", public=True),
    Endpoint("schema", "get", "schema/", public=True),
    Endpoint("swagger", "get", "docs/", public=True),
    Endpoint("whoami", "get", "whoami/"),
    Endpoint("memory-list", "get", "users/alice/memories/", scope="read", perms=_p("view_memoryitem"), **MEM),
    Endpoint("memory-create", "post", "users/alice/memories/",
             {"content": "预算是 8 万元", "type": "fact", "key": "budget", "source": "user_stated"},
             scope="write", perms=_p("add_memoryitem"), ok=201, **MEM),
    Endpoint("memory-detail", "get", "users/alice/memories/{m}/", scope="read", perms=_p("view_memoryitem"), **MEM),
    Endpoint("memory-patch", "patch", "users/alice/memories/{m}/", {"content": "总部在上海"}, scope="write",
             perms=_p("change_memoryitem"), **MEM),
    Endpoint("memory-delete", "delete", "users/alice/memories/{m}/", scope="write",
             perms=_p("delete_memoryitem"), **MEM),
    Endpoint("memory-history", "get", "users/alice/memories/{m}/history/", scope="read",
             perms=_p("view_memoryitem"), **MEM),
    Endpoint("memory-search", "post", "users/alice/memories/search/", {"query": "公司代号"}, scope="read",
             perms=_p("view_memoryitem"), **MEM),
    Endpoint("profile", "get", "users/alice/profile/", scope="read", perms=_p("view_memoryitem"), **MEM),
    Endpoint("forget-user", "delete", "users/alice/", scope="admin", perms=_p("forget_user"), **MEM),
    Endpoint("session-create", "post", "sessions/", {"user_id": "alice"}, scope="write",
             perms=_p("add_session"), ok=201, **MEM),
    Endpoint("session-list", "get", "sessions/?user_id=alice", scope="read", perms=_p("view_session"), **MEM),
    Endpoint("session-detail", "get", "sessions/{s}/", scope="read", perms=_p("view_session"), **SES),
    Endpoint("session-patch", "patch", "sessions/{s}/", {"task_state": {"step": 2}}, scope="write",
             perms=_p("change_session"), **SES),
    Endpoint("turn-list", "get", "sessions/{s}/turns/", scope="read", perms=_p("view_session"), **SES),
    Endpoint("turn-create", "post", "sessions/{s}/turns/", {"role": "user", "content": "记住：我喜欢简短的回答"},
             scope="write", perms=_p("add_turn"), ok=201, **SES),
    Endpoint("session-end", "post", "sessions/{s}/end/", scope="write", perms=_p("change_session"), ok=202, **SES),
    Endpoint("extraction", "get", "sessions/{s}/extraction/", scope="read", perms=_p("view_session"), **SES),
    Endpoint("context", "post", "context/", {"user_id": "alice", "query": "我们公司的代号是什么？"}, scope="read",
             perms=_p("view_memoryitem", "view_session"), **MEM),
    Endpoint("kb-list", "get", "knowledge-bases/", scope="read", perms=_p("view_knowledgebase"),
             self_service=True, **KB),
    Endpoint("kb-create", "post", "knowledge-bases/", {"slug": "faq", "name": "FAQ"}, scope="admin",
             perms=_p("add_knowledgebase"), ok=201, **KB),
    Endpoint("kb-detail", "get", "knowledge-bases/manual/", scope="read", perms=_p("view_knowledgebase"),
             self_service=True, **KB),
    Endpoint("kb-patch", "patch", "knowledge-bases/manual/", {"description": "new"}, scope="admin",
             perms=_p("change_knowledgebase"), **KB),
    Endpoint("document-list", "get", "knowledge-bases/manual/documents/", scope="read", perms=_p("view_document"),
             self_service=True, **KB),
    Endpoint("document-import", "post", "knowledge-bases/manual/documents/",
             {"title": "Y", "format": "markdown", "content": "# Y\nY-1 的电压是 12V。"}, scope="admin",
             perms=_p("add_document"), ok=201, **KB),
    Endpoint("document-detail", "get", "knowledge-bases/manual/documents/{d}/", scope="read",
             perms=_p("view_document"), self_service=True, **KB),
    Endpoint("document-chunks", "get", "knowledge-bases/manual/documents/{d}/chunks/", scope="read",
             perms=_p("view_document"), self_service=True, **KB),
    Endpoint("document-rollback", "post", "knowledge-bases/manual/documents/{d}/rollback/", {"version": 1},
             scope="admin", perms=_p("change_document"), **KB),
    # the review queue: nothing is held in this world, so an allowed decision is a clear 400
    Endpoint("held-versions", "get", "knowledge-bases/manual/held-versions/", scope="read",
             perms=_p("view_documentversion"), **KB),
    Endpoint("document-publish", "post", "knowledge-bases/manual/documents/{d}/publish/", {"version": 1},
             scope="admin", perms=_p("publish_version"), ok=400, **KB),
    Endpoint("document-discard", "post", "knowledge-bases/manual/documents/{d}/discard/", {}, scope="admin",
             perms=_p("publish_version"), ok=400, **KB),
    Endpoint("document-delete", "delete", "knowledge-bases/manual/documents/{d}/", scope="admin",
             perms=_p("delete_document"), **KB),
    Endpoint("kb-reembed", "post", "knowledge-bases/manual/reembed/", scope="admin",
             perms=_p("change_knowledgebase"), **KB),
    Endpoint("kb-search", "post", "knowledge-bases/manual/search/", {"query": "X-200 功率"}, scope="read",
             perms=_p("view_knowledgebase"), self_service=True, **KB),
    Endpoint("search", "post", "search/", {"query": "X-200 功率"}, scope="read", perms=_p("view_knowledgebase"),
             self_service=True, **KB),
    Endpoint("import-job", "get", "import-jobs/{j}/", scope="read", perms=_p("view_importjob"), **KB),
    Endpoint("evaluation-cases", "get", "knowledge-bases/manual/evaluation-cases/", scope="read",
             perms=_p("view_evaluationcase"), **KB),
    Endpoint("evaluation-case-create", "post", "knowledge-bases/manual/evaluation-cases/",
             {"query": "X-200 的功率", "expected_document_ids": ["{d}"]}, scope="admin",
             perms=_p("add_evaluationcase"), ok=201, **KB),
    Endpoint("evaluation-case-propose", "post", "knowledge-bases/manual/evaluation-cases/propose/", {},
             scope="admin", perms=_p("add_evaluationcase"), ok=201, **KB),
    Endpoint("evaluations", "get", "knowledge-bases/manual/evaluations/", scope="read",
             perms=_p("view_evaluationrun"), **KB),
    Endpoint("evaluation-run", "post", "knowledge-bases/manual/evaluations/", scope="admin",
             perms=_p("add_evaluationrun"), ok=201, **KB),
    # mem0-familiar verbs; a memory addressed by id alone is not found for a stranger
    Endpoint("mem0-add", "post", "v1/memories/", {"messages": "我住在杭州", "user_id": "alice", "infer": False},
             scope="write", perms=_p("add_memoryitem"), **MEM),
    Endpoint("mem0-get-all", "get", "v1/memories/?user_id=alice", scope="read", perms=_p("view_memoryitem"), **MEM),
    Endpoint("mem0-delete-all", "delete", "v1/memories/?user_id=alice", scope="write",
             perms=_p("delete_memoryitem"), **MEM),
    Endpoint("mem0-search", "post", "v1/memories/search/", {"query": "公司代号", "user_id": "alice"}, scope="read",
             perms=_p("view_memoryitem"), **MEM),
    Endpoint("mem0-get", "get", "v1/memories/{m}/", scope="read", perms=_p("view_memoryitem"), **SES),
    Endpoint("mem0-update", "put", "v1/memories/{m}/", {"text": "总部在上海"}, scope="write",
             perms=_p("change_memoryitem"), **SES),
    Endpoint("mem0-delete", "delete", "v1/memories/{m}/", scope="write", perms=_p("delete_memoryitem"), **SES),
    Endpoint("mem0-history", "get", "v1/memories/{m}/history/", scope="read", perms=_p("view_memoryitem"), **SES),
    # the context ledger: a user's own rows (a non-staff user its own), by the read scope
    Endpoint("contexts", "get", "contexts/?user_id=alice", scope="read", perms=_p("view_contextrecord"), **MEM),
    Endpoint("context-record", "get", "contexts/{c}/", scope="read", perms=_p("view_contextrecord"), **SES),
    Endpoint("context-feedback", "post", "contexts/{c}/feedback/", {"rating": 1}, scope="write",
             perms=_p("add_contextfeedback"), ok=201, **SES),
    Endpoint("context-usage", "get", "contexts/usage/?user_id=alice", scope="read",
             perms=_p("view_contextrecord"), **MEM),
    # function calling: the list is for any caller; each call is checked like the REST endpoint
    Endpoint("tools", "get", "tools/"),
    Endpoint("tool-call-recall", "post", "tools/call/", {"name": "recall", "arguments": {"user_id": "alice",
                                                                                      "query": "公司代号"}},
             scope="read", perms=_p("view_memoryitem"), **MEM),
]


def expected_status(principal: Principal, ep: Endpoint) -> int:
    if ep.public:
        return 200
    if principal.kind in ("anonymous", "dead_key"):
        return 401
    if ep.scope is None:
        return ep.ok
    if principal.kind == "key" and ep.scope not in principal.scopes:
        return 403
    if principal.kind == "staff" and not set(ep.perms) <= {f"agentmemory.{p}" for p in principal.perms}:
        return 403
    if principal.kind == "user" and not ep.self_service:
        return 403
    if ep.user_bound and not principal.may_act_for(uid("alice")):
        return 404 if ep.session_bound else 403
    return ep.ok


@pytest.mark.parametrize("ep", ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize("principal", PRINCIPALS, ids=lambda p: p.name)
def test_every_endpoint_for_every_principal(principal: Principal, ep: Endpoint):
    world = build_world(with_knowledge=ep.knowledge)
    client = client_for(principal)
    # The endpoints name alice by her name; the memory knows her by her Django primary key.
    path = API + ep.path.format(m=world.memory["alice"], s=world.session["alice"], c=world.context["alice"],
                                d=world.document,
                                j=world.job).replace("alice", world.ids["alice"])
    if ep.body is not None:
        body = {k: [world.document if v == "{d}" else v for v in value] if isinstance(value, list) else value
                for k, value in ep.body.items()}
        body = json.loads(json.dumps(body, ensure_ascii=False).replace('"alice"', f'"{world.ids["alice"]}"'))
        response = getattr(client, ep.method)(path, body, format="json")
    else:
        response = getattr(client, ep.method)(path)

    want = expected_status(principal, ep)
    body = response.content.decode("utf-8", "replace")
    assert response.status_code == want, f"{principal.name} {ep.method.upper()} {path}: {body[:300]}"
    if want in (401, 403, 404):
        payload = response.json()
        assert set(payload) >= {"error", "detail"}, payload
        if want == 401:
            assert response["WWW-Authenticate"] == "Bearer"
    for user, secret in SECRETS.items():
        if not principal.may_act_for(world.ids[user]):
            assert secret not in body, f"{principal.name} saw {user}'s data through {ep.name}"

"""The world of the foreign-host tests: two end users with secrets, a session, a knowledge base, principals."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone
from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key, revoke_api_key
from agentmemory.knowledge.ingest import create_import_job, prepare_document, run_import_job
from agentmemory.memory.write import write_memory
from agentmemory.models import ContextRecord, KnowledgeBase
from agentmemory.types import MemoryDraft
from agentmemory.working.sessions import append_turn, create_session

API = "/api/agentmemory/"
SECRETS = {"alice": "ALICESECRET", "bob": "BOBSECRET"}

VIEW_PERMS = ["view_memoryitem", "view_session", "view_knowledgebase", "view_document", "view_documentversion",
              "view_importjob",
              "view_evaluationcase", "view_evaluationrun"]


def uid(name: str) -> str:
    """The memory user id of the host's user ``name``: its primary key (USER_ID_RESOLVER's default), the
    Django user created (non-staff; no usable password: the tests log in with force_login, and hashing one
    costs a third of a second per user) when it does not exist yet."""
    User = get_user_model()
    user = User.objects.filter(username=name).first() or User.objects.create_user(name)
    return str(user.pk)


@dataclass
class World:
    memory: dict[str, int] = field(default_factory=dict)  # user name -> memory id
    session: dict[str, str] = field(default_factory=dict)  # user name -> session id
    ids: dict[str, str] = field(default_factory=dict)  # user name -> memory user id (the Django pk)
    context: dict[str, int] = field(default_factory=dict)  # user name -> a recorded context's id
    document: int | None = None
    job: int | None = None


def build_world(*, with_knowledge: bool) -> World:
    world = World()
    for user, secret in SECRETS.items():
        world.ids[user] = uid(user)
        world.memory[user] = write_memory(world.ids[user], MemoryDraft(
            content=f"我们公司的代号是 {secret}，总部在杭州", type="fact", key="company_code",
            source="user_stated")).memory_id
        session = create_session(user_id=world.ids[user])
        append_turn(session, role="user", content=f"我的工号是 {secret}-7")
        world.session[user] = str(session.pk)
        world.context[user] = ContextRecord.objects.create(user_id=world.ids[user], route="personal",
                                                           query="我们公司的代号是什么？").pk
    if with_knowledge:
        kb = KnowledgeBase.objects.create(slug="manual", name="产品手册")
        parsed = prepare_document(fmt="markdown", content="# X-200\n## 参数\nX-200 的功率是 15W。")
        job = create_import_job(knowledge_base=kb, parsed=parsed, title="X-200", fmt="markdown")
        world.document = run_import_job(job.pk)["document_id"]
        world.job = job.pk
    return world


@dataclass(frozen=True)
class Principal:
    name: str
    # What the principal is: anonymous | user | staff | superuser | key | dead_key
    kind: str
    own_user: str | None = None  # non-staff: the memory user it is
    scopes: tuple[str, ...] = ()
    users: tuple[str, ...] = ()  # keys limited to these users (empty: all)
    perms: tuple[str, ...] = ()  # staff

    def may_act_for(self, user_id: str, ids: dict[str, str] | None = None) -> bool:
        """Whether the principal may act for the memory user ``user_id`` (a Django user's pk here); ``ids``
        gives known names' memory ids (else they are looked up)."""
        ids = ids or {}
        if self.kind in ("staff", "superuser"):
            return True
        if self.kind == "user":
            return user_id == (ids.get(self.own_user) or uid(self.own_user))
        if self.kind == "key":
            return not self.users or user_id in {ids.get(u) or uid(u) for u in self.users}
        return False


PRINCIPALS = [
    Principal("anonymous", "anonymous"),
    Principal("alice", "user", own_user="alice"),
    Principal("bob", "user", own_user="bob"),
    Principal("staff-no-perms", "staff"),
    Principal("staff-view-only", "staff", perms=tuple(VIEW_PERMS)),
    Principal("superuser", "superuser"),
    Principal("key-read", "key", scopes=("read",)),
    Principal("key-read-write", "key", scopes=("read", "write")),
    Principal("key-admin", "key", scopes=("read", "write", "admin")),
    Principal("key-alice-device", "key", scopes=("read", "write"), users=("alice",)),
    Principal("key-bob-admin", "key", scopes=("read", "write", "admin"), users=("bob",)),
    Principal("key-revoked", "dead_key"),
    Principal("key-expired", "dead_key"),
]


def client_for(principal: Principal) -> APIClient:
    """A client authenticated as ``principal`` through the real mechanisms (session login, Bearer key)."""
    client = APIClient()
    User = get_user_model()
    if principal.kind == "user":
        user = User.objects.get(pk=uid(principal.own_user))
        client.force_login(user)
    elif principal.kind in ("staff", "superuser"):
        user = User.objects.create_user(principal.name, is_staff=True, is_superuser=principal.kind == "superuser")
        if principal.perms:
            user.user_permissions.set(Permission.objects.filter(content_type__app_label="agentmemory",
                                                                codename__in=principal.perms))
        client.force_login(user)
    elif principal.kind == "key":
        _key, raw = create_api_key(principal.name, scopes=list(principal.scopes),
                                   user_ids=[uid(u) for u in principal.users])
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    elif principal.kind == "dead_key":
        key, raw = create_api_key(principal.name, scopes=["read", "write", "admin"],
                                  expires_at=timezone.now() + dt.timedelta(days=1))
        if principal.name == "key-revoked":
            revoke_api_key(key)
        else:
            type(key).objects.filter(pk=key.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client

"""Who is calling the API and what they may do: one permission model for every endpoint.

Three kinds of principal reach the app's views:

- an **API key**: its scopes (read, write, admin) say which operations, its agent and user lists which
  agents and end users it may act for;
- a **staff** Django user: Django model permissions (``agentmemory.view_memoryitem``, ...,
  ``agentmemory.forget_user``), for any end user; superusers have them all;
- a **non-staff** Django user: acts only as their own memory user (``AGENTMEMORY['USER_ID_RESOLVER']``,
  default the primary key), on the endpoints a rule marks ``self_service``; never knowledge writes.

Each view declares one :class:`Rule` per HTTP method; :class:`AgentMemoryPermission` checks it, and the
view checks the end user and agent of each request with :func:`require_user` / :func:`require_agent`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from ..exceptions import AccessDenied, InvalidInput, NotFound
from ..identity import pk_as_user_id, resolve_user_id, username_as_user_id  # noqa: F401 (settings name these paths)
from ..models import ApiKey, MemoryItem, Session


@dataclass(frozen=True)
class Rule:
    """What one method of one view needs.

    ``scope``: the API-key scope; ``perms``: the Django permissions a staff user needs;
    ``self_service``: a non-staff user may call it for their own memory user.
    """

    scope: str
    perms: tuple[str, ...]
    self_service: bool = False


def read(*perms: str, self_service: bool = True) -> Rule:
    return Rule("read", perms, self_service)


def write(*perms: str, self_service: bool = True) -> Rule:
    return Rule("write", perms, self_service)


def admin(*perms: str, self_service: bool = False) -> Rule:
    return Rule("admin", perms, self_service)


@dataclass(frozen=True)
class Principal:
    """The caller of one request, resolved once by the base view."""

    kind: str  # "api_key" | "staff" | "user" | "anonymous"
    actor: str  # written into audit events
    key: ApiKey | None = None
    user: Any = None
    own_user_id: str | None = None  # for kind "user": the only end user it may act for

    @property
    def is_key(self) -> bool:
        return self.kind == "api_key"

    def may_act_for(self, user_id: str) -> bool:
        if self.kind == "api_key":
            return self.key.allows_user(user_id)
        if self.kind == "staff":
            return True
        if self.kind == "user":
            return self.own_user_id is not None and user_id == self.own_user_id
        return False

    def may_use_agent(self, agent_id: str | None) -> bool:
        return self.key is None or self.key.allows_agent(agent_id)

    def default_agent(self, agent_id: str | None) -> str | None:
        """``agent_id``, or, when it is not given and the key acts for exactly one agent, that agent."""
        if agent_id:
            return agent_id
        limit = self.agent_limit
        return limit[0] if limit is not None and len(limit) == 1 else agent_id

    @property
    def agent_limit(self) -> list[str] | None:
        """The agents an API key is limited to; None when it is not limited."""
        return list(self.key.agent_ids) if self.key is not None and self.key.agent_ids else None


ANONYMOUS = Principal(kind="anonymous", actor="anonymous")


def principal_of(request) -> Principal:
    """The principal of a DRF request (after authentication); cached on the request."""
    cached = getattr(request, "_agentmemory_principal", None)
    if cached is not None:
        return cached
    auth = getattr(request, "auth", None)
    user = getattr(request, "user", None)
    if isinstance(auth, ApiKey):
        principal = Principal(kind="api_key", actor=f"api_key:{auth.name}", key=auth)
    elif user is not None and user.is_authenticated and user.is_active:
        if user.is_staff or user.is_superuser:
            principal = Principal(kind="staff", actor=f"staff:{user.get_username()}", user=user)
        else:
            principal = Principal(kind="user", actor=f"user:{user.pk}", user=user,
                                  own_user_id=resolve_user_id(user))
    else:
        principal = ANONYMOUS
    request._agentmemory_principal = principal
    return principal


def denial(principal: Principal, rule: Rule) -> str | None:
    """Why ``principal`` may not do what ``rule`` guards, or None when it may (REST, tools, MCP alike)."""
    if principal.kind == "anonymous":
        return "Authentication credentials were not provided."
    if principal.kind == "api_key":
        return None if principal.key.has_scope(rule.scope) else f"This API key lacks the {rule.scope!r} scope."
    if principal.kind == "staff":
        missing = [p for p in rule.perms if not principal.user.has_perm(p)]
        return f"Your account lacks the permission {', '.join(missing)}." if missing else None
    if not rule.self_service:
        return "Only API keys and staff may do this."
    if principal.own_user_id is None:
        return "Your account has no memory user."
    return None


class AgentMemoryPermission(BasePermission):
    """Checks the view's rule for the request's method against the principal."""

    message = "You may not do this."

    def has_permission(self, request, view) -> bool:
        rules: dict[str, Rule] = getattr(view, "rules", {})
        method = "GET" if request.method in ("HEAD", "OPTIONS") else request.method
        rule = rules.get(method)
        principal = principal_of(request)
        if principal.kind == "anonymous":
            return False  # DRF answers 401 (not authenticated)
        if rule is None:
            # Methods without a rule are not served (405), except the open whoami-style views.
            return getattr(view, "open_to_any_principal", False) or method not in _served(view)
        reason = denial(principal, rule)
        if reason:
            self.message = reason
            return False
        return True


def _served(view) -> set[str]:
    return {m.upper() for m in view.http_method_names if hasattr(view, m)}


def visible_memory(principal: Principal, memory_id: int, *, user_id: str | None = None,
                   include_deleted: bool = False) -> MemoryItem:
    """The memory ``memory_id`` as ``principal`` may see it, or NotFound (existence is never told).

    With ``user_id`` (already checked by the caller) the read is scoped to that user; without, the owner
    is looked up by id alone and must be a user the principal may act for. An API key limited to some
    agents sees shared items and its agents' own.
    """
    owner = user_id if user_id is not None else MemoryItem.objects.owner_of(memory_id)
    where = f" for user {user_id!r}" if user_id is not None else ""
    if owner is None or (user_id is None and not principal.may_act_for(owner)):
        raise NotFound(f"memory {memory_id} not found{where}")
    items = MemoryItem.objects.for_user(owner).filter(pk=memory_id).defer("embedding", "search_vector")
    if not include_deleted:
        items = items.exclude(status=MemoryItem.Status.DELETED)
    item = items.first()
    limit = principal.agent_limit
    if item is None or (limit is not None and item.agent_id not in ("", *limit)):
        raise NotFound(f"memory {memory_id} not found{where}")
    return item


def require_user(request, user_id: str, *, not_found: str | None = None) -> None:
    """The caller may act for end user ``user_id``; otherwise 403, or 404 with ``not_found`` as detail.

    As for :func:`require_agent`: 403 when the caller named the user, 404 when it is the owner of an object
    the caller addressed by id (its existence is not told).
    """
    if not principal_of(request).may_act_for(user_id):
        if not_found is not None:
            raise NotFound(not_found)
        raise PermissionDenied(f"You may not act for user {user_id!r}.")


def require_agent(caller, agent_id: str | None, *, not_found: str | None = None) -> None:
    """The caller (a request or its Principal) may act for agent ``agent_id`` (None or "" is the shared scope).

    The one agent-scope check of the API, with the statuses the public contract pins (README,
    "Security"; tests/foreign_host): **403** when the caller names the agent itself (a body or query
    field: "you may not act for agent a2"); **404** with ``not_found`` as detail when the agent is that of
    an object the caller addressed by id (a session, a memory), so that the object's existence is not
    told. An operation over every agent of a user is refused to agent-limited keys with a 403 as well
    (:func:`require_every_agent`). A request that must name one agent and did not (a key limited to
    several agents) is the caller's mistake, a 400 (:func:`single_agent`).
    """
    principal = caller if isinstance(caller, Principal) else principal_of(caller)
    if not principal.may_use_agent(agent_id):
        if not_found is not None:
            raise NotFound(not_found)
        raise PermissionDenied(f"This API key may not act for agent {agent_id or '(shared)'!r}.")


def require_every_agent(request, action: str) -> None:
    """403 for an API key limited to some agents: ``action`` reaches every agent's memories of a user."""
    if principal_of(request).agent_limit is not None:
        raise PermissionDenied(f"An API key limited to some agents cannot {action}.")


def single_agent(request, agent_id: str | None) -> str | None:
    """``agent_id``, or the only agent of a key limited to one; a key limited to several must name it (400).

    None when the caller is not limited to agents and named none (every agent's view).
    """
    return agent_view(principal_of(request), agent_id)


def agent_view(principal: Principal, agent_id: str | None) -> str | None:
    """The agent whose view of a user ``principal`` reads (profile, summary, facts): ``single_agent`` for
    any entry point (REST, the MCP profile resource, pages) given the principal."""
    limit = principal.agent_limit
    if limit is None:
        return agent_id
    if agent_id is None and len(limit) == 1:
        agent_id = limit[0]
    elif agent_id is None:
        raise InvalidInput("this API key is limited to several agents: pass ?agent_id=.", field="agent_id")
    if not principal.may_use_agent(agent_id):
        raise AccessDenied(f"This API key may not act for agent {agent_id or '(shared)'!r}.")
    return agent_id


def require_session(principal: Principal, user_id: str, session_id, *, not_found: str | None = None) -> None:
    """The session ``session_id`` of ``user_id`` is one ``principal`` may see: its user and its agent.

    The one session check of every entry point that takes a session id beside a user id (REST
    ``context/``, the ``get_context`` and ``append_turn`` tools, MCP): a session of another user, or of an
    agent outside an API key's agents, is answered as unknown (404 ``not_found``), never as forbidden.
    An id that is not a session id at all is left to the service, which says so (400).
    """
    if session_id in (None, "") or principal.agent_limit is None:
        return  # the session's user is checked where it is loaded; an unlimited caller sees every agent
    detail = not_found or f"No session {session_id} for user {user_id!r}"
    try:
        agent_ids = list(Session.objects.for_user(user_id).filter(pk=session_id).values_list("agent_id", flat=True))
    except (DjangoValidationError, ValueError, TypeError):
        return  # not a session id: the service answers 400
    if agent_ids and not principal.may_use_agent(agent_ids[0] or None):
        raise NotFound(detail)


def context_arguments(principal: Principal, data: dict) -> dict:
    """The arguments of a context request as ``principal`` may make it (REST, tools and MCP alike).

    The user must be one the caller acts for (403), the agent defaults to a one-agent key's agent and
    must be one of the key's (403), and the session must be the user's and of a visible agent (404).
    """
    data = dict(data)
    if not principal.may_act_for(data["user_id"]):
        raise AccessDenied(f"You may not act for user {data['user_id']!r}.")
    data["agent_id"] = principal.default_agent(data.get("agent_id"))
    if not principal.may_use_agent(data["agent_id"]):
        raise AccessDenied(f"This API key may not act for agent {data['agent_id'] or '(shared)'!r}.")
    require_session(principal, data["user_id"], data.get("session_id"))
    return data

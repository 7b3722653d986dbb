"""Who is writing and why: a context-local actor/reason, and record_event() for every write path."""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from contextvars import ContextVar, Token
from typing import Any

_actor: ContextVar[str] = ContextVar("agentmemory_actor", default="system")
_reason: ContextVar[str] = ContextVar("agentmemory_reason", default="")


class audit_context(contextlib.ContextDecorator):
    """Set the actor (and reason) of the writes inside; usable as context manager or decorator."""

    def __init__(self, actor: str, reason: str = ""):
        self.actor, self.reason = actor, reason
        self._tokens: list = []

    def __enter__(self) -> audit_context:
        self._tokens.append((_actor.set(self.actor), _reason.set(self.reason)))
        return self

    def __exit__(self, *exc: Any) -> None:
        actor_token, reason_token = self._tokens.pop()
        _actor.reset(actor_token)
        _reason.reset(reason_token)


def audit_reason(reason: str) -> audit_context:
    """The reason of the writes inside, keeping the current actor (the API's base view set it)."""
    return audit_context(current_actor(), reason)


def operator_actor(user: Any) -> str:
    """The actor of an operator's writes in the Django admin: ``admin:<username>``."""
    return f"admin:{user.get_username()}"


def set_actor(actor: str) -> Token:
    """Set the actor until reset_actor(token); for code whose start and end are separate calls."""
    return _actor.set(actor)


def reset_actor(token: Token) -> None:
    _actor.reset(token)


def current_actor() -> str:
    return _actor.get()


def current_reason() -> str:
    return _reason.get()


def record_event(action: str, *, object_type: str, object_id: Any, user_id: str = "",
                 before: Any = None, after: Any = None, reason: str = "", actor: str = ""):
    """Write one audit event; call inside the write's transaction so both commit or neither."""
    event = audit_event(action, object_type=object_type, object_id=object_id, user_id=user_id, before=before,
                        after=after, reason=reason, actor=actor)
    event.save(force_insert=True)
    return event


def audit_event(action: str, *, object_type: str, object_id: Any, user_id: str = "",
                before: Any = None, after: Any = None, reason: str = "", actor: str = ""):
    """An unsaved audit event (redacted, attributed to the current actor) for ``record_events``."""
    from .models import AuditEvent
    from .redact import redact, redact_json

    return AuditEvent(
        actor=actor or current_actor(),
        action=action,
        reason=redact((reason or current_reason())[:500]),
        object_type=object_type,
        object_id=str(object_id),
        user_id=user_id or "",
        before=redact_json(before),
        after=redact_json(after),
    )


def record_events(events: list) -> None:
    """Write several ``audit_event`` events in one statement (a bulk import's publishes, one per document)."""
    from .models import AuditEvent

    if events:
        AuditEvent.objects.bulk_create(events)


@contextlib.contextmanager
def task_actor(task_name: str) -> Iterator[None]:
    """Actor for writes made by a Celery task."""
    with audit_context(f"task:{task_name}"):
        yield


def as_task_actor(task_name: str):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with audit_context(f"task:{task_name}"):
                return func(*args, **kwargs)
        return wrapper
    return decorator

"""Session services: create, append a turn (gap-free sequence numbers under a row lock), task state, end."""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils import timezone

from ..audit import record_event
from ..conf import app_settings
from ..db import note_write
from ..exceptions import InvalidInput, NotFound
from ..models import ExtractionRun, Session, Turn
from ..redact import redact, redact_json
from ..text import count_tokens
from ..validation import MAX_ID_CHARS, validate_bounded_text, validate_tags, validate_user_id
from .triggers import detect_remember_intent, is_high_priority

MAX_METADATA_CHARS = 20_000


class SessionNotActive(InvalidInput):
    """A turn or task-state change was sent to a session that is ended or archived."""


@dataclass(frozen=True)
class AppendResult:
    """What appending a turn did: the turn, memories written at once, and whether a summary is due."""

    turn: Turn
    session: Session
    memories: list[dict[str, Any]] = field(default_factory=list)
    remember_run_id: int | None = None
    summary_due: bool = False


def _clean_id(value: Any, name: str, *, required: bool) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string.", field=name)
    value = value.strip()
    if required and not value:
        raise InvalidInput(f"{name} is required.", field=name)
    if len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"{name} is longer than {MAX_ID_CHARS} characters.", field=name)
    if name == "user_id":
        validate_user_id(value)
    return value


def _clean_json_object(value: Any, name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"{name} must be a JSON object.", field=name)
    if len(json.dumps(value, ensure_ascii=False, default=str)) > MAX_METADATA_CHARS:
        raise InvalidInput(f"{name} is larger than {MAX_METADATA_CHARS} characters of JSON.", field=name)
    return value


def get_session(session_id: Any, *, user_id: str | None = None) -> Session:
    """The session ``session_id`` (within ``user_id`` when given); NotFound otherwise."""
    qs = Session.objects.all() if user_id is None else Session.objects.for_user(user_id)
    try:
        return qs.get(pk=session_id)
    except (Session.DoesNotExist, ValueError, TypeError, DjangoValidationError) as exc:
        # A malformed id is as unknown as a missing one.
        raise NotFound(f"Session {session_id} does not exist.") from exc


def create_session(*, user_id: str, agent_id: str = "", metadata: dict | None = None) -> Session:
    """Start a session of ``user_id`` with an agent."""
    user_id = _clean_id(user_id, "user_id", required=True)
    agent_id = _clean_id(agent_id, "agent_id", required=False)
    metadata = _clean_json_object(metadata, "metadata")
    if "tags" in metadata:  # context tags for every memory extracted from the session
        metadata["tags"] = validate_tags(metadata["tags"], field="metadata.tags")
    with transaction.atomic():
        session = Session.objects.create(user_id=user_id, agent_id=agent_id, metadata=metadata)
        record_event("create", object_type="session", object_id=session.pk, user_id=user_id,
                     after={"agent_id": agent_id})
    return session


def validate_turn(role: Any, content: Any) -> tuple[str, str]:
    """The role and content of a turn, or InvalidInput naming what is wrong."""
    if role not in Turn.Role.values:
        raise InvalidInput(f"Unknown role {role!r}; use one of {', '.join(Turn.Role.values)}.", field="role")
    return role, validate_bounded_text(content, field="content", limit_setting="MAX_TURN_CHARS")


def append_turn(session: Session | Any, *, role: str, content: str, metadata: dict | None = None,
                remember: bool = True, now: dt.datetime | None = None) -> AppendResult:
    """Append one turn with the next sequence number; write remember-intent statements at once.

    The session row is locked (SELECT ... FOR UPDATE) while the number is taken, so concurrent
    appends get 1, 2, 3... without repeats or gaps. A user turn with an explicit remember intent is
    extracted right after the turn commits (the turn is kept even if that write fails).
    """
    role, content = validate_turn(role, content)
    metadata = _clean_json_object(metadata, "metadata")
    # PII never reaches the turns table: what the memory, the summary and the admin see is masked.
    content, metadata = redact(content), redact_json(metadata)
    session_id = getattr(session, "pk", session)
    now = now or timezone.now()
    with transaction.atomic():
        try:
            locked = Session.objects.select_for_update().get(pk=session_id)
        except Session.DoesNotExist as exc:
            raise NotFound(f"Session {session_id} does not exist.") from exc
        if locked.status != Session.Status.ACTIVE:
            raise SessionNotActive(f"Session {session_id} is {locked.status}; start a new session to add turns.",
                                   field="session")
        seq = locked.turn_count + 1
        turn = Turn.objects.create(
            session=locked, user_id=locked.user_id, seq=seq, role=role, content=content, created_at=now,
            token_count=count_tokens(content), high_priority=is_high_priority(content, role), metadata=metadata,
        )
        locked.turn_count = seq
        locked.last_activity_at = now
        locked.save(update_fields=["turn_count", "last_activity_at"])
        # With a read replica, this user's next context reads the primary until the replica has this turn.
        transaction.on_commit(lambda: note_write(locked.user_id))
    summary_due = locked.turn_count - locked.summary_covers_seq >= app_settings.SUMMARY_TRIGGER_TURNS
    memories: list[dict[str, Any]] = []
    run_id = None
    if remember and role == Turn.Role.USER and detect_remember_intent(content):
        from .extract import remember_turn

        run = remember_turn(turn)
        run_id = run.pk
        memories = [row for row in run.results if row.get("action") != "rejected"] if run else []
    return AppendResult(turn=turn, session=locked, memories=memories, remember_run_id=run_id,
                        summary_due=summary_due)


def update_task_state(session: Session, *, task_state: Any, replace: bool = False) -> Session:
    """Set the task state: merged key by key (JSON merge patch: null removes a key), or replaced whole."""
    if task_state is None:
        raise InvalidInput("task_state is required.", field="task_state")
    patch = _clean_json_object(task_state, "task_state")
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        if locked.status != Session.Status.ACTIVE:
            raise SessionNotActive(f"Session {locked.pk} is {locked.status}; its task state is final.",
                                   field="session")
        before = dict(locked.task_state or {})
        state = {} if replace else dict(before)
        for key, value in patch.items():
            if value is None:
                state.pop(key, None)
            else:
                state[key] = value
        locked.task_state = state
        locked.save(update_fields=["task_state"])
        record_event("edit", object_type="session", object_id=locked.pk, user_id=locked.user_id,
                     before={"task_state": before}, after={"task_state": state}, reason="task state")
    return locked


def end_session(session: Session, *, now: dt.datetime | None = None) -> ExtractionRun | None:
    """End the session and create the extraction run of its unextracted turns (None if there are none).

    Ending twice is harmless: the second call returns the same run (same key).
    """
    from .extract import start_extraction

    now = now or timezone.now()
    with transaction.atomic():
        locked = Session.objects.select_for_update().get(pk=session.pk)
        if locked.status == Session.Status.ACTIVE:
            locked.status = Session.Status.ENDED
            locked.ended_at = now
            locked.save(update_fields=["status", "ended_at"])
            record_event("end", object_type="session", object_id=locked.pk, user_id=locked.user_id)
        run = start_extraction(locked, trigger=ExtractionRun.Trigger.END)
    session.status, session.ended_at = locked.status, locked.ended_at
    return run

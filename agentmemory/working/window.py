"""The working context of a session: summary, task state, recent turns verbatim, and pinned high-priority turns."""
from __future__ import annotations

from typing import Any

from ..conf import app_settings
from ..models import Session, Turn


def turn_dict(turn: Turn) -> dict[str, Any]:
    return {
        "id": turn.pk, "seq": turn.seq, "role": turn.role, "content": turn.content,
        "created_at": turn.created_at, "token_count": turn.token_count, "high_priority": turn.high_priority,
    }


def window_start(session: Session) -> int:
    """Turns with seq above this are shown verbatim: at least the last WINDOW_TURNS, and all not summarized."""
    return min(session.summary_covers_seq, max(0, session.turn_count - app_settings.WINDOW_TURNS))


def get_working_context(session: Session) -> dict[str, Any]:
    """Working memory of a session for an agent's prompt.

    Keys: ``session_id``, ``user_id``, ``agent_id``, ``status``, ``summary`` (older turns folded), ``summary_updated_at``,
    ``covered_up_to`` (last turn in the summary), ``task_state``, ``turns`` (recent turns verbatim,
    oldest first), ``pinned_turns`` (high-priority turns already folded into the summary, kept
    verbatim, at most PINNED_TURNS), ``turn_count``.
    """
    start = window_start(session)
    recent = list(Turn.objects.in_session(session).filter(seq__gt=start))
    pinned_limit = app_settings.PINNED_TURNS
    pinned = []
    if start and pinned_limit:
        pinned = list(Turn.objects.in_session(session).high_priority().filter(seq__lte=start)
                      .order_by("-seq")[:pinned_limit])
        pinned.reverse()
    return {
        "session_id": str(session.pk),
        "user_id": session.user_id,
        "agent_id": session.agent_id,
        "status": session.status,
        "summary": session.summary,
        "summary_updated_at": session.summary_updated_at,
        "covered_up_to": session.summary_covers_seq,
        "task_state": session.task_state or {},
        "turns": [turn_dict(t) for t in recent],
        "pinned_turns": [turn_dict(t) for t in pinned],
        "turn_count": session.turn_count,
    }

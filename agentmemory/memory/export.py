"""Everything agentmemory holds about one user, as JSON (the "export my data" of the user's page)."""
from __future__ import annotations

from typing import Any

from django.utils import timezone

from ..models import MemoryItem, Session
from ..timestamps import iso
from ..validation import validate_user_id
from .profile import get_profile


def export_user(user_id: str) -> dict[str, Any]:
    """The profile, every memory (current, cold and superseded: the history), and the sessions' summaries."""
    validate_user_id(user_id)
    memories = (MemoryItem.objects.for_user(user_id).exclude(status=MemoryItem.Status.DELETED)
                .defer("embedding", "search_vector").order_by("created_at", "id"))
    sessions = Session.objects.for_user(user_id).order_by("started_at")
    return {
        "user_id": user_id,
        "exported_at": iso(timezone.now()),
        "profile": get_profile(user_id),
        "memories": [{
            "id": m.pk, "type": m.type, "key": m.key, "content": m.content, "value": m.value, "source": m.source,
            "confidence": m.confidence, "status": m.status, "agent_id": m.agent_id, "supersedes": m.supersedes_id,
            "created_at": iso(m.created_at), "superseded_at": iso(m.superseded_at)
            if m.superseded_at else None, "session_id": m.session_id, "tags": m.tags,
        } for m in memories],
        "sessions": [{
            "id": str(s.pk), "agent_id": s.agent_id, "status": s.status, "started_at": iso(s.started_at),
            "ended_at": iso(s.ended_at), "turn_count": s.turn_count,
            "summary": s.summary, "task_state": s.task_state,
        } for s in sessions],
    }

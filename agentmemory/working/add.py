"""Adding memories from messages, as mem0's ``add`` does: through the session extraction, or as given."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..exceptions import InvalidInput
from ..memory.write import write_memory
from ..models import ExtractionRun, MemoryItem
from ..types import MemoryDraft
from .extract import run_extraction
from .sessions import append_turn, create_session, end_session

ROLES = ("user", "assistant", "system", "tool")


@dataclass(frozen=True)
class AddOutcome:
    session_id: str | None
    run_id: int | None
    status: str  # "done" | "queued"
    results: list[dict[str, Any]]  # {"memory_id", "action", "content", "reason"}


def normalize_messages(messages: Any) -> list[dict[str, str]]:
    """``messages`` as [{"role", "content"}]: a plain string is one user message."""
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a non-empty list of {role, content}, or a string.", field="messages")
    out = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES \
                or not isinstance(message.get("content"), str) or not message["content"].strip():
            raise InvalidInput(f"messages[{index}] must be {{role: user|assistant|system|tool, content: text}}.",
                               field=f"messages[{index}]")
        out.append({"role": message["role"], "content": message["content"]})
    return out


def add_messages(user_id: str, messages: Any, *, agent_id: str = "", metadata: dict | None = None,
                 infer: bool = True, wait: bool = True) -> AddOutcome:
    """Remember what ``messages`` say about ``user_id``.

    With ``infer`` they become a session that is ended and extracted: the same extractor, quality gate,
    dedup and supersession as any conversation (synchronously, or queued with ``wait=False``). Without
    it, each user message is stored as given (a user-stated fact). ``metadata`` becomes context tags.
    """
    messages = normalize_messages(messages)
    tags = {str(k): str(v) for k, v in (metadata or {}).items()}
    if not infer:
        results = []
        for message in messages:
            if message["role"] != "user":
                continue
            result = write_memory(user_id, MemoryDraft(content=message["content"], type=MemoryItem.Type.FACT,
                                                       source=MemoryItem.Source.USER_STATED, agent_id=agent_id,
                                                       tags=tags))
            results.append({"memory_id": result.memory_id, "action": result.action, "content": message["content"],
                            "reason": result.reason})
        return AddOutcome(None, None, "done", results)
    # The session's context tags go to every memory extracted from it (extract.session_tags).
    session = create_session(user_id=user_id, agent_id=agent_id,
                             metadata={"via": "add", **({"tags": tags} if tags else {})})
    for message in messages:
        append_turn(session, role=message["role"], content=message["content"], remember=False)
    run = end_session(session)
    if run is None:
        return AddOutcome(str(session.pk), None, "done", [])
    if not wait:
        from ..tasks.working import enqueue_extraction

        enqueue_extraction(run.pk)
        return AddOutcome(str(session.pk), run.pk, "queued", [])
    run = run_extraction(run.pk) if run.status != ExtractionRun.Status.SUCCEEDED else run
    results = [{"memory_id": row.get("memory_id"), "action": row.get("action"), "content": row.get("content", ""),
                "reason": row.get("reason", "")} for row in run.results or []]
    return AddOutcome(str(session.pk), run.pk, "done", results)

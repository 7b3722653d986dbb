"""LLMExtractor: an OpenAI-compatible chat model returns memory items as structured JSON.

The model sees the session's turns and the user's existing relevant memories, and answers one JSON
object ``{"items": [...]}``. Fenced or padded JSON is repaired, an unparsable answer is asked again
(ChatClient.complete_json); when it still fails, LLMError propagates so the run fails with the
turns kept and is retried.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...exceptions import LLMError
from ...types import MemoryDraft
from ..llm import ChatClient
from .base import BOOKKEEPING_TAGS, MEMORY_TYPES, SOURCES, ExistingMemory, Extractor, TurnText
from .patterns import SLOTS

SYSTEM_PROMPT = """You extract long-term memories about the USER from a conversation.
Keep an item only if all three hold: it stays true across sessions; it is about this user (not the
assistant, not general knowledge); it would change future answers. Keep identity, family, pets,
possessions, places, work and projects, dates, health constraints, explicit preferences, decisions,
important events, and feedback on earlier answers. Small talk ("thanks", "the weather is hot") gives nothing.
Facts about other people (a sister, a colleague, a friend) are not the user's facts: never write them as
the user's own ("my sister moved to Berlin" is not "the user moved to Berlin"). Never write the opposite
of what the user said ("I can't eat spicy food at all" is a dislike, not a taste). Write each item in the
language the user wrote it in (Chinese for a user writing Chinese).

Answer with ONE JSON object and nothing else:
{"items": [{"type": "fact|preference|decision|event|feedback",
            "key": "a slot key from the vocabulary, or a short snake_case key",
            "value": "the value in the slot, in the user's own words (short)",
            "content": "one self-contained sentence about the user, in the user's language",
            "source": "user_stated if the user said it, model_inferred if you infer it",
            "confidence": 0.0-1.0, "quality": 0.0-1.0,
            "turn": the [number] of the turn it comes from,
            "status": "new", "existing" or "supersedes",
            "existing_id": id of the existing memory it restates or replaces, or null,
            "tags": {"project": "...", "product": "..."} only when the statement is about one project or product}]}
Slot vocabulary: """ + ", ".join(SLOTS) + """.
The existing memories are facts and episodes (the user's earlier words) with their ids.
Mark an item "existing" with its existing_id when an existing memory already says the same thing, or adds
to it. Mark it "supersedes" with the existing_id of the memory it makes untrue (a new employer, a move, a
corrected value, "not X anymore"): the old one is kept as history and no longer current."""


class LLMExtractor(Extractor):
    """Structured-JSON extraction by a chat model (DeepSeek, Qwen, Ollama, vLLM, OpenAI)."""

    name = "llm"
    attempts = 2  # one answer plus one re-ask when the JSON cannot be parsed or repaired

    def __init__(self, client: ChatClient | None = None):
        self.client = client or ChatClient()

    def build_messages(self, turns: Sequence[TurnText], existing: Sequence[ExistingMemory]) -> list[dict]:
        convo = "\n".join(f"[{t.seq}] {t.role}: {t.content}" for t in turns if t.role in ("user", "assistant"))
        known = [{"id": m.id, "type": m.type, "key": m.key, "content": m.content} for m in existing]
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "Existing memories of this user:\n"
                                        f"{json.dumps(known, ensure_ascii=False)}\n\nConversation:\n{convo}"},
        ]

    def extract(self, turns: Sequence[TurnText], *,
                existing: Sequence[ExistingMemory] = ()) -> list[MemoryDraft]:
        user_turns = [t for t in turns if t.role == "user"]
        if not user_turns:
            return []
        answer = self.client.complete_json(self.build_messages(turns, existing), attempts=self.attempts)
        items = answer.get("items")
        if not isinstance(items, list):
            raise LLMError("The extractor model answered JSON without an 'items' list.")
        by_seq = {t.seq: t for t in turns}
        fallback = user_turns[-1]
        known_ids = {m.id for m in existing}
        drafts = []
        for raw in items:
            draft = self._draft(raw, by_seq, fallback, known_ids)
            if draft is not None:
                drafts.append(draft)
        return drafts

    def _draft(self, raw: Any, by_seq: dict[int, TurnText], fallback: TurnText,
               known_ids: set[int] = frozenset()) -> MemoryDraft | None:
        """One validated draft, or None for an item that is malformed (it is skipped, not guessed)."""
        if not isinstance(raw, dict):
            return None
        mtype = str(raw.get("type", "")).strip().lower()
        content = str(raw.get("content", "")).strip()
        if mtype not in MEMORY_TYPES or not content:
            return None
        source = str(raw.get("source", "user_stated")).strip().lower()
        if source not in SOURCES:
            source = "model_inferred"
        try:
            seq = int(raw.get("turn"))
        except (TypeError, ValueError):
            seq = fallback.seq
        turn = by_seq.get(seq, fallback)
        if turn.role != "user" and source == "user_stated":
            source = "model_inferred"  # the user did not say what the assistant said
        tags = _context_tags(raw.get("tags"))
        status = raw.get("status") if raw.get("status") in ("existing", "supersedes") else "new"
        tags.update({"extractor": self.name, "status": status})
        existing_id = _existing_id(raw.get("existing_id"), known_ids) if status != "new" else None
        if existing_id is not None:
            tags["existing_id"] = str(existing_id)
        # "supersedes": the named memory is no longer true and is replaced (the write path checks that it is
        # the user's and current); "existing": the same thing said again, or more of it.
        supersedes = (existing_id,) if status == "supersedes" and existing_id is not None else ()
        return MemoryDraft(
            content=content[:2000],
            type=mtype,
            source=source,
            key=str(raw.get("key") or "")[:100],
            value=raw.get("value"),
            confidence=_unit(raw.get("confidence"), 0.7),
            quality=_unit(raw.get("quality"), 0.7),
            agent_id=turn.agent_id,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            excerpt=turn.content[:500],
            tags=tags,
            existing_id=None if supersedes else existing_id,
            supersedes_ids=supersedes,
        )


def _context_tags(raw: Any) -> dict[str, str]:
    """The model's context tags, kept only when they are short strings (project, product, ...)."""
    if not isinstance(raw, dict):
        return {}
    out = {}
    for name, value in list(raw.items())[:5]:
        if (isinstance(name, str) and isinstance(value, str) and name.strip() and value.strip()
                and name not in BOOKKEEPING_TAGS):
            out[name.strip()[:50]] = value.strip()[:100]
    return out


def _existing_id(raw: Any, known_ids: set[int]) -> int | None:
    """The existing memory the model named, only if it was one of those shown to it."""
    try:
        number = int(raw)
    except (TypeError, ValueError):
        return None
    return number if number in known_ids else None


def _unit(value: Any, default: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return min(1.0, max(0.0, number))

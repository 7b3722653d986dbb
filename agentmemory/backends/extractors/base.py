"""Extractor interface: a session's turns (and the user's relevant memories) in, memory drafts out."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...types import MemoryDraft

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_KEY_BAD_RE = re.compile(r"[^\w.\-:]+")


@dataclass(frozen=True)
class TurnText:
    """The part of a turn an extractor or summarizer sees."""

    seq: int
    role: str
    content: str
    turn_id: int | None = None
    session_id: str = ""
    agent_id: str = ""
    said_at: dt.datetime | None = None  # when the turn was said (an imported conversation's own time)


@dataclass(frozen=True)
class ExistingMemory:
    """A memory the user already has, shown to the extractor so it can say "same as" instead of "new"."""

    id: int
    type: str
    key: str
    content: str
    extra: dict = field(default_factory=dict)


#: Tags an extractor sets for its own bookkeeping (kept on the run, not on the memory); every other
#: tag of a draft is a context tag (project, product) that the memory keeps.
BOOKKEEPING_TAGS = frozenset({"slot", "extractor", "status", "existing_id", "remember", "correction", "refused",
                              "grounding", "replaces_turns"})

#: Memory types an extractor may return (the long-term memory's vocabulary).
MEMORY_TYPES = ("fact", "preference", "decision", "event", "feedback")
#: Sources: what the user said, or what the model guessed.
SOURCES = ("user_stated", "model_inferred")


class Extractor:
    """Base class of extractors; subclasses implement :meth:`extract`.

    ``extract`` must be deterministic for a given input where the backend allows it (the rule-based
    one is), returns drafts in turn order, and raises ``agentmemory.exceptions.BackendError`` when
    the backend fails, so the caller can keep the turns and retry.
    """

    name = "base"

    def extract(self, turns: Sequence[TurnText], *,
                existing: Sequence[ExistingMemory] = ()) -> list[MemoryDraft]:
        raise NotImplementedError


def safe_key(key: str) -> str:
    """A slot key the memory store accepts: letters, digits, _ . - : only, at most 100 characters."""
    return _KEY_BAD_RE.sub("_", (key or "").strip()).strip("_")[:100]


def is_chinese(text: str) -> bool:
    """True when the text has any CJK character (its memories are then written in Chinese)."""
    return bool(_CJK_RE.search(text or ""))

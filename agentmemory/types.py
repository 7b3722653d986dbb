"""Frozen dataclasses passed between stages (the contracts between knowledge, memory and context)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MemoryDraft:
    """A candidate long-term memory, before redaction, quality gate, dedup and conflict resolution."""

    content: str
    type: str  # fact | preference | decision | event | feedback
    source: str  # user_stated | model_inferred | system_log
    key: str = ""
    value: Any = None
    confidence: float = 0.8
    quality: float | None = None  # extractor's quality score, when it gives one
    agent_id: str = ""
    session_id: str = ""
    turn_id: int | None = None
    excerpt: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    valid_from: dt.datetime | None = None


@dataclass(frozen=True)
class WriteResult:
    """What the write path did with one draft."""

    action: str  # created | merged | superseded_previous | rejected | unchanged
    memory_id: int | None = None
    reason: str = ""
    superseded_ids: tuple[int, ...] = ()

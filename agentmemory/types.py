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
    # The user's existing item this one restates or updates, as an extractor judged it (LLM "existing").
    existing_id: int | None = None


@dataclass(frozen=True)
class WriteResult:
    """What the write path did with one draft."""

    action: str  # created | merged | superseded_previous | rejected | unchanged
    memory_id: int | None = None
    reason: str = ""
    superseded_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ContextItem:
    """One piece of an assembled context: where it came from, why it is there, what it costs."""

    layer: str  # profile | long_term_memory | knowledge | working_memory | current_message
    kind: str  # fact | memory | chunk | summary | task_state | turn | message
    key: str  # stable id across stages, e.g. "memory:12", "chunk:40", "turn:7"
    text: str
    source: str = ""  # human label: document title and heading, memory source, turn role
    score: float = 0.0  # fused score: layer weight x relevance x decay
    relevance: float = 0.0
    decay: float = 1.0
    weight: float = 1.0
    timestamp: dt.datetime | None = None
    ref: dict[str, Any] = field(default_factory=dict)  # ids and citation of the underlying row
    label: str = ""  # citation marker in the prompt: K1, M1, ...
    tokens: int = 0


@dataclass(frozen=True)
class ContextBundle:
    """What assemble_context returns: the route, the kept items per section, the prompt and its trace."""

    route: str  # knowledge | personal | continuation | mixed
    sections: dict[str, list[ContextItem]]
    prompt: str
    trace: dict[str, Any]
    token_counts: dict[str, int]
    token_budget: int = 0

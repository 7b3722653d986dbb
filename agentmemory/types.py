"""Frozen dataclasses passed between stages and layers (the contracts between knowledge, memory and context).

What one layer hands another is declared here, never a dict whose keys the reader must guess: a knowledge
search's hits and result, a recall's result, the user's profile, a session's working context, a context
layer's result. Where the API shows one of them, its ``as_dict()`` is the JSON object the API returns.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field
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


# --- knowledge search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchHit:
    """One cited chunk with its final score and every channel's contribution."""

    chunk_id: int
    document_id: int
    document_external_id: str
    document_title: str
    knowledge_base: str
    version: int
    version_id: int
    position: int
    heading_path: str
    text: str
    citation: str
    score: float
    score_kind: str  # rrf | bm25 | cosine | rerank
    # Per channel ("keyword", "vector") its rank and raw score, with its RRF share; "floor" the evidence the
    # relevance floor judged; "rerank" the reranker's score (the API's JSON, as shown).
    channels: dict[str, Any] = field(default_factory=dict)
    explanation: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchResult:
    """Hits best first, and the trace of how they were found (the API's trace object)."""

    query: str
    mode: str
    hits: list[SearchHit]
    trace: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"query": self.query, "mode": self.mode, "hits": [h.as_dict() for h in self.hits],
                "trace": self.trace}

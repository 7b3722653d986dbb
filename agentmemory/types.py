"""Frozen dataclasses passed between stages and layers (the contracts between knowledge, memory and context).

What one layer hands another is declared here, never a dict whose keys the reader must guess: a knowledge
search's hits and result, a recall's result, the user's profile, a session's working context, a context
layer's result. Where the API shows one of them, its ``as_dict()`` is the JSON object the API returns.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.dateparse import parse_datetime

if TYPE_CHECKING:
    from .models import MemoryItem


@dataclass(frozen=True)
class MemoryDraft:
    """A candidate long-term memory, before redaction, quality gate, dedup and conflict resolution."""

    content: str
    type: str  # fact | preference | decision | event | feedback | episode
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
    # Current items of the user this statement corrects (an episode correcting earlier episodes): superseded
    # by it when they are the user's words too.
    supersedes_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class WriteResult:
    """What the write path did with one draft."""

    action: str  # created | merged | superseded_previous | rejected | unchanged | quarantined
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
    context_id: int | None = None  # its row in the context ledger (None: not recorded)


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
    # Other chunks holding the same text (another document's copy), cited, not shown as hits of their own.
    duplicates: list[dict[str, Any]] = field(default_factory=list)

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


# --- memory recall ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreBreakdown:
    """Every factor of a recalled item's score (None: the channel did not find it)."""

    vector: float | None
    bm25: float | None
    vector_norm: float
    bm25_norm: float
    relevance: float  # fused channels + episodic context
    context: float  # the part of relevance that neighbouring turns added
    decay: float
    source_weight: float
    confidence: float
    frequency: float  # 1 + the access-count bonus
    final: float
    window: float | None = None  # BM25 of the dialogue window around the turn (None: no window matched)
    window_cosine: float | None = None  # mean cosine of that window's turns (None: not a dialogue turn)
    prior: float = 1.0  # the speaker/date multiplier in relevance (priors.py)


@dataclass(frozen=True)
class RecalledMemory:
    """One recalled memory (the user's row) and how its score was made."""

    memory: MemoryItem
    scores: ScoreBreakdown

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.memory.pk, "scores": asdict(self.scores)}


@dataclass(frozen=True)
class RecallResult(Sequence[RecalledMemory]):
    """The recalled memories, best first (a sequence of them); ``mode`` is "hybrid", or "keyword" when the
    embedder was unavailable (``degraded_reason`` says why)."""

    items: tuple[RecalledMemory, ...] = ()
    mode: str = "hybrid"
    degraded_reason: str = ""

    def __getitem__(self, index):  # type: ignore[override]
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    @property
    def degraded(self) -> bool:
        return self.mode != "hybrid"


# --- the profile ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfileFact:
    """One key fact of a user's profile (the current value of its key): a memory as the profile shows it."""

    memory_id: int
    key: str
    content: str
    value: Any
    type: str
    source: str
    confidence: float
    tags: dict[str, str]
    agent_id: str
    valid_from: str | None  # ISO 8601
    updated_at: str | None  # ISO 8601

    @property
    def timestamp(self) -> dt.datetime | None:
        """When the fact holds from (else when it last changed)."""
        return _parsed(self.valid_from) or _parsed(self.updated_at)


@dataclass(frozen=True)
class Profile:
    """A user's profile: the summary text and its provenance, and the key facts. ``as_dict()`` is the API's
    profile object (and what the cache holds)."""

    user_id: str
    summary: str = ""
    summary_updated_at: str | None = None  # ISO 8601
    summary_method: str = ""
    summary_sources: list[int] = field(default_factory=list)
    facts: tuple[ProfileFact, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "summary": self.summary, "summary_updated_at": self.summary_updated_at,
                "summary_method": self.summary_method, "summary_sources": self.summary_sources,
                "facts": [asdict(f) for f in self.facts]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Profile:
        """The profile back from its ``as_dict()`` form (as cached)."""
        return cls(user_id=data["user_id"], summary=data["summary"], summary_updated_at=data["summary_updated_at"],
                   summary_method=data["summary_method"], summary_sources=data["summary_sources"],
                   facts=tuple(ProfileFact(**f) for f in data["facts"]))


# --- working memory --------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkingTurn:
    """One turn of a session as the working context shows it."""

    id: int
    seq: int
    role: str
    content: str
    created_at: dt.datetime | None = None
    token_count: int = 0
    high_priority: bool = False


@dataclass(frozen=True)
class WorkingContext:
    """A session's working memory (agentmemory.working.window): the summary of older turns, the task state,
    the recent turns verbatim and the high-priority ones already summarized (pinned)."""

    session_id: str
    user_id: str = ""
    agent_id: str = ""
    status: str = ""
    summary: str = ""
    summary_updated_at: dt.datetime | None = None
    covered_up_to: int = 0  # the last turn the summary covers
    task_state: dict[str, Any] = field(default_factory=dict)
    turns: tuple[WorkingTurn, ...] = ()
    pinned_turns: tuple[WorkingTurn, ...] = ()
    turn_count: int = 0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WorkingContext:
        """From ``working.window.get_working_context``'s dict (the shape the sessions API shows)."""
        return cls(
            session_id=data["session_id"], user_id=data["user_id"], agent_id=data["agent_id"],
            status=data["status"], summary=data["summary"], summary_updated_at=data["summary_updated_at"],
            covered_up_to=data["covered_up_to"], task_state=data["task_state"],
            turns=tuple(WorkingTurn(**t) for t in data["turns"]),
            pinned_turns=tuple(WorkingTurn(**t) for t in data["pinned_turns"]), turn_count=data["turn_count"])

    def recent_turns(self) -> list[WorkingTurn]:
        """The pinned and the recent turns, oldest first."""
        return sorted([*self.pinned_turns, *self.turns], key=lambda t: t.seq)


# --- context layers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LayerResult:
    """What one context layer gave: candidates, its own trace, and whether it failed or degraded."""

    layer: str
    items: list[ContextItem] = field(default_factory=list)
    status: str = "ok"  # ok | degraded | failed | skipped
    detail: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    elapsed_ms: float = 0.0

    def as_trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "candidates": [
                {"key": it.key, "kind": it.kind, "relevance": round(it.relevance, 4), "decay": round(it.decay, 4),
                 **({"raw": it.ref["raw"]} if "raw" in it.ref else {})}
                for it in self.items
            ],
        }
        if self.detail:
            out.update(self.detail)
        if self.error:
            out["error"] = self.error
        return out


def _parsed(value: str | None) -> dt.datetime | None:
    return parse_datetime(value) if value else None

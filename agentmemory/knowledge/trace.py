"""What a knowledge search is asked (SearchPlan) and what it did (SearchTrace), shared by its stages.

Each stage of ``search.search_knowledge`` reads the plan and records into the trace: per base, what its
channels found; per chunk, the evidence a hit carries (each channel's rank and score, its RRF share, the
floor's judgement, the reranker's score); what each threshold and the floor removed; what degraded; the
time each stage took. ``SearchTrace.as_dict()`` is the trace object of the API's search response.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SearchPlan:
    """A validated search request, with the settings it runs under."""

    query: str
    mode: str  # hybrid | vector | keyword
    top_k: int
    thresholds: dict[str, float | None]  # cosine, bm25, rerank
    filters: dict[str, Any]
    knowledge_bases: list  # KnowledgeBase rows, in the order asked
    candidates: int  # per channel, before fusion
    rrf_k: int
    weights: dict[str, float]  # per channel, for RRF
    floor: bool  # apply the relevance floor


@dataclass
class SearchTrace:
    """Filled stage by stage; ``evidence`` holds, per chunk id, what the hit's ``channels`` field shows."""

    plan: SearchPlan
    effective_mode: str = ""
    degraded: list[str] = field(default_factory=list)
    rewritten_query: str | None = None
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)  # per base slug: keyword / vector detail
    evidence: dict[int, dict[str, Any]] = field(default_factory=dict)
    removed: dict[str, list[int]] = field(default_factory=lambda: {"cosine": [], "bm25": []})
    fused: dict[int, dict[str, Any]] = field(default_factory=dict)  # per chunk id: its RRF score and shares
    floor: dict[str, Any] = field(default_factory=dict)
    rerank: dict[str, Any] | None = None
    rerank_removed: list[int] = field(default_factory=list)
    rerank_applied: bool = False
    collapsed: list[dict[str, Any]] = field(default_factory=list)  # copies of one text folded into one hit
    timings_ms: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.effective_mode = self.effective_mode or self.plan.mode
        self.channels = {kb.slug: {} for kb in self.plan.knowledge_bases}
        self.floor = {"applied": bool(self.plan.floor), "knowledge_bases": {}, "removed": 0, "removed_hits": []}

    def degrade(self, reason: str, *, to_keyword: bool = False) -> None:
        self.degraded.append(reason)
        if to_keyword:
            self.effective_mode = "keyword"

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the time the block takes to ``stage`` (a stage run several times adds up)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add_time(stage, started)

    def add_time(self, stage: str, started: float) -> None:
        self.timings_ms[stage] = round(self.timings_ms.get(stage, 0.0) + (time.perf_counter() - started) * 1000, 3)

    def as_dict(self) -> dict[str, Any]:
        plan = self.plan
        out: dict[str, Any] = {
            "query": plan.query, "mode": plan.mode, "effective_mode": self.effective_mode, "top_k": plan.top_k,
            "knowledge_bases": [kb.slug for kb in plan.knowledge_bases],
            "thresholds": {
                **{key: {"value": plan.thresholds[key], "removed": len(self.removed[key]),
                         "removed_chunk_ids": self.removed[key][:50]} for key in ("cosine", "bm25")},
                "rerank": {"value": plan.thresholds["rerank"], "removed": len(self.rerank_removed),
                           "removed_chunk_ids": self.rerank_removed[:50], "applied": self.rerank_applied}},
            "rrf": {"k": plan.rrf_k, "weights": plan.weights},
            "channels": self.channels, "degraded": self.degraded,
        }
        if self.rewritten_query is not None:
            out["rewritten_query"] = self.rewritten_query
        out["floor"] = self.floor
        if self.collapsed:
            out["duplicates"] = {"collapsed": len(self.collapsed), "chunks": self.collapsed[:50]}
        if self.rerank is not None:
            out["rerank"] = self.rerank
        out["timings_ms"] = self.timings_ms
        return out

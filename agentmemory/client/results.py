"""Typed results of the client: a memory as the mem0-style verbs return it, and an assembled context."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Memory:
    """One memory as the mem0-style verbs return it."""

    id: int
    memory: str
    user_id: str
    type: str = ""
    key: str = ""
    source: str = ""
    confidence: float = 0.0
    status: str = ""
    agent_id: str | None = None
    metadata: dict = field(default_factory=dict)
    value: Any = None
    score: float | None = None
    event: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    supersedes: int | None = None
    provenance: dict = field(default_factory=dict)

    @classmethod
    def from_api(cls, data: dict) -> Memory:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Context:
    """The assembled context: the prompt to send, its sections, the trace."""

    prompt: str
    route: str
    sections: dict
    trace: dict
    token_counts: dict
    raw: dict
    context_id: int | None = None  # its row in the context ledger (feedback names it)

    @classmethod
    def from_api(cls, data: dict) -> Context:
        return cls(prompt=data.get("prompt", ""), route=data.get("route", ""), sections=data.get("sections", {}),
                   trace=data.get("trace", {}), token_counts=data.get("token_counts", {}), raw=data,
                   context_id=data.get("context_id"))


def memory_list(data: Any) -> list[Memory]:
    return [Memory.from_api(item) for item in (data or {}).get("results", [])]


def add_result(data: Any) -> Any:
    """The answer of ``add``, its ``results`` as Memory objects."""
    return {**data, "results": memory_list(data)} if isinstance(data, dict) and "results" in data else data

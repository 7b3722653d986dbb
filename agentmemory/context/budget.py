"""Stage 4, budget: fill the token budget by score, with a cap on memory.

Pure. The current message, the instructions and the section headers are fixed costs; what remains
is filled in two passes. Memory (profile and long-term memory) goes first but only up to its cap
(AGENTMEMORY['CONTEXT_MEMORY_SHARE'] of the budget, a quarter by default), so the knowledge never
crowds out the profile and the profile never crowds out the facts; memory is taken strictly in score
order (the first memory that does not fit closes the section, so what is kept is always the
highest-scoring). Knowledge and working memory then share the rest in score order, a long item that
does not fit letting shorter, lower-scored ones through.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..types import ContextItem
from .combine import MEMORY_LAYERS


@dataclass(frozen=True)
class BudgetResult:
    kept: list[ContextItem]
    dropped: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)


def memory_cap(budget: int, share: float) -> int:
    """Tokens memory may use in a budget (header included)."""
    return max(0, math.floor(budget * max(0.0, min(1.0, share))))


def fill_budget(items: Iterable[ContextItem], *, budget: int, fixed_tokens: int, memory_share: float,
                memory_header_tokens: int = 0) -> BudgetResult:
    """Keep the items that fit, best first; ``items`` carry their own rendered cost in ``tokens``.

    ``fixed_tokens`` (instructions, headers, current message) must already fit in ``budget``; the
    caller rejects the request otherwise. ``memory_header_tokens`` is the memory section's header,
    counted against the memory cap so the whole rendered section stays within it.
    """
    ranked = sorted(items, key=lambda it: -it.score)
    free = budget - fixed_tokens
    cap = memory_cap(budget, memory_share)
    memory_free = max(0, min(cap - memory_header_tokens, free))
    kept: list[ContextItem] = []
    dropped: list[dict[str, Any]] = []
    memory_used = 0
    memory_closed = False
    for item in ranked:
        if item.layer not in MEMORY_LAYERS:
            continue
        if not memory_closed and item.tokens <= memory_free - memory_used:
            kept.append(item)
            memory_used += item.tokens
            continue
        memory_closed = True
        dropped.append(_drop(item, f"memory cap: {memory_free - memory_used} of {cap} tokens left, "
                                   f"needs {item.tokens}"))
    free -= memory_used
    other_used = 0
    for item in ranked:
        if item.layer in MEMORY_LAYERS:
            continue
        if item.tokens <= free - other_used:
            kept.append(item)
            other_used += item.tokens
        else:
            dropped.append(_drop(item, f"budget: {free - other_used} tokens left, needs {item.tokens}"))
    kept.sort(key=lambda it: -it.score)
    usage = {"budget": budget, "fixed": fixed_tokens, "memory_cap": cap, "memory": memory_used,
             "other": other_used, "unused": budget - fixed_tokens - memory_used - other_used}
    return BudgetResult(kept=kept, dropped=dropped, usage=usage)


def _drop(item: ContextItem, detail: str) -> dict[str, Any]:
    return {"key": item.key, "layer": item.layer, "kind": item.kind, "score": item.score,
            "tokens": item.tokens, "reason": "budget", "detail": detail}

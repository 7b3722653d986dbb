"""Reciprocal Rank Fusion of ranked channel lists, with optional per-channel weights (pure, no ORM)."""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Fused:
    """One fused item: its key, fused score and each channel's RRF contribution (rank is 1-based)."""

    key: Hashable
    score: float
    contributions: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)


def rrf(
    rankings: Mapping[str, Sequence[Hashable]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fuse ranked lists: score(d) = sum over channels c of weight_c / (k + rank_c(d)).

    ``rankings`` maps a channel name to its keys, best first (duplicates after the first ignored).
    Ties are broken by the best single rank, then by the order of the channels given, so the result
    is deterministic.
    """
    if k < 0:
        raise ValueError("RRF k must be >= 0")
    weights = weights or {}
    items: dict[Hashable, Fused] = {}
    order: dict[Hashable, tuple[int, int]] = {}
    for channel_index, (channel, keys) in enumerate(rankings.items()):
        weight = float(weights.get(channel, 1.0))
        rank = 0
        seen = set()
        for key in keys:
            if key in seen:
                continue
            seen.add(key)
            rank += 1
            contribution = weight / (k + rank)
            item = items.get(key)
            if item is None:
                item = items[key] = Fused(key=key, score=0.0)
                order[key] = (rank, channel_index)
            else:
                order[key] = min(order[key], (rank, channel_index))
            item.score += contribution
            item.contributions[channel] = contribution
            item.ranks[channel] = rank
    return sorted(items.values(), key=lambda f: (-f.score, order[f.key]))

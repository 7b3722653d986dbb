"""Fusion of ranked channels, written once for the three places that fuse (pure, no ORM).

Knowledge search fuses its keyword and vector channels with weighted Reciprocal Rank Fusion (``rrf``);
memory recall fuses its channels by min-max normalised CombSUM or by RRF (``fuse_channels``); the context
puts each layer's scores on one scale relative to its best (``scale_to_best``).
"""
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


def rrf_contribution(rank: int, *, k: int, weight: float = 1.0) -> float:
    """What a channel gives the item it ranks at ``rank`` (1-based): weight / (k + rank)."""
    return weight / (k + rank)


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
            contribution = rrf_contribution(rank, k=k, weight=weight)
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


def ranks(scores: Mapping[Hashable, float]) -> dict[Hashable, int]:
    """1-based rank of every key by descending score (ties keep the mapping's order)."""
    return {key: i for i, key in enumerate(sorted(scores, key=lambda key: -scores[key]), start=1)}


def minmax(scores: Mapping[Hashable, float]) -> dict[Hashable, float]:
    """Scores mapped linearly to [0, 1] (all equal: all 1.0)."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def scale_to_best(scores: list[float]) -> list[float]:
    """Scores of one channel to [0, 1] relative to the best (the best is 1.0; zeros stay 0)."""
    top = max((s for s in scores if s > 0), default=0.0)
    if top <= 0:
        return [0.0 for _ in scores]
    return [max(0.0, min(1.0, s / top)) for s in scores]


def fuse_channels(vector: dict[int, float], bm25: dict[int, float], *, method: str, vector_weight: float,
                  rrf_k: int = 60, extra: Sequence[tuple[dict[int, float], float]] = (),
                  ) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
    """Relevance of every candidate from a vector and a keyword channel: (relevance, vector_norm, bm25_norm).

    ``method`` "minmax": CombSUM of min-max normalised scores, the vector channel weighing ``vector_weight``
    (all of it when only one channel found anything); "rrf": reciprocal ranks, scaled so that rank 1 in
    both channels gives 1.0. ``extra`` channels (recall's dialogue windows) each add weight x their
    normalised score on top of the mix, so an item outside every extra channel keeps its relevance.
    """
    extra = [(scores, weight) for scores, weight in extra if weight > 0 and scores]
    ids = set(vector) | set(bm25)
    for scores, _weight in extra:
        ids |= set(scores)
    if method == "rrf":
        vr, br = ranks(vector), ranks(bm25)
        vn = {k: rrf_contribution(vr[k], k=rrf_k) if k in vr else 0.0 for k in ids}
        bn = {k: rrf_contribution(br[k], k=rrf_k) if k in br else 0.0 for k in ids}
        relevance = {k: (vn[k] + bn[k]) * (rrf_k + 1) / 2 for k in ids}
        for scores, weight in extra:
            for k, rank in ranks(scores).items():
                relevance[k] += weight * (rrf_k + 1) / 2 / (rrf_k + rank)
        return relevance, vn, bn
    vn_raw, bn_raw = minmax(vector), minmax(bm25)
    vn = {k: vn_raw.get(k, 0.0) for k in ids}
    bn = {k: bn_raw.get(k, 0.0) for k in ids}
    w = vector_weight if vector and bm25 else (1.0 if vector else 0.0)
    relevance = {k: w * vn[k] + (1 - w) * bn[k] for k in ids}
    for scores, weight in extra:
        for k, value in minmax(scores).items():
            relevance[k] += weight * value
    return relevance, vn, bn

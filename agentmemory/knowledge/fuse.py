"""The fuse stage of a knowledge search: per base, RRF of its channels, then its relevance floor; across bases,
one list merged by RRF score (ranking/fusion.py holds the RRF itself)."""
from __future__ import annotations

from ..ranking.fusion import rrf
from .channels import ChannelsOutcome
from .floor import apply_floor
from .trace import SearchTrace


def fuse_bases(outcome: ChannelsOutcome, trace: SearchTrace) -> dict[str, list[int]]:
    """Per base slug, its chunk ids fused by RRF (each hit's channel shares recorded) and past the floor."""
    plan = trace.plan
    per_base: dict[str, list[int]] = {}
    for kb in plan.knowledge_bases:
        evidence = outcome.bases[kb.slug]
        with trace.timed("fuse"):
            fused = rrf(evidence.rankings, k=plan.rrf_k, weights=plan.weights)
            for f in fused:
                trace.fused[f.key] = {"rrf": f.score, "contributions": f.contributions}
                for channel, contribution in f.contributions.items():
                    trace.evidence[f.key][channel]["rrf"] = round(contribution, 6)
        with trace.timed("floor"):
            per_base[kb.slug] = apply_floor(kb, [f.key for f in fused], trace, evidence=evidence,
                                            query_language=outcome.query_language, model_name=outcome.model_name,
                                            query_vector=outcome.query_vector)
    return per_base


def merge_bases(per_base: dict[str, list[int]], trace: SearchTrace) -> list[int]:
    """One ranking across bases by RRF score.

    Each base's BM25 uses its own statistics, so raw scores are not comparable across bases, but RRF
    scores are (same channels, same k); interleaving bases by rank alone would put every base's best first.
    """
    with trace.timed("fuse"):
        if len(per_base) <= 1:
            return next(iter(per_base.values()), [])
        merged = [(trace.fused[cid]["rrf"], rank, cid) for ranked in per_base.values()
                  for rank, cid in enumerate(ranked)]
        return [cid for _score, _rank, cid in sorted(merged, key=lambda x: (-x[0], x[1], x[2]))]

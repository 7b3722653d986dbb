"""The fuse stage of a knowledge search: per base, RRF of its channels, then its relevance floor; across bases,
one list merged by RRF score (ranking/fusion.py holds the RRF itself)."""
from __future__ import annotations

from ..conf import app_settings
from ..ranking.fusion import rrf
from .channels import FOREIGN_BASE_SHARE, ChannelsOutcome
from .floor import apply_floor
from .trace import SearchTrace


def fuse_bases(outcome: ChannelsOutcome, trace: SearchTrace) -> dict[str, list[int]]:
    """Per base slug, its chunk ids fused by RRF (each hit's channel shares recorded) and past the floor."""
    plan = trace.plan
    per_base: dict[str, list[int]] = {}
    for kb in plan.knowledge_bases:
        evidence = outcome.bases[kb.slug]
        with trace.timed("fuse"):
            weights = plan.weights
            languages = evidence.chunk_languages or {}
            own = languages.get(outcome.query_language, 0)
            foreign = bool(outcome.query_language and languages) and own < FOREIGN_BASE_SHARE * sum(languages.values())
            if foreign and "keyword" in evidence.rankings:
                # (Almost) no chunk shares the query's language: its words match only names and numbers written
                # in Latin letters, while the shifted vector channel carries the meaning.
                weights = {**weights, "keyword": weights.get("keyword", 1.0) * app_settings.CROSS_LINGUAL_KEYWORD_WEIGHT}
                trace.channels[kb.slug]["rrf_weights"] = weights
            fused = rrf(evidence.rankings, k=plan.rrf_k, weights=weights)
            if not foreign and len(languages) > 1:
                fused = _stand_in_for_keywords(fused, evidence, outcome.query_language, weights, trace)
            for f in fused:
                trace.fused[f.key] = {"rrf": f.score, "contributions": f.contributions}
                for channel, contribution in f.contributions.items():
                    if channel in trace.evidence[f.key]:
                        trace.evidence[f.key][channel]["rrf"] = round(contribution, 6)
        with trace.timed("floor"):
            per_base[kb.slug] = apply_floor(kb, [f.key for f in fused], trace, evidence=evidence,
                                            query_language=outcome.query_language, model_name=outcome.model_name,
                                            query_vector=outcome.query_vector)
    return per_base


def _stand_in_for_keywords(fused: list, evidence, query_language: str, weights: dict, trace: SearchTrace) -> list:
    """In a base holding both languages, a chunk in the other language than the query's can never match its
    words: its vector rank stands in for the keyword rank it cannot have (the chunk scores as if both
    channels ranked it where the vector channel does), so an English return policy is not outranked by an
    English shipping page that shares "business days" with a Chinese question's translation. A chunk the keyword
    channel did match in the other language (through the dictionary) keeps the better of the two. Re-sorted."""
    keyword_weight, vector_weight = weights.get("keyword", 1.0), weights.get("vector", 1.0)
    for f in fused:
        language = evidence.languages.get(f.key, "")
        if language and language != query_language and "vector" in f.contributions and vector_weight:
            # A match through the dictionary (text/lexicon.py) counts when it ranks the chunk higher still.
            stand_in = f.contributions["vector"] * keyword_weight / vector_weight - f.contributions.get("keyword", 0.0)
            if stand_in <= 0:
                continue
            f.score += stand_in
            f.contributions["keyword_stand_in"] = stand_in
            trace.evidence[f.key]["vector"]["keyword_stand_in"] = round(stand_in, 6)
    return sorted(fused, key=lambda f: -f.score)


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

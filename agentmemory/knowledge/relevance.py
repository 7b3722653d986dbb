"""The relevance model: does a hit answer its query? Two logistic regressions (same-language hits,
cross-lingual hits) over evidence that means the same for every query, shipped with their weights
(``agentmemory/data/relevance.json``).

Evidence per hit: the dense cosine; its standing among the query's own vector candidates of the chunk's
language (margin over their median, z-score, gap to the best, lead over the next one below it, and how far the
best leads the second); BM25 over the query's maximum possible BM25,
and whether any query word matched at all; how many candidates the standing is measured among (a small
base has few: trained on subsets of 1 to 50 documents too). A cross-lingual match sits lower than a
same-language one even after crosslingual.py's shift, so the two cases have their own weights and
thresholds. Trained by ``agentmemory_train_relevance`` on questions in both languages and both directions,
with off-topic questions as negatives; the threshold of each scorer is chosen there on the dev split to keep
a set share of the answers the unfloored search found (docs/retrieval.md gives the trade-off per pair).
"""
from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

FEATURES = ("cosine", "margin", "z", "gap", "lead", "peak", "bm25", "has_bm25", "ln_candidates")
logger = logging.getLogger("agentmemory.knowledge")
MODEL_PATH = Path(__file__).resolve().parent.parent / "data" / "relevance.json"


@dataclass(frozen=True)
class Evidence:
    """What the search knows about one hit, on the model's scales."""

    cosine: float
    bm25_norm: float
    median: float
    mean: float
    std: float
    best: float
    cross: bool  # the query and the chunk are written in different languages
    candidates: int  # how many vector candidates the standing is measured among (a small base has few)
    top: tuple[float, ...] = ()  # the best candidates' cosines, best first

    def vector(self) -> list[float]:
        below = next((v for v in self.top if v < self.cosine - 1e-6), self.median)
        second = self.top[1] if len(self.top) > 1 else self.median
        return [self.cosine, self.cosine - self.median, (self.cosine - self.mean) / max(self.std, 0.005),
                self.best - self.cosine, max(0.0, self.cosine - below), self.best - second,
                self.bm25_norm, 1.0 if self.bm25_norm > 0 else 0.0, math.log(max(1, self.candidates))]


@dataclass(frozen=True)
class Scorer:
    """One logistic regression on standardised features, and the probability a hit needs."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float  # a search hit needs this probability
    context_threshold: float  # a chunk reaching a prompt needs this one (context/layers/knowledge.py)

    def probability(self, x: list[float]) -> float:
        logit = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale,
                                                                     strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))


@dataclass(frozen=True)
class RelevanceModel:
    """A scorer for same-language hits and one for cross-lingual hits (their scales differ)."""

    same: Scorer
    cross: Scorer

    def scorer(self, cross: bool) -> Scorer:
        return self.cross if cross else self.same

    def probability(self, evidence: Evidence) -> float:
        return self.scorer(evidence.cross).probability(evidence.vector())

    def threshold(self, cross: bool) -> float:
        return self.scorer(cross).threshold

    def as_dict(self) -> dict:
        return {"features": list(FEATURES), "same": self.same.__dict__, "cross": self.cross.__dict__}

    @classmethod
    def from_dict(cls, data: dict) -> RelevanceModel:
        if list(data.get("features", [])) != list(FEATURES):
            raise ValueError(f"relevance model features {data.get('features')} are not {list(FEATURES)}")

        def scorer(part: dict) -> Scorer:
            return Scorer(tuple(part["mean"]), tuple(part["scale"]), tuple(part["weights"]), float(part["bias"]),
                          float(part["threshold"]), float(part["context_threshold"]))

        return cls(scorer(data["same"]), scorer(data["cross"]))


@lru_cache(maxsize=1)
def bundled_model() -> RelevanceModel | None:
    """The shipped model (None when the package has none: the floor's rules decide alone)."""
    if not MODEL_PATH.exists():
        return None
    try:
        return RelevanceModel.from_dict(json.loads(MODEL_PATH.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as exc:  # a file from another version: the rules decide
        logger.warning("relevance model %s not used: %s", MODEL_PATH, exc)
        return None

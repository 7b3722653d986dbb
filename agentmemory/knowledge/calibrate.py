"""Calibrating a knowledge base's relevance floor from its own evaluation cases and off-topic questions.

Each in-domain case is searched without the floor; the evidence (dense cosine, normalised BM25) of the
relevant hits in its top k is kept. Each off-topic question (``off_topic.OFF_TOPIC_QUESTIONS`` plus any
the operator adds) is searched the same way, keeping the evidence of all its hits. The floors chosen
are the pair that rejects the most off-topic questions (no hit passes) while keeping at least
``target`` of the cases the unfloored search found (one relevant hit still passes). Searched on a grid,
"no floor on this channel" included.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass, field

import numpy as np
from django.utils import timezone

from ..text.language import language_of
from .evaluate import Case
from .floor import base_size, floors_for
from .off_topic import OFF_TOPIC_QUESTIONS
from .relevance import bundled_model
from .search import search_knowledge

COSINE_GRID = tuple(round(0.70 + 0.005 * i, 3) for i in range(57))  # 0.700 .. 0.980
BM25_GRID = tuple(round(0.05 + 0.025 * i, 3) for i in range(39))  # 0.050 .. 1.000
LOW_GRID = (None, *(round(0.80 + 0.005 * i, 3) for i in range(17)))  # cosine a BM25 pass needs: 0.80 .. 0.88


@dataclass(frozen=True)
class FloorChoice:
    cosine: float | None
    bm25: float | None
    margin: float | None
    bm25_min_cosine: float | None
    recall_kept: float  # share of the cases found without a floor that are still found
    rejection: float  # share of off-topic questions left with no hit


@dataclass
class Calibration:
    knowledge_base: str
    cases: int
    found_without_floor: int
    off_topic: int
    off_topic_with_hits_without_floor: int
    top_k: int
    target: float
    choice: FloorChoice
    alternatives: list[FloorChoice] = field(default_factory=list)
    holdout: dict | None = None
    by_language: list[dict] = field(default_factory=list)  # the chosen floors per question language
    at: str = ""
    chunks: int = 0  # the base's active chunks when calibrated: the floors move with its size (floor.size_shift)

    def as_dict(self) -> dict:
        return asdict(self)


# cosine, normalised BM25, cosine margin (-1: unknown); then 1.0 for a cross-lingual hit the relevance model
# passes (the floor's rules are chosen for same-language hits; across languages the model decides with them).
Evidence = tuple[float, float, float, float]


def _evidence(hit) -> Evidence:
    floor = hit.channels.get("floor", {})
    cosine, margin = floor.get("cosine"), floor.get("margin")
    model = bundled_model()
    probability = floor.get("probability")
    cross_pass = bool(floor.get("cross_lingual") and model is not None and probability is not None
                      and probability >= model.threshold(True))
    return ((-1.0 if cosine is None else float(cosine)), float(floor.get("bm25_norm") or 0.0),
            (-1.0 if margin is None else float(margin)), 1.0 if cross_pass else 0.0)


def _relevant(hit, case: Case) -> bool:
    return hit.document_id in case.document_ids or hit.chunk_id in case.chunk_ids


def collect(kb, cases: list[Case], off_topic: list[str], *, top_k: int = 5,
            progress=None) -> tuple[list[list[Evidence]], list[list[Evidence]]]:
    """Evidence of each case's relevant hits in its unfloored top k, and of each off-topic question's hits
    (in the order given: cases, then questions)."""
    relevant, negatives = [], []
    for i, case in enumerate(cases, start=1):
        result = search_knowledge(case.query, knowledge_bases=[kb], top_k=top_k, floor=False)
        relevant.append([_evidence(h) for h in result.hits if _relevant(h, case)])
        if progress:
            progress(i, len(cases))
    for question in off_topic:
        result = search_knowledge(question, knowledge_bases=[kb], top_k=top_k, floor=False)
        negatives.append([_evidence(h) for h in result.hits])
    return relevant, negatives


def _as_arrays(groups: list[list[Evidence]]) -> tuple[np.ndarray, np.ndarray]:
    owner = np.array([g for g, items in enumerate(groups) for _ in items], dtype=np.int64)
    values = np.array([e for items in groups for e in items], dtype=np.float64).reshape(-1, 4)
    return owner, values


def _groups_passing(owner, values, fc: float | None, fb: float | None, fm: float | None,
                    low: float | None = None) -> int:
    if not len(owner):
        return 0
    passing = values[:, 3] > 0  # cross-lingual hits the model passes
    if fc is not None:
        passing |= values[:, 0] >= fc
    if fb is not None:
        bm25_pass = values[:, 1] >= fb
        if low is not None:
            bm25_pass &= (values[:, 0] >= low) | (values[:, 0] < 0)  # -1: cosine unknown
        passing |= bm25_pass
    if fm is not None:
        passing |= values[:, 2] >= fm
    return int(np.unique(owner[passing]).size)


def evaluate_floor(relevant, negatives, fc: float | None, fb: float | None, fm: float | None = None,
                   low: float | None = None) -> FloorChoice:
    found = [g for g in relevant if g]
    r_owner, r_values = _as_arrays(found)
    n_owner, n_values = _as_arrays(negatives)
    kept = _groups_passing(r_owner, r_values, fc, fb, fm, low)
    leaking = _groups_passing(n_owner, n_values, fc, fb, fm, low)
    return FloorChoice(fc, fb, fm, low, round(kept / len(found), 4) if found else 1.0,
                       round(1 - leaking / len(negatives), 4) if negatives else 0.0)


def _strictness(floor: float | None) -> float:
    return 2.0 if floor is None else floor  # None: that scale never passes a hit, the strictest setting


def choose(relevant, negatives, *, target: float = 0.99,
           margin: float | None = None) -> tuple[FloorChoice, list[FloorChoice]]:
    """The grid point rejecting the most off-topic questions with ``recall_kept >= target``; and the best
    point for a few other targets, to show the trade-off. ``margin`` is kept as given (cross-lingual
    matches need it; a base's own cases rarely hold any)."""
    points = [evaluate_floor(relevant, negatives, fc, fb, margin, low)
              for fc in (*COSINE_GRID, None) for fb in (*BM25_GRID, None) for low in LOW_GRID
              if not (fc is None and fb is None) and not (fb is None and low is not None)]

    def best(goal: float) -> FloorChoice:
        eligible = [p for p in points if p.recall_kept >= goal] or [max(points, key=lambda p: p.recall_kept)]
        # Among equals, the loosest floors: they leave the most room for in-domain questions the cases
        # do not show (a few cases tie across a wide range; the strictest end would fit exactly those).
        return max(eligible, key=lambda p: (p.rejection, p.recall_kept, -_strictness(p.cosine),
                                            -_strictness(p.bm25), -(p.bm25_min_cosine or 0.0)))

    alternatives = [best(goal) for goal in (0.999, 0.995, 0.98, 0.95, 0.9) if goal != target]
    return best(target), alternatives


def calibrate(kb, cases: list[Case], *, extra_off_topic: list[str] = (), top_k: int = 5, target: float = 0.99,
              holdout: float = 0.0, margin: float | None = None, save: bool = False, progress=None) -> Calibration:
    """Choose (and with ``save`` store on ``kb``) the floors; ``holdout`` checks them on a share of the cases
    left out of the choice (every n-th case)."""
    off_topic = list(dict.fromkeys([*OFF_TOPIC_QUESTIONS, *extra_off_topic]))
    relevant, negatives = collect(kb, cases, off_topic, top_k=top_k, progress=progress)
    tune, check = relevant, []
    if holdout > 0:
        every = max(2, round(1 / holdout))
        tune = [g for i, g in enumerate(relevant) if i % every]
        check = [g for i, g in enumerate(relevant) if not i % every]
    if margin is None:
        margin = floors_for(kb).margin
    choice, alternatives = choose(tune, negatives, target=target, margin=margin)
    by_language = []
    case_languages = [language_of(c.query, default="") for c in cases]
    question_languages = [language_of(q, default="") for q in off_topic]
    for language in sorted(set(case_languages + question_languages)):
        mine = [g for g, lang in zip(relevant, case_languages, strict=True) if lang == language]
        theirs = [g for g, lang in zip(negatives, question_languages, strict=True) if lang == language]
        measured = evaluate_floor(mine, theirs, choice.cosine, choice.bm25, choice.margin, choice.bm25_min_cosine)
        by_language.append({"language": language or "?", "cases": len(mine), "found": sum(1 for g in mine if g),
                            "recall_kept": measured.recall_kept, "off_topic": len(theirs),
                            "rejection": measured.rejection if theirs else None})
    held = None
    if check:
        measured = evaluate_floor(check, negatives, choice.cosine, choice.bm25, choice.margin, choice.bm25_min_cosine)
        held = {"cases": len(check), "found_without_floor": sum(1 for g in check if g),
                "recall_kept": measured.recall_kept}
    result = Calibration(
        knowledge_base=kb.slug, cases=len(cases), found_without_floor=sum(1 for g in relevant if g),
        off_topic=len(negatives), off_topic_with_hits_without_floor=sum(1 for g in negatives if g),
        top_k=top_k, target=target, choice=choice, alternatives=alternatives, holdout=held, by_language=by_language,
        at=timezone.now().astimezone(dt.UTC).isoformat(timespec="seconds"), chunks=base_size(kb))
    if save:
        kb.floor_cosine, kb.floor_bm25, kb.floor_margin = choice.cosine, choice.bm25, choice.margin
        kb.floor_bm25_min_cosine = choice.bm25_min_cosine
        kb.floor_calibration = result.as_dict()
        kb.save(update_fields=["floor_cosine", "floor_bm25", "floor_margin", "floor_bm25_min_cosine",
                               "floor_calibration", "updated_at"])
    return result

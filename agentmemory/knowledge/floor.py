"""The relevance floor: a fused hit stays only when its evidence is strong on a scale that means the same
for every query (see search.py's docstring); floors per base, moved for the base's size."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..conf import app_settings
from .relevance import Evidence, RelevanceModel, bundled_model
from .retrieve import active_chunk_count, chunk_cosines
from .trace import SearchTrace

if TYPE_CHECKING:
    from .channels import BaseEvidence


@dataclass(frozen=True)
class Floors:
    """A knowledge base's relevance floors (None: that scale never passes a hit) and where they come from."""

    cosine: float | None
    bm25: float | None
    margin: float | None
    bm25_min_cosine: float | None = None  # a BM25 pass also needs this cosine (matched words, other meaning)
    source: str = "default"
    size_shift: float = 0.0  # added to both cosine floors for this base's size (see floors_for)
    model: bool = False  # the relevance model (relevance.py) passes what the rules above do not

    @property
    def off(self) -> bool:
        return self.cosine is None and self.bm25 is None and self.margin is None and not self.model


def _num(value) -> float | None:
    return None if value is None else float(value)


def size_shift(chunks: int | None, reference: int | None, slope: float | None) -> float:
    """How much higher a cosine floor sits in a base of ``chunks`` than in the ``reference`` base it was set on.

    The best cosine an unrelated question reaches grows with the number of chunks it meets (the
    maximum of more near-misses): measured on cmrc2018-dev subsets of 3 to 1,736 chunks, the 95th
    percentile of off-topic questions' best cosine rose from 0.847 to 0.876, linear in ln(chunks)
    (slope 0.0045). A floor calibrated on a large base is too strict for a small one without this.
    """
    if not chunks or not reference or not slope:
        return 0.0
    return max(-0.05, min(0.05, float(slope) * math.log(max(1, chunks) / float(reference))))


def base_size(kb) -> int:
    """The number of active chunks of ``kb``."""
    return active_chunk_count([kb.pk])


def floors_for(kb, chunks: int | None = None) -> Floors:
    """The base's own floors when any is set (by calibration or the admin), else KNOWLEDGE_FLOOR; both cosine
    floors moved for the base's size (``chunks`` active chunks) when the floors say what size they were set on."""
    default = app_settings.KNOWLEDGE_FLOOR or {}
    slope = _num(default.get("size_slope"))
    model = bool(default.get("model")) and bundled_model() is not None
    if kb.floor_cosine is not None or kb.floor_bm25 is not None or kb.floor_margin is not None:
        reference = (kb.floor_calibration or {}).get("chunks")  # set by calibration; admin floors: no shift
        floors = Floors(kb.floor_cosine, kb.floor_bm25, kb.floor_margin, kb.floor_bm25_min_cosine, "knowledge_base",
                        model=model)
    else:
        reference = default.get("reference_chunks")
        floors = Floors(_num(default.get("cosine")), _num(default.get("bm25")), _num(default.get("margin")),
                        _num(default.get("bm25_min_cosine")), model=model)
    shift = size_shift(chunks, reference, slope)
    if not shift:
        return floors
    return Floors(None if floors.cosine is None else round(floors.cosine + shift, 4), floors.bm25, floors.margin,
                  None if floors.bm25_min_cosine is None else round(floors.bm25_min_cosine + shift, 4),
                  floors.source, round(shift, 4), floors.model)


def floor_passes(cosine: float | None, bm25_norm: float, margin: float | None, floors: Floors) -> str:
    """The scale on which the evidence clears its floor ("cosine", "bm25", "margin"), or "" when none does."""
    if floors.cosine is not None and cosine is not None and cosine >= floors.cosine:
        return "cosine"
    if floors.bm25 is not None and bm25_norm >= floors.bm25 and (
            floors.bm25_min_cosine is None or cosine is None or cosine >= floors.bm25_min_cosine):
        return "bm25"
    if floors.margin is not None and margin is not None and margin >= floors.margin:
        return "margin"
    return ""


def apply_floor(kb, ranked: list[int], trace: SearchTrace, *, evidence: BaseEvidence, query_language: str,
                model_name: str, query_vector) -> list[int]:
    """``ranked`` without the hits under the base's floors; every hit's evidence in the trace (``floor``).

    A hit is judged on the scales of its own language: its cosine with the query vector of its language
    (backends/embeddings/crosslingual.py) and its standing among the vector candidates of that language. It
    passes when the rules (``floor_passes``) pass it, or the relevance model (relevance.py) does: for the
    default floors, and for a cross-lingual hit whatever the floors (a base's own floors are calibrated on its
    own-language questions).
    The model adds the answers the rules miss (a cross-lingual match, a paraphrase); a hit without a cosine
    (the embedder failed) is judged by the rules alone.
    """
    enabled = trace.plan.floor
    chunks = evidence.chunks
    floor_trace = trace.floor
    if chunks is None and enabled:  # no channel counted the base (the vector channel skipped for its model)
        chunks = base_size(kb)
    floors = floors_for(kb, chunks)
    model = bundled_model() if floors.model else None
    stats_by_language = evidence.cosine_stats
    floor_trace["knowledge_bases"][kb.slug] = {
        "cosine": floors.cosine, "bm25": floors.bm25, "margin": floors.margin, "bm25_min_cosine": floors.bm25_min_cosine,
        "model": floors.model, "source": floors.source, "chunks": chunks, "size_shift": floors.size_shift,
        "query_language": query_language, "candidates": stats_by_language,
        "median_cosine": next(iter(stats_by_language.values()), {}).get("median")}
    if not ranked:
        return ranked
    off = not enabled or floors.off
    channel_info = trace.evidence
    found = {cid: (info["vector"]["score"], evidence.languages.get(cid, ""))
             for cid, info in ((c, channel_info.get(c, {})) for c in ranked) if "vector" in info}
    missing = [cid for cid in ranked if cid not in found]
    if missing and query_vector is not None and (not floors.off or not enabled):
        # Keyword-only hits: their cosine, for the same evidence scale (one query over a few ids). Skipped
        # when no floor is configured at all: nothing would read it on the hot path.
        vectors = evidence.query_vectors or {"": query_vector}
        found.update(chunk_cosines(missing, vectors, model_name=model_name))
    max_bm25 = evidence.max_bm25
    kept = []
    for cid in ranked:
        info = channel_info.setdefault(cid, {})
        cosine, language = found.get(cid, (None, ""))
        cross = bool(language and query_language and language != query_language)
        stats = stats_by_language.get(language) or next(iter(stats_by_language.values()), None)
        raw = info.get("keyword", {}).get("score", 0.0)
        bm25_norm = round(raw / max_bm25, 6) if max_bm25 else 0.0
        # With the dictionary's words searched too (channels.py), the BM25 of the question's own words: what
        # the relevance model was trained on, and what the context's stricter gate reads.
        own_norm = bm25_norm if evidence.own_bm25 is None else \
            round(evidence.own_bm25.get(cid, 0.0) / evidence.own_max_bm25, 6) if evidence.own_max_bm25 else 0.0
        margin = None if cosine is None or not stats else round(float(cosine) - stats["median"], 6)
        probability = context_probability = None
        by = floor_passes(cosine, bm25_norm, margin, floors)
        if model is not None and cosine is not None and stats and (cross or floors.source == "default"):
            judged = [model.probability(Evidence(float(cosine), norm, stats["median"], stats["mean"], stats["std"],
                                                 stats["best"], cross, int(stats["n"]), tuple(stats.get("top") or ())))
                      for norm in dict.fromkeys((bm25_norm, own_norm))]
            probability, context_probability = judged[0], judged[-1]
            by = by or ("model" if probability >= model.threshold(cross) else "")
        info["floor"] = {"cosine": None if cosine is None else round(float(cosine), 6), "bm25_norm": bm25_norm,
                         "margin": margin, "language": language, "cross_lingual": cross,
                         "probability": None if probability is None else round(probability, 4),
                         "passed": bool(by) or off, "by": by or ("off" if off else "")}
        if own_norm != bm25_norm:
            info["floor"]["own_bm25_norm"] = own_norm
            if context_probability is not None:
                info["floor"]["context_probability"] = round(context_probability, 4)
        if by or off:
            kept.append(cid)
            continue
        floor_trace["removed"] += 1
        if len(floor_trace["removed_hits"]) < 50:
            floor_trace["removed_hits"].append({"chunk_id": cid, "knowledge_base": kb.slug, **info["floor"],
                                                "reason": _reason(info["floor"], floors, model)})
    return kept


def _reason(evidence: dict, floors: Floors, model: RelevanceModel | None) -> str:
    cosine, margin = evidence["cosine"], evidence["margin"]
    shown = "n/a" if cosine is None else f"{cosine:.3f}"
    rules = (f"cosine {shown} < {floors.cosine}; bm25_norm {evidence['bm25_norm']:.3f} < {floors.bm25} "
             f"(or cosine < {floors.bm25_min_cosine}); margin {'n/a' if margin is None else f'{margin:.3f}'} "
             f"< {floors.margin}")
    if evidence["probability"] is None or model is None:
        return rules
    kind = "cross-lingual" if evidence["cross_lingual"] else "same language"
    return (f"relevance {evidence['probability']:.3f} < {model.threshold(evidence['cross_lingual']):.3f} "
            f"({kind}); {rules}")

"""The relevance floor: a fused hit stays only when its evidence is strong on a scale that means the same
for every query (see search.py's docstring); floors per base, moved for the base's size."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..conf import app_settings
from .retrieve import active_chunk_count, chunk_cosines
from .trace import SearchTrace


@dataclass(frozen=True)
class Floors:
    """A knowledge base's relevance floors (None: that scale never passes a hit) and where they come from."""

    cosine: float | None
    bm25: float | None
    margin: float | None
    bm25_min_cosine: float | None = None  # a BM25 pass also needs this cosine (matched words, other meaning)
    source: str = "default"
    size_shift: float = 0.0  # added to both cosine floors for this base's size (see floors_for)

    @property
    def off(self) -> bool:
        return self.cosine is None and self.bm25 is None and self.margin is None


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
    if kb.floor_cosine is not None or kb.floor_bm25 is not None or kb.floor_margin is not None:
        reference = (kb.floor_calibration or {}).get("chunks")  # set by calibration; admin floors: no shift
        floors = Floors(kb.floor_cosine, kb.floor_bm25, kb.floor_margin, kb.floor_bm25_min_cosine, "knowledge_base")
    else:
        reference = default.get("reference_chunks")
        floors = Floors(_num(default.get("cosine")), _num(default.get("bm25")), _num(default.get("margin")),
                        _num(default.get("bm25_min_cosine")))
    shift = size_shift(chunks, reference, slope)
    if not shift:
        return floors
    return Floors(None if floors.cosine is None else round(floors.cosine + shift, 4), floors.bm25, floors.margin,
                  None if floors.bm25_min_cosine is None else round(floors.bm25_min_cosine + shift, 4),
                  floors.source, round(shift, 4))


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


def apply_floor(kb, ranked: list[int], trace: SearchTrace, *, query_vector, model_name: str,
                max_bm25: float | None, median_cosine: float | None, chunks: int | None = None) -> list[int]:
    """``ranked`` without the hits under the base's floors; every hit's evidence in the trace (``floor``)."""
    enabled = trace.plan.floor
    channel_info, floor_trace = trace.evidence, trace.floor
    if chunks is None and enabled:  # no channel counted the base (the vector channel skipped for its model)
        chunks = base_size(kb)
    floors = floors_for(kb, chunks)
    floor_trace["knowledge_bases"][kb.slug] = {"cosine": floors.cosine, "bm25": floors.bm25, "margin": floors.margin,
                                               "bm25_min_cosine": floors.bm25_min_cosine, "source": floors.source,
                                               "median_cosine": median_cosine, "chunks": chunks,
                                               "size_shift": floors.size_shift}
    if not ranked:
        return ranked
    off = not enabled or floors.off
    cosines = {cid: info["vector"]["score"] for cid, info in ((c, channel_info.get(c, {})) for c in ranked)
               if "vector" in info}
    missing = [cid for cid in ranked if cid not in cosines]
    if missing and query_vector is not None and (not floors.off or not enabled):
        # Keyword-only hits: their cosine, for the same evidence scale (one query over a few ids). Skipped
        # when no floor is configured at all: nothing would read it on the hot path.
        cosines.update(chunk_cosines(missing, query_vector, model_name=model_name))
    kept = []
    for cid in ranked:
        info = channel_info.setdefault(cid, {})
        cosine = cosines.get(cid)
        raw = info.get("keyword", {}).get("score", 0.0)
        bm25_norm = round(raw / max_bm25, 6) if max_bm25 else 0.0
        margin = None if cosine is None or median_cosine is None else round(float(cosine) - median_cosine, 6)
        by = floor_passes(cosine, bm25_norm, margin, floors)
        info["floor"] = {"cosine": None if cosine is None else round(float(cosine), 6), "bm25_norm": bm25_norm,
                         "margin": margin, "passed": bool(by) or off, "by": by or ("off" if off else "")}
        if by or off:
            kept.append(cid)
            continue
        floor_trace["removed"] += 1
        if len(floor_trace["removed_hits"]) < 50:
            shown = "n/a" if cosine is None else f"{cosine:.3f}"
            floor_trace["removed_hits"].append({
                "chunk_id": cid, "knowledge_base": kb.slug, **info["floor"],
                "reason": (f"cosine {shown} < {floors.cosine}; bm25_norm {bm25_norm:.3f} < {floors.bm25} "
                           f"(or cosine < {floors.bm25_min_cosine}); "
                           f"margin {'n/a' if margin is None else f'{margin:.3f}'} < {floors.margin}")})
    return kept

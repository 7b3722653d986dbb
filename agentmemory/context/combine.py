"""Stage 3, combine the layers: one score across them (layer weight x relevance x decay), then cross-layer dedup.

Pure: no ORM, no network. Each layer's gatherer has already turned its own scores into a
relevance in [0, 1] and a decay in [0, 1]; here they meet on one scale, the weights the seeds
suggest (working memory 1.2, knowledge 1.0, long-term memory 0.8; AGENTMEMORY
['CONTEXT_LAYER_WEIGHTS']) are applied, and the same content reached through two layers is kept
once, at its best score.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..types import ContextItem

MEMORY_LAYERS = ("profile", "long_term_memory")
# The profile is memory too: unless configured apart it weighs what long-term memory weighs.
_WEIGHT_FALLBACK = {"profile": "long_term_memory"}

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD_RE = re.compile(r"[a-z0-9]+")
_STRIP_RE = re.compile(r"[\s\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Combined:
    """Items still in the running, best first, and those dropped with the reason."""

    items: list[ContextItem]
    dropped: list[dict[str, Any]] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)


def layer_weight(layer: str, weights: Mapping[str, float]) -> float:
    if layer in weights:
        return float(weights[layer])
    fallback = _WEIGHT_FALLBACK.get(layer)
    if fallback and fallback in weights:
        return float(weights[fallback])
    return 1.0


def shingles(text: str) -> frozenset[str]:
    """Character bigrams of the Chinese, words of the rest: a language-neutral fingerprint for dedup."""
    folded = text.translate({c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}).lower()
    out: set[str] = set(_WORD_RE.findall(folded))
    cjk = "".join(_CJK_RE.findall(folded))
    if len(cjk) == 1:
        out.add(cjk)
    out.update(cjk[i : i + 2] for i in range(len(cjk) - 1))
    if not out:
        stripped = _STRIP_RE.sub("", folded)
        if stripped:
            out.add(stripped)
    return frozenset(out)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two shingle sets."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def combine_layers(candidates: Iterable[ContextItem], *, weights: Mapping[str, float], min_score: float = 0.0,
                   dedup_threshold: float = 0.8) -> Combined:
    """Score every candidate, drop those under ``min_score`` and cross-layer duplicates, best first.

    Two items are duplicates when they point at the same row (same ``key``, e.g. a memory that is
    both a profile fact and a recall hit) or their texts are near-identical (shingle Jaccard >=
    ``dedup_threshold``); the higher-scoring one stays. Ties keep the earlier layer's copy. A row that is
    a profile fact keeps its profile copy, at the best score of its copies.
    """
    scored: list[ContextItem] = []
    dropped: list[dict[str, Any]] = []
    used_weights: dict[str, float] = {}
    for item in candidates:
        w = layer_weight(item.layer, weights)
        used_weights[item.layer] = w
        score = round(w * item.relevance * item.decay, 6)
        scored.append(replace(item, weight=w, score=score))
    # A memory that is a profile fact stays in the profile (always loaded, its home) at the best score
    # of its copies: recall's access-frequency bonus must not move a key fact out of the profile section.
    best_by_key: dict[str, float] = {}
    for item in scored:
        best_by_key[item.key] = max(best_by_key.get(item.key, 0.0), item.score)
    profile_keys = {item.key for item in scored if item.layer == "profile"}
    scored = [replace(item, score=best_by_key[item.key]) if item.layer == "profile" else item for item in scored]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
    kept: list[ContextItem] = []
    kept_by_key: dict[str, ContextItem] = {}
    kept_shingles: list[tuple[ContextItem, frozenset[str]]] = []
    for i in order:
        item = scored[i]
        if item.score < min_score:
            dropped.append(_drop(item, "threshold", f"score {item.score:.4f} < {min_score}"))
            continue
        if item.key in profile_keys and item.layer != "profile":
            dropped.append(_drop(item, "duplicate", f"same row as profile:{item.key}", of=item.key))
            continue
        if item.key in kept_by_key:
            dropped.append(_drop(item, "duplicate", f"same row as {kept_by_key[item.key].layer}:{item.key}",
                                 of=item.key))
            continue
        sh = shingles(item.text)
        twin = next((k for k, s in kept_shingles if similarity(sh, s) >= dedup_threshold), None)
        if twin is not None:
            dropped.append(_drop(item, "duplicate", f"near-identical to {twin.layer}:{twin.key}", of=twin.key))
            continue
        kept.append(item)
        kept_by_key[item.key] = item
        kept_shingles.append((item, sh))
    return Combined(items=kept, dropped=dropped, weights=used_weights)


def _drop(item: ContextItem, reason: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"key": item.key, "layer": item.layer, "kind": item.kind, "score": item.score,
            "reason": reason, "detail": detail, **extra}

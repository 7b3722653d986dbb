"""Reciprocal Rank Fusion: pure function outputs."""
from __future__ import annotations

import pytest

from agentmemory.ranking.fusion import rrf


def test_rrf_sums_reciprocal_ranks_with_k():
    fused = rrf({"keyword": ["a", "b", "c"], "vector": ["b", "d"]}, k=60)
    scores = {f.key: f.score for f in fused}
    assert [f.key for f in fused] == ["b", "a", "d", "c"]
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    b = next(f for f in fused if f.key == "b")
    assert b.ranks == {"keyword": 2, "vector": 1}
    assert b.contributions["vector"] == pytest.approx(1 / 61)


def test_rrf_weights_change_the_winner():
    plain = rrf({"keyword": ["a", "b"], "vector": ["b", "a"]}, k=60)
    weighted = rrf({"keyword": ["a", "b"], "vector": ["b", "a"]}, k=60, weights={"vector": 2.0})
    assert plain[0].score == pytest.approx(plain[1].score)
    assert [f.key for f in weighted] == ["b", "a"]
    assert weighted[0].contributions["vector"] == pytest.approx(2 / 61)


def test_rrf_ignores_repeated_keys_and_empty_channels():
    fused = rrf({"keyword": ["a", "a", "b"], "vector": []}, k=0)
    assert [(f.key, f.score) for f in fused] == [("a", 1.0), ("b", 0.5)]

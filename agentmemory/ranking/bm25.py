"""Okapi BM25, written once for the knowledge base's keyword channel and the memory recall's (pure, no ORM).

    score(d) = sum_t idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

The knowledge channel computes IDF in Python from its term statistics and sums in SQL; recall computes
both in SQL over the user's scope. The SQL pieces below are the formulas as SQL expressions over the
column names a statement gives them; their ``%s`` placeholders take ``term_score_params(k1, b)``.
"""
from __future__ import annotations

import math


def bm25_idf(n: int, df: int) -> float:
    """Okapi BM25 IDF (the non-negative Lucene/bm25s form)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def idf_sql(n: str, df: str) -> str:
    """The IDF of a term found in ``df`` of ``n`` documents, as an SQL expression (no placeholders)."""
    return f"ln(1 + ({n} - {df} + 0.5) / ({df} + 0.5))"


def term_score_sql(*, idf: str, tf: str, length: str, avgdl: str) -> str:
    """One term's BM25 contribution to one document, as an SQL expression with four placeholders (k1, k1, b, b)
    before any placeholder ``avgdl`` itself holds."""
    return f"{idf} * {tf} * (%s + 1) / ({tf} + %s * (1 - %s + %s * {length} / {avgdl}))"


def term_score_params(k1: float, b: float) -> list[float]:
    """The parameters of ``term_score_sql``'s placeholders, in order."""
    return [k1, k1, b, b]

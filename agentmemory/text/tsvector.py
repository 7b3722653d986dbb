"""PostgreSQL tsvector/tsquery literals from our own tokens (BM25 in SQL for chunks and memories).

PostgreSQL's parser would re-split identifiers such as ``x-200``; building the literal ourselves keeps
our tokens intact, and one position per occurrence makes the number of positions the term frequency.
"""
from __future__ import annotations

from collections import defaultdict

#: PostgreSQL keeps at most 256 positions per lexeme, positions up to 16383, lexemes under 2 KB.
MAX_POSITIONS_PER_LEXEME = 256
MAX_POSITION = 16383
MAX_LEXEME_BYTES = 2046


def quote_lexeme(term: str) -> str:
    """``term`` as a quoted lexeme for a tsvector or tsquery literal."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsquery_any(terms: list[str]) -> str:
    """A tsquery matching any of ``terms``."""
    return " | ".join(quote_lexeme(t) for t in terms)


def tsvector_literal(tokens: list[str]) -> str:
    """A tsvector literal in which each lexeme's number of positions equals its frequency."""
    return tsvector_fields(tokens)["search_vector"]


def tsvector_fields(tokens: list[str]) -> dict:
    """``search_vector`` (tsvector literal) and ``term_count`` (what it holds: the BM25 length)."""
    positions: dict[str, list[int]] = defaultdict(list)
    for index, token in enumerate(tokens, start=1):
        # A character is at most 4 bytes of UTF-8: only a long token needs encoding to be measured.
        if token and (len(token) <= MAX_LEXEME_BYTES // 4 or len(token.encode("utf-8")) <= MAX_LEXEME_BYTES):
            positions[token].append(index)
    parts = []
    count = 0
    for term, pos in positions.items():
        pos = pos[:MAX_POSITIONS_PER_LEXEME]
        if pos[-1] > MAX_POSITION:
            # Positions past the limit would be clamped and merged; keep the frequency instead.
            pos = list(range(1, len(pos) + 1))
        count += len(pos)
        parts.append(quote_lexeme(term) + ":" + ",".join(map(str, pos)))
    return {"search_vector": " ".join(parts), "term_count": count}

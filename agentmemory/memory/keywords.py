"""Keyword side of memory search: tokens, the stored tsvector (term frequency = positions) and its length."""
from __future__ import annotations

from collections import defaultdict

from ..text import keyword_tokens

_MAX_POSITIONS = 256  # PostgreSQL keeps at most 256 positions per lexeme
_MAX_POSITION = 16383
_MAX_LEXEME_BYTES = 2046


def keyword_fields(text: str) -> dict:
    """``search_vector`` (a tsvector literal) and ``term_count`` for ``text``."""
    positions: dict[str, list[int]] = defaultdict(list)
    for index, token in enumerate(keyword_tokens(text), start=1):
        if token and len(token.encode("utf-8")) <= _MAX_LEXEME_BYTES:
            positions[token].append(min(index, _MAX_POSITION))
    parts = []
    count = 0
    for term, pos in positions.items():
        pos = pos[:_MAX_POSITIONS]
        if len(set(pos)) < len(pos):  # clamped positions would merge; keep the frequency instead
            pos = list(range(1, len(pos) + 1))
        count += len(pos)
        quoted = "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
        parts.append(quoted + ":" + ",".join(map(str, pos)))
    return {"search_vector": " ".join(parts), "term_count": count}

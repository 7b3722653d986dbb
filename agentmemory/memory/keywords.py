"""Keyword side of memory search: tokens, the stored tsvector (term frequency = positions) and its length."""
from __future__ import annotations

from ..text import keyword_tokens
from ..text.tsvector import tsvector_fields


def keyword_fields(text: str) -> dict:
    """``search_vector`` (a tsvector literal) and ``term_count`` for ``text``."""
    return tsvector_fields(keyword_tokens(text))

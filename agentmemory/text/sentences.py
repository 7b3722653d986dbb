"""Sentence boundaries for Chinese, English and mixed text, as character offsets."""
from __future__ import annotations

import re

# A sentence ends at Chinese 。！？；… (and full-width ！？；), or at . ! ? ; followed by a space or the
# end, plus any closing quotes or brackets; a newline also ends one. Not the stop of a title or a street
# ("St. Mary's", "Dr. Chen", "Mt. Hood", "Prof. Haddad"), an initial ("J. Smith"), a number alone ("1. Preheat") or a label of
# one letter and a digit ("Q1. How do I …"); a model's name ends one ("leasing a kia ev6. commute is 48 miles").
_END_RE = re.compile(
    r"(?:[。！？；!?;]|…+|\.{3,}|(?<![A-Z])(?<!(?<![A-Za-z])[0-9])(?<!(?<![A-Za-z])[A-Za-z][0-9])(?<!\bSt)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bJr)(?<!\bSr)(?<!\bMt)(?<!\bProf)(?<!\bprof)"
    r"(?<!\bvs)\.(?=\s|$))[」』”’\"')）】]*\s*|\n+"
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``; joined in order they give ``text`` back."""
    spans = []
    start = 0
    for match in _END_RE.finditer(text):
        end = match.end()
        if end > start:
            spans.append((start, end))
            start = end
    if start < len(text):
        spans.append((start, len(text)))
    return spans

"""Markdown and plain text: kept verbatim, headings (ATX and setext) and atomic spans (fences, tables) found."""
from __future__ import annotations

import re

from .document import Heading, ParsedDocument, normalize_text

_ATX_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_LINE_RE = re.compile(r"^\s*\|.*\|\s*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _lines_with_offsets(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line))
        pos += len(line)
    return out


def parse_markdown(text: str) -> ParsedDocument:
    """ATX (# .. ######) and setext (===, ---) headings outside fenced code; code and tables unbreakable."""
    text = normalize_text(text)
    headings: list[Heading] = []
    blocks: list[tuple[int, int]] = []
    fence: str | None = None
    fence_start = 0
    table_start: int | None = None
    table_end = 0
    previous: tuple[int, str] | None = None  # the last line, for setext headings
    previous_plain = previous_heading = False
    before_blank = True
    for offset, line in _lines_with_offsets(text):
        bare = line.rstrip("\n")
        if fence is not None:
            if bare.strip().startswith(fence[0] * len(fence)) and not bare.strip().strip(fence[0]):
                blocks.append((fence_start, offset + len(line)))
                fence = None
            continue
        is_table = bool(_TABLE_LINE_RE.match(bare))
        if table_start is not None and not is_table:
            blocks.append((table_start, table_end))
            table_start = None
        match = _FENCE_RE.match(bare)
        if match:
            fence, fence_start = match.group(1), offset
            previous, previous_plain = None, False
            continue
        if is_table:
            if table_start is None:
                table_start = offset
            table_end = offset + len(line)
            previous, previous_plain = None, False
            continue
        heading = _ATX_RE.match(bare)
        setext = _SETEXT_RE.match(bare)
        if heading:
            title = heading.group(2).strip()
            headings.append(Heading(offset, offset + len(bare), len(heading.group(1)), title))
        elif setext and previous is not None and previous_plain and before_blank:
            # "Title" underlined with === (level 1) or --- (level 2), after a blank line.
            headings.append(Heading(previous[0], offset + len(bare), 1 if "=" in bare else 2, previous[1].strip()))
            previous = None
            continue
        before_blank = previous is None or not previous[1].strip() or previous_heading
        previous_plain = bool(bare.strip()) and not heading and not _LIST_RE.match(bare)
        previous_heading = bool(heading)
        previous = (offset, bare)
    if fence is not None:  # an unclosed fence runs to the end, as in CommonMark
        blocks.append((fence_start, len(text)))
    if table_start is not None:
        blocks.append((table_start, table_end))
    title = next((h.title for h in headings if h.level == 1), headings[0].title if headings else "")
    return ParsedDocument(text=text, headings=headings, blocks=blocks, title=title)


def parse_text(text: str) -> ParsedDocument:
    """Plain text: no headings; the chunker splits it by paragraphs and sentences."""
    return ParsedDocument(text=normalize_text(text))

"""Structure-aware chunking (pure, no ORM): sections first, then paragraphs, then sentences.

A document is cut into sections at its headings; a chunk never spans two sections, so "适用场景" and
"参数说明" never share a chunk. Inside a section, paragraphs (blank-line separated) and unbreakable
blocks (code, tables) are packed greedily up to ``chunk_size`` characters; a unit larger than that is
split at sentence ends (Chinese 。！？；… and English . ! ?), a sentence larger than that at a comma or
space. Consecutive chunks of one section overlap by up to ``chunk_overlap`` characters, starting at a
sentence (or clause) boundary. Offsets are exact: ``text == source[char_start:char_end]`` and each
chunk begins at or before the previous one's end, so the chunks joined without their overlap give the
source text back (see ``join_chunks``).
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import count_tokens, split_sentences
from .parse import Heading, ParsedDocument

HEADING_SEPARATOR = " > "

_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t\u3000]*\n\s*")
# Where a too-long sentence may be cut, best first: after a clause mark, then after whitespace.
_CLAUSE_END_RE = re.compile(r"[，、：,:）)」』”]\s*")
_SPACE_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class ChunkDraft:
    """One chunk before it is stored: offsets into the source text and what identifies its content."""

    position: int
    heading_path: str
    char_start: int
    char_end: int
    text: str
    content_hash: str
    token_count: int

    @property
    def embedding_text(self) -> str:
        return embedding_text(self.heading_path, self.text)


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    atomic: bool = False


def embedding_text(heading_path: str, text: str) -> str:
    """What is embedded for a chunk: the heading path as context, then the text."""
    return f"{heading_path}\n{text}" if heading_path else text


def chunk_hash(heading_path: str, text: str) -> str:
    """Identity of a chunk's embedded content: equal hashes can share one vector."""
    return hashlib.sha256(embedding_text(heading_path, text).encode("utf-8")).hexdigest()


def join_chunks(chunks: Sequence) -> str:
    """The chunks' texts joined with each overlap dropped (equals the source text)."""
    out: list[str] = []
    covered = 0
    for chunk in chunks:
        skip = max(0, covered - chunk.char_start)
        out.append(chunk.text[skip:])
        covered = max(covered, chunk.char_end)
    return "".join(out)


def chunk_document(parsed: ParsedDocument, *, chunk_size: int = 400, chunk_overlap: int = 60) -> list[ChunkDraft]:
    """Cut a parsed document into chunks; see the module docstring for the rules."""
    if chunk_size < 20:
        raise ValueError("chunk_size must be at least 20 characters")
    chunk_overlap = max(0, min(chunk_overlap, chunk_size // 2))
    text = parsed.text
    blocks = sorted(parsed.blocks)
    drafts: list[ChunkDraft] = []
    for start, end, path in _sections(text, parsed.headings):
        units = _units(text, start, end, blocks)
        pieces = _split_large(text, units, chunk_size)
        spans = _pack(pieces, chunk_size)
        previous_end: int | None = None
        for span_start, span_end in spans:
            chunk_start = span_start
            if previous_end is not None and chunk_overlap:
                chunk_start = _overlap_start(text, drafts[-1].char_start, previous_end, chunk_overlap, blocks)
            body = text[chunk_start:span_end]
            drafts.append(ChunkDraft(
                position=len(drafts),
                heading_path=path,
                char_start=chunk_start,
                char_end=span_end,
                text=body,
                content_hash=chunk_hash(path, body),
                token_count=count_tokens(body),
            ))
            previous_end = span_end
    return drafts


def _sections(text: str, headings: Sequence[Heading]) -> list[tuple[int, int, str]]:
    """(start, end, heading path) of each section; a heading with no body joins the next section."""
    raw: list[tuple[int, int, str, int]] = []  # start, end, path, end of the heading line
    stack: list[Heading] = []
    ordered = sorted((h for h in headings if 0 <= h.start < len(text)), key=lambda h: h.start)
    first = ordered[0].start if ordered else len(text)
    if first > 0:
        raw.append((0, first, "", 0))
    for index, heading in enumerate(ordered):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        end = ordered[index + 1].start if index + 1 < len(ordered) else len(text)
        if end <= heading.start:
            continue
        raw.append((heading.start, end, HEADING_SEPARATOR.join(h.title for h in stack), heading.end))
    sections: list[tuple[int, int, str]] = []
    pending_start: int | None = None
    for i, (start, end, path, heading_end) in enumerate(raw):
        if pending_start is not None:
            start, pending_start = pending_start, None
        body = text[max(start, heading_end):end] if path else text[start:end]
        if not body.strip() and i + 1 < len(raw):
            pending_start = start  # heading only (or blank preamble): carried into the next section
            continue
        sections.append((start, end, path))
    return sections


def _units(text: str, start: int, end: int, blocks: Sequence[tuple[int, int]]) -> list[_Unit]:
    """Paragraphs and unbreakable blocks covering [start, end) contiguously, separators attached."""
    units: list[_Unit] = []
    position = start
    inside = [(max(b0, start), min(b1, end)) for b0, b1 in blocks if b0 < end and b1 > start]
    for b0, b1 in [*inside, (end, end)]:
        if b0 < position:
            b0 = position
        if b0 > position:
            units.extend(_paragraphs(text, position, b0))
        if b1 > b0:
            # The blank line after a block belongs to it, so the next paragraph starts clean.
            tail = _PARAGRAPH_BREAK_RE.match(text, b1) if b1 < end else None
            b1 = min(tail.end(), end) if tail else b1
            units.append(_Unit(b0, b1, atomic=True))
        position = max(position, b1)
    return [u for u in units if u.end > u.start]


def _paragraphs(text: str, start: int, end: int) -> list[_Unit]:
    units = []
    position = start
    for match in _PARAGRAPH_BREAK_RE.finditer(text, start, end):
        if match.end() > position:
            units.append(_Unit(position, match.end()))
            position = match.end()
    if position < end:
        units.append(_Unit(position, end))
    if len(units) > 1 and not text[units[0].start:units[0].end].strip():
        units[1] = _Unit(units[0].start, units[1].end)  # leading blank lines join the first paragraph
        units.pop(0)
    return units


def _split_large(text: str, units: Sequence[_Unit], size: int) -> list[_Unit]:
    """Units no longer than ``size``: prose at sentence ends, blocks at line ends, then at clauses."""
    out: list[_Unit] = []
    for unit in units:
        if unit.end - unit.start <= size:
            out.append(unit)
            continue
        segment = text[unit.start:unit.end]
        if unit.atomic:
            spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\n|[^\n]+$", segment)]
        else:
            spans = split_sentences(segment)
        for s0, s1 in spans:
            if s1 - s0 <= size:
                out.append(_Unit(unit.start + s0, unit.start + s1, unit.atomic))
            else:
                out.extend(_Unit(a, b, unit.atomic) for a, b in _hard_split(text, unit.start + s0, unit.start + s1, size))
    return out


def _hard_split(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Cut an over-long sentence at a clause mark or space near ``size``, else exactly at ``size``."""
    spans = []
    while end - start > size:
        window_end = start + size
        cut = None
        for pattern in (_CLAUSE_END_RE, _SPACE_RE):
            ends = [m.end() for m in pattern.finditer(text, start + size // 2, window_end) if m.end() <= window_end]
            if ends:
                cut = ends[-1]
                break
        cut = cut or window_end
        spans.append((start, cut))
        start = cut
    spans.append((start, end))
    return spans


def _pack(units: Sequence[_Unit], size: int) -> list[tuple[int, int]]:
    """Greedy packing of consecutive units up to ``size``; a small tail joins its neighbour."""
    spans: list[list[int]] = []
    for unit in units:
        if spans and unit.end - spans[-1][0] <= size:
            spans[-1][1] = unit.end
        else:
            spans.append([unit.start, unit.end])
    if len(spans) > 1:
        tail_start, tail_end = spans[-1]
        prev_start = spans[-2][0]
        if tail_end - tail_start < size // 4 and tail_end - prev_start <= size + size // 4:
            spans[-2][1] = tail_end
            spans.pop()
    return [(a, b) for a, b in spans]


def _overlap_start(text: str, prev_start: int, prev_end: int, overlap: int,
                   blocks: Sequence[tuple[int, int]]) -> int:
    """Where the next chunk starts, repeating up to ``overlap`` characters of the previous one."""
    lower = max(prev_start, prev_end - overlap)
    if lower >= prev_end:
        return prev_end
    for b0, b1 in blocks:
        if b0 < prev_end and b1 > lower and not (b0 >= lower and b1 <= prev_end):
            return prev_end  # never start inside a code block or table
    tail = text[prev_start:prev_end]
    # The earliest sentence start in the window, so the overlap is whole sentences.
    for s0, _s1 in split_sentences(tail):
        candidate = prev_start + s0
        if lower <= candidate < prev_end and text[candidate:prev_end].strip():
            return candidate
    for pattern in (_CLAUSE_END_RE, _SPACE_RE):
        match = pattern.search(text, lower, prev_end)
        if match and match.end() < prev_end and text[match.end():prev_end].strip():
            return match.end()
    if text[lower:prev_end].strip() and not (text[lower - 1:lower + 1].isalnum() and text[lower].isascii()):
        return lower
    return prev_end

"""PDF: text per page, headings from the outline and from the lines' shape."""
from __future__ import annotations

import io
import re

from ...exceptions import InvalidInput
from .document import Builder, ParsedDocument, normalize_text, require

# Numbered headings PDFs commonly use: "1 Introduction", "2.3 Parameters", "第一章 总则", "第3条".
_PDF_HEADING_RE = re.compile(
    r"^(?:(?P<num>\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+\S.{0,60}|第[一二三四五六七八九十百零〇\d]{1,4}[章节部篇]\s*\S.{0,40})$"
)
_SENTENCE_END_RE = re.compile(r"[。！？；.!?;:：,，]$")


def parse_pdf(data: bytes) -> ParsedDocument:
    """Text of each page (pages separated by blank lines); headings from the outline or numbering."""
    pypdf = require("pypdf", "PDF")
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise InvalidInput("The PDF is encrypted; upload an unencrypted copy.", field="file")
        pages = [normalize_text(page.extract_text() or "") for page in reader.pages]
        outline_titles = _pdf_outline(reader)
        meta_title = (reader.metadata.title if reader.metadata else "") or ""
    except InvalidInput:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise InvalidInput(f"The PDF cannot be read: {exc}", field="file") from exc
    builder = Builder()
    for page in pages:
        paragraph: list[str] = []
        for raw in page.split("\n"):
            line = raw.strip()
            level = _pdf_heading_level(line, outline_titles)
            if level:
                if paragraph:
                    builder.paragraph("\n".join(paragraph))
                    paragraph = []
                builder.heading(level, line)
            elif not line:
                if paragraph:
                    builder.paragraph("\n".join(paragraph))
                    paragraph = []
            else:
                paragraph.append(line)
        if paragraph:
            builder.paragraph("\n".join(paragraph))
    if not builder.parts:
        raise InvalidInput("The PDF has no extractable text (is it a scan? OCR it first).", field="file")
    return builder.result(str(meta_title))


def _pdf_outline(reader) -> dict[str, int]:
    """Outline (bookmark) titles mapped to their nesting level, 1 = top."""
    titles: dict[str, int] = {}

    def walk(items, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            else:
                title = " ".join(str(getattr(item, "title", "") or "").split())
                if title:
                    titles.setdefault(title, min(level, 6))

    try:
        walk(reader.outline, 1)
    except Exception:  # a broken outline only costs us headings
        return {}
    return titles


def _pdf_heading_level(line: str, outline: dict[str, int]) -> int:
    if not line or len(line) > 80:
        return 0
    normalized = " ".join(line.split())
    if normalized in outline:
        return outline[normalized]
    if outline:
        return 0  # an outline is authoritative; numbered lines inside the text are not guessed
    match = _PDF_HEADING_RE.match(normalized)
    if not match or _SENTENCE_END_RE.search(normalized):
        return 0
    num = match.group("num")
    return min(num.count(".") + 1, 6) if num else 1

"""Parsers, one module per format: Markdown, plain text, HTML, PDF and DOCX to one text plus its structure (headings, blocks).

Each parser returns a ParsedDocument: the text that is stored as the version's ``source_text`` (chunk
offsets point into it), the headings found in it (offsets, level, title) and the spans that must not
be cut where they fit (fenced code, tables, <pre>). Markdown and plain text are kept verbatim; HTML,
PDF and DOCX are rendered to text with blank lines between blocks.

``parse(fmt, content)`` dispatches; document.py holds what they share.
"""
from __future__ import annotations

from ...exceptions import InvalidInput
from .document import (
    DOCUMENTS_EXTRA,
    EXTENSIONS,
    FORMATS,
    TEXT_FORMATS,
    DocumentTooLarge,
    Heading,
    ParsedDocument,
    UnsupportedFormat,
    check_format,
    decode_text,
    detect_format,
    normalize_text,
)
from .docx import parse_docx
from .html import parse_html
from .markdown import parse_markdown, parse_text
from .pdf import parse_pdf

__all__ = ["DOCUMENTS_EXTRA", "EXTENSIONS", "FORMATS", "TEXT_FORMATS", "DocumentTooLarge", "Heading", "ParsedDocument",
           "UnsupportedFormat", "check_format", "decode_text", "detect_format", "normalize_text", "parse",
           "parse_docx", "parse_html", "parse_markdown", "parse_pdf", "parse_text"]


def parse(fmt: str, content: str | bytes) -> ParsedDocument:
    """Parse ``content`` (text for markdown/text/html, bytes for any format) as ``fmt``."""
    fmt = check_format(fmt)
    if fmt in TEXT_FORMATS and isinstance(content, bytes):
        content = decode_text(content)
    if fmt == "markdown":
        return parse_markdown(content)
    if fmt == "text":
        return parse_text(content)
    if fmt == "html":
        return parse_html(content)
    if isinstance(content, str):
        raise InvalidInput(f"A {fmt.upper()} document must be uploaded as a file.", field="file")
    if fmt == "pdf":
        return parse_pdf(content)
    return parse_docx(content)

"""Parsers: Markdown, plain text, HTML, PDF and DOCX to one text plus its structure (headings, blocks).

Each parser returns a ParsedDocument: the text that is stored as the version's ``source_text`` (chunk
offsets point into it), the headings found in it (offsets, level, title) and the spans that must not
be cut where they fit (fenced code, tables, <pre>). Markdown and plain text are kept verbatim; HTML,
PDF and DOCX are rendered to text with blank lines between blocks.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

from ..exceptions import InvalidInput

DOCUMENTS_EXTRA = "agentmemory[documents]"

FORMATS = ("markdown", "text", "html", "pdf", "docx")
#: Formats whose content arrives as text (JSON ``content``); the others come as uploaded bytes.
TEXT_FORMATS = ("markdown", "text", "html")

EXTENSIONS = {
    ".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".mkd": "markdown",
    ".txt": "text", ".text": "text",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".pdf": "pdf",
    ".docx": "docx",
}
_CONTENT_TYPES = {
    "text/markdown": "markdown", "text/x-markdown": "markdown",
    "text/plain": "text",
    "text/html": "html", "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}


class UnsupportedFormat(InvalidInput):
    """The format is unknown, or its parser package is not installed (the API answers 415)."""


@dataclass(frozen=True)
class Heading:
    """A heading line: [start, end) in the text, level 1-6, and its title."""

    start: int
    end: int
    level: int
    title: str


@dataclass
class ParsedDocument:
    """Text of a document plus the structure the chunker respects."""

    text: str
    headings: list[Heading] = field(default_factory=list)
    #: [start, end) spans that are not cut where they fit in one chunk (code blocks, tables).
    blocks: list[tuple[int, int]] = field(default_factory=list)
    title: str = ""

    def structure(self) -> dict:
        """Headings and blocks as JSON (stored with a version, so it can be re-chunked later)."""
        return {
            "headings": [[h.start, h.end, h.level, h.title] for h in self.headings],
            "blocks": [list(b) for b in self.blocks],
        }

    @classmethod
    def from_structure(cls, text: str, structure: dict | None, title: str = "") -> ParsedDocument:
        structure = structure or {}
        return cls(
            text=text,
            headings=[Heading(int(a), int(b), int(level), str(t)) for a, b, level, t in structure.get("headings", [])],
            blocks=[(int(a), int(b)) for a, b in structure.get("blocks", [])],
            title=title,
        )


class DocumentTooLarge(InvalidInput):
    """The document exceeds AGENTMEMORY['MAX_DOCUMENT_CHARS'] (or the upload size limit); API answers 413."""


def detect_format(filename: str = "", content_type: str = "") -> str:
    """Format from a file name's extension, else from its content type; UnsupportedFormat otherwise."""
    name = (filename or "").lower().rsplit("/", 1)[-1]
    for ext, fmt in EXTENSIONS.items():
        if name.endswith(ext):
            return fmt
    ctype = (content_type or "").split(";")[0].strip().lower()
    # A name without an extension falls back on the content type; an unknown extension does not.
    if "." not in name.lstrip(".") and ctype in _CONTENT_TYPES:
        return _CONTENT_TYPES[ctype]
    raise UnsupportedFormat(
        f"Unsupported file type {filename or content_type or '(unknown)'!r}; "
        f"supported: .md, .txt, .html, .pdf, .docx.", field="file",
    )


def check_format(fmt: str) -> str:
    fmt = (fmt or "").strip().lower()
    aliases = {"md": "markdown", "txt": "text", "plain": "text", "htm": "html"}
    fmt = aliases.get(fmt, fmt)
    if fmt not in FORMATS:
        raise UnsupportedFormat(f"Unsupported format {fmt!r}; use one of: {', '.join(FORMATS)}.", field="format")
    return fmt


def decode_text(data: bytes, *, field_name: str = "file") -> str:
    """Strict UTF-8 (a BOM is dropped); invalid bytes are refused with the offset of the first one."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"The file is not valid UTF-8 (invalid byte at offset {exc.start}); save it as UTF-8 and retry.",
            field=field_name,
        ) from exc


def normalize_text(text: str) -> str:
    """Line ends to \\n and NUL removed (PostgreSQL text cannot hold NUL); nothing else is touched."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


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


# --- Markdown and plain text -------------------------------------------------------------------

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


class _Builder:
    """Accumulates rendered blocks with blank lines between them, recording headings and atomic spans."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.headings: list[Heading] = []
        self.blocks: list[tuple[int, int]] = []

    def _append(self, text: str) -> tuple[int, int]:
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        return start, self.length

    def paragraph(self, text: str) -> None:
        text = text.strip()
        if text:
            self._append(text)

    def heading(self, level: int, title: str) -> None:
        title = " ".join(title.split())
        if title:
            start, end = self._append(title)
            self.headings.append(Heading(start, end, max(1, min(level, 6)), title))

    def block(self, text: str) -> None:
        text = text.strip("\n")
        if text.strip():
            self.blocks.append(self._append(text))

    def result(self, title: str = "") -> ParsedDocument:
        text = normalize_text("".join(self.parts))
        if not title:
            title = next((h.title for h in self.headings if h.level == 1),
                         self.headings[0].title if self.headings else "")
        return ParsedDocument(text=text, headings=self.headings, blocks=self.blocks, title=title)


def _require(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UnsupportedFormat(
            f"{what} import needs the {module.split('.')[0]!r} package: pip install '{DOCUMENTS_EXTRA}'.",
            field="format",
        ) from exc


# --- HTML --------------------------------------------------------------------------------------

_HTML_BLOCKS = {"p", "li", "dt", "dd", "blockquote", "figcaption", "caption", "address"}
_HTML_SKIP = {"script", "style", "noscript", "template", "head", "nav", "footer", "svg"}


def _table_text(rows: list[list[str]]) -> str:
    return "\n".join(" | ".join(cell for cell in row) for row in rows if any(cell for cell in row))


def parse_html(html: str) -> ParsedDocument:
    """h1-h6 as headings, <pre> and <table> as unbreakable blocks, other block elements as paragraphs."""
    bs4 = _require("bs4", "HTML")
    soup = bs4.BeautifulSoup(normalize_text(html), "html.parser")
    doc_title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for br in soup.find_all("br"):
        br.replace_with("\n")
    builder = _Builder()
    root = soup.body or soup

    def walk(node) -> None:
        for child in node.children:
            if isinstance(child, bs4.NavigableString):
                if isinstance(child, bs4.Comment | bs4.Doctype | bs4.Declaration | bs4.ProcessingInstruction):
                    continue
                builder.paragraph(str(child))
                continue
            name = (child.name or "").lower()
            if name in _HTML_SKIP:
                continue
            if re.fullmatch(r"h[1-6]", name):
                builder.heading(int(name[1]), _inline_text(child))
            elif name == "pre":
                builder.block(child.get_text())
            elif name == "table":
                rows = [[_inline_text(c) for c in tr.find_all(["th", "td"])]
                        for tr in child.find_all("tr")]
                builder.block(_table_text(rows))
            elif name in _HTML_BLOCKS or not child.find(_BLOCK_TAGS):
                builder.paragraph(_inline_text(child))
            else:
                walk(child)

    walk(root)
    return builder.result(doc_title)


def _inline_text(node) -> str:
    """Text as a browser shows it: inline tags add no space (Chinese stays unbroken), whitespace collapses."""
    return " ".join(node.get_text().split())


_BLOCK_TAGS = ["p", "div", "section", "article", "main", "ul", "ol", "li", "table", "pre", "blockquote",
               "h1", "h2", "h3", "h4", "h5", "h6", "dl", "header", "aside", "figure"]


# --- PDF ---------------------------------------------------------------------------------------

# Numbered headings PDFs commonly use: "1 Introduction", "2.3 Parameters", "第一章 总则", "第3条".
_PDF_HEADING_RE = re.compile(
    r"^(?:(?P<num>\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+\S.{0,60}|第[一二三四五六七八九十百零〇\d]{1,4}[章节部篇]\s*\S.{0,40})$"
)
_SENTENCE_END_RE = re.compile(r"[。！？；.!?;:：,，]$")


def parse_pdf(data: bytes) -> ParsedDocument:
    """Text of each page (pages separated by blank lines); headings from the outline or numbering."""
    pypdf = _require("pypdf", "PDF")
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
    builder = _Builder()
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


# --- DOCX --------------------------------------------------------------------------------------

_DOCX_HEADING_RE = re.compile(r"^(?:heading|标题)\s*(\d)$", re.IGNORECASE)


def parse_docx(data: bytes) -> ParsedDocument:
    """Paragraphs in body order; "Heading N"/"Title" styles as headings; tables as unbreakable blocks."""
    docx = _require("docx", "DOCX")
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:
        raise InvalidInput(f"The DOCX cannot be read: {exc}", field="file") from exc
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    builder = _Builder()
    body = document.element.body
    for element in body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(element, document)
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            match = _DOCX_HEADING_RE.match(style.strip())
            if match:
                builder.heading(int(match.group(1)), paragraph.text)
            elif style.strip().lower() == "title":
                builder.heading(1, paragraph.text)
            else:
                builder.paragraph(paragraph.text)
        elif tag == "tbl":
            table = Table(element, document)
            rows = []
            for row in table.rows:
                cells = []
                for cell in row.cells:
                    value = " ".join(cell.text.split())
                    if not cells or cells[-1] != value:  # merged cells repeat; keep one
                        cells.append(value)
                rows.append(cells)
            builder.block(_table_text(rows))
    title = (document.core_properties.title or "") if document.core_properties else ""
    return builder.result(title)

"""What every parser shares: the formats and how a file's is detected, ParsedDocument (text, headings, blocks),
text decoding and normalisation, and the Builder the HTML, PDF and DOCX parsers render blocks with."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...exceptions import InvalidInput

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


class Builder:
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


def require(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UnsupportedFormat(
            f"{what} import needs the {module.split('.')[0]!r} package: pip install '{DOCUMENTS_EXTRA}'.",
            field="format",
        ) from exc


def table_text(rows: list[list[str]]) -> str:
    """A table's rows as lines of cells joined by " | " (empty rows dropped)."""
    return "\n".join(" | ".join(cell for cell in row) for row in rows if any(cell for cell in row))

"""The front door of a document import: an upload or a text in, a recorded import job out.

The REST API, the admin's upload form and ``agentmemory_ingest`` all come in here, so an upload is
handled one way everywhere: its format detected (or the one given checked), its size limited
(``MAX_UPLOAD_BYTES``), an empty file refused, its text parsed and limited (``MAX_DOCUMENT_CHARS``),
and its title defaulted (the parser's when it means something, else the file name's stem, else the first
line). An upload without ``external_id`` is identified by its file name within the base (``file:<name>``): a
changed ``warranty.pdf`` is the next version of the same document, not a second one. Running the
job is the caller's choice: ``tasks.knowledge.submit_import`` (now or on a worker) or the bulk pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..conf import app_settings
from ..exceptions import InvalidInput
from ..models import Document, ImportJob, KnowledgeBase
from .ingest import content_hash, default_title, prepare_document
from .jobs import create_import_job
from .parse import TEXT_FORMATS, DocumentTooLarge, ParsedDocument, check_format, detect_format


class Upload(Protocol):
    """A file to import: Django's UploadedFile, or ``django.core.files.File`` around an open file."""

    name: str
    size: int

    def read(self) -> bytes: ...


@dataclass(frozen=True)
class PreparedDocument:
    """A document parsed and checked, with its format and title: ready for a job or the bulk pipeline."""

    parsed: ParsedDocument
    fmt: str
    title: str


def prepare_upload(upload: Upload, *, fmt: str = "", title: str = "") -> PreparedDocument:
    """Detect or check the format, refuse an oversized or empty file, parse it, default the title."""
    name = (upload.name or "").replace("\\", "/").rsplit("/", 1)[-1]
    fmt = check_format(fmt) if fmt else detect_format(name, getattr(upload, "content_type", "") or "")
    limit = app_settings.MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise DocumentTooLarge(f"The file has {upload.size} bytes, over the limit of {limit} "
                               f"(AGENTMEMORY['MAX_UPLOAD_BYTES']).", field="file")
    if upload.size == 0:
        raise InvalidInput("The file is empty.", field="file")
    parsed = prepare_document(fmt=fmt, content=upload.read())
    return PreparedDocument(parsed, fmt, title or default_title(parsed, name.rsplit(".", 1)[0]))


def upload_key(knowledge_base: KnowledgeBase, upload: Upload, text: str) -> str:
    """The document an upload without ``external_id`` is a version of: the base's document of the same file
    name (``file:warranty.pdf``; a changed file is its next version), or, for a document uploaded before
    files were named so, the one keyed by this content's hash."""
    name = (upload.name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name:
        return ""
    by_name = f"file:{name}"[:255]
    legacy = f"sha256:{content_hash(text)[:16]}"
    documents = Document.objects.filter(knowledge_base=knowledge_base)
    if not documents.filter(external_id=by_name).exists() and documents.filter(external_id=legacy).exists():
        return legacy
    return by_name


def prepare_text(text: str, *, fmt: str = "", title: str = "") -> PreparedDocument:
    """Check a text format (markdown by default; PDF and DOCX come as files), parse, default the title."""
    fmt = check_format(fmt or "markdown")
    if fmt not in TEXT_FORMATS:
        raise InvalidInput(f"{fmt.upper()} documents must be uploaded as a multipart 'file'.", field="format")
    parsed = prepare_document(fmt=fmt, content=text)
    return PreparedDocument(parsed, fmt, title or default_title(parsed))


def import_document(knowledge_base: KnowledgeBase, *, upload: Upload | None = None, text: str | None = None,
                    fmt: str = "", title: str = "", external_id: str = "",
                    metadata: dict | None = None, propose_checks: bool | None = None) -> ImportJob:
    """Record the import of ``upload`` or ``text`` into ``knowledge_base`` (not run yet).

    Raises InvalidInput (DocumentTooLarge, UnsupportedFormat) before anything is written. The job is
    attributed to the current audit actor.
    """
    if (upload is None) == (text is None):
        raise InvalidInput("Give a file or a text to import, not both.", field="file")
    if upload is not None:
        prepared = prepare_upload(upload, fmt=fmt, title=title)
        external_id = external_id or upload_key(knowledge_base, upload, prepared.parsed.text)
    else:
        prepared = prepare_text(text, fmt=fmt, title=title)
    return create_import_job(knowledge_base=knowledge_base, parsed=prepared.parsed, title=prepared.title,
                             fmt=prepared.fmt, external_id=external_id or "", metadata=metadata,
                             propose_checks=propose_checks)

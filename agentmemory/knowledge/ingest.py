"""Import a document: validate, version by content hash, chunk, reuse or compute embeddings, publish.

The write path, in order:
1. ``prepare_document`` parses an upload (parse.py) and refuses empty or oversized text.
2. ``ingest_document``, in one short transaction: finds or creates the Document, returns
   ``unchanged`` when the active version has the same content hash, resumes a pending/failed
   version of the same content, or creates a new pending version with its chunk rows (chunk.py),
   copying vectors from any chunk of the knowledge base with the same content hash and model.
3. Embeds the chunks still without a vector, batch by batch, each batch committed, so an import
   killed mid-way resumes where it stopped. On an embedding failure the version is marked failed
   with the reason and the previous version stays active.
4. ``publish.publish_version`` flips the new version's chunks active and the old ones deprecated in
   one transaction.
Import jobs (``jobs.create_import_job`` / ``jobs.run_import_job``) carry the same call through Celery;
``bulk.ingest_documents`` runs the same steps for many documents at the embedder's speed.
Embedding a version's chunks is ``embed.py``'s; the front door of an upload or a text is ``imports.py``.
"""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Max

from ..backends import get_embedder
from ..conf import app_settings
from ..exceptions import EmbeddingError, InvalidInput
from ..models import Chunk, Document, DocumentVersion, KnowledgeBase
from ..progress import Progress
from .chunk import chunk_document
from .embed import embed_chunks, reusable_vectors
from .jobs import create_import_job, job_progress, run_import_job, run_job
from .keywords import keyword_index_values
from .parse import DocumentTooLarge, ParsedDocument, check_format, parse
from .publish import publish_version

# Imported from here before embed.py and jobs.py held them (benchmarks, docs/knowledge.md).
__all__ = [
    "DocumentInput", "IngestResult", "Progress", "content_hash", "create_import_job", "default_title",
    "embed_chunks", "ingest_document", "job_progress", "prepare_document",
    "reusable_vectors", "run_import_job", "run_job", "validate_text",
]


@dataclass(frozen=True)
class IngestResult:
    """What an import did: ``created`` (new document), ``updated`` (new version) or ``unchanged``."""

    action: str
    document_id: int
    external_id: str
    version: int
    chunks: int
    embedded: int
    reused: int

    def as_dict(self) -> dict:
        return asdict(self)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prepare_document(*, fmt: str, content: str | bytes, max_chars: int | None = None) -> ParsedDocument:
    """Parse ``content`` as ``fmt`` and check it is neither empty nor over the size limit."""
    fmt = check_format(fmt)
    max_chars = int(max_chars or app_settings.MAX_DOCUMENT_CHARS)
    if isinstance(content, str) and len(content) > max_chars * 2:
        # Refuse before parsing: even markup-heavy text cannot shrink below half its length.
        raise DocumentTooLarge(f"The document is larger than the limit of {max_chars} characters.", field="content")
    parsed = parse(fmt, content)
    validate_text(parsed.text, max_chars=max_chars)
    return parsed


def validate_text(text: str, *, max_chars: int | None = None) -> None:
    max_chars = int(max_chars or app_settings.MAX_DOCUMENT_CHARS)
    if not text or not text.strip():
        raise InvalidInput("The document is empty (no text could be extracted).", field="content")
    if len(text) > max_chars:
        raise DocumentTooLarge(
            f"The document has {len(text)} characters, over the limit of {max_chars} "
            f"(AGENTMEMORY['MAX_DOCUMENT_CHARS']).", field="content",
        )


def default_title(parsed: ParsedDocument, fallback: str = "") -> str:
    """The parser's title, else the fallback (file name), else the first non-empty line."""
    if parsed.title.strip():
        return parsed.title.strip()[:500]
    if fallback.strip():
        return fallback.strip()[:500]
    first = next((line.strip() for line in parsed.text.splitlines() if line.strip()), "")
    return first.lstrip("#").strip()[:80] or "untitled"


@dataclass(frozen=True)
class DocumentInput:
    """One document to import in a batch (see ``ingest_documents``)."""

    parsed: ParsedDocument
    title: str
    fmt: str
    external_id: str = ""
    metadata: dict | None = None


@dataclass
class _Begun:
    version: DocumentVersion
    action: str
    external_id: str
    chunks: int
    reused: int
    # (pk, heading_path, text) of the chunks still to embed, when this call created them (else None:
    # a resumed version; the caller asks the database)
    todo: list[tuple[int, str, str]] | None = None


def _begin(kb: KnowledgeBase, item: DocumentInput, model_name: str) -> _Begun:
    """Validate one input, then find/create its document and the version to publish (one transaction)."""
    fmt = check_format(item.fmt)
    validate_text(item.parsed.text)
    if item.metadata is not None and not isinstance(item.metadata, dict):
        raise InvalidInput("metadata must be a JSON object.", field="metadata")
    digest = content_hash(item.parsed.text)
    external_id = (item.external_id or "").strip() or f"sha256:{digest[:16]}"
    if len(external_id) > 255:
        raise InvalidInput("external_id is longer than 255 characters.", field="external_id")
    title = (item.title or "").strip()[:500] or default_title(item.parsed)
    version, action, rows, reused = _prepare_version(
        kb, item.parsed, digest, external_id=external_id, title=title, fmt=fmt,
        metadata=item.metadata, model_name=model_name,
    )
    if rows is None:
        return _Begun(version, action, external_id, version.chunks.count(), reused)
    todo = [(c.pk, c.heading_path, c.text) for c in rows if c.embedding is None]
    return _Begun(version, action, external_id, len(rows), reused, todo)


def _fail(version: DocumentVersion, exc: Exception) -> None:
    """Mark a version failed with the reason; the previous version stays active."""
    DocumentVersion.objects.filter(pk=version.pk).update(status=DocumentVersion.Status.FAILED, error=str(exc)[:2000])


def _result(begun: _Begun, embedded: int) -> IngestResult:
    return IngestResult(begun.action, begun.version.document_id, begun.external_id, begun.version.number,
                        begun.chunks, embedded, begun.reused)


def ingest_document(
    *,
    knowledge_base: KnowledgeBase,
    parsed: ParsedDocument,
    title: str,
    fmt: str,
    external_id: str = "",
    metadata: dict | None = None,
    progress: Progress | None = None,
) -> IngestResult:
    """Create or update one document from parsed text; see the module docstring for the steps."""
    embedder = get_embedder()
    begun = _begin(knowledge_base, DocumentInput(parsed, title, fmt, external_id, metadata), embedder.model_name)
    if begun.action == "unchanged":
        return _result(begun, 0)
    try:
        embedded = embed_chunks(Chunk.objects.filter(version=begun.version), embedder=embedder, progress=progress)
    except EmbeddingError as exc:
        _fail(begun.version, exc)
        raise
    publish_version(begun.version)
    return _result(begun, embedded)


def _prepare_version(kb, parsed, digest, *, external_id, title, fmt, metadata, model_name):
    """Find or create the document and the version to publish, with its chunk rows (one transaction)."""
    for attempt in range(2):
        try:
            with transaction.atomic():
                return _prepare_version_locked(kb, parsed, digest, external_id=external_id, title=title,
                                               fmt=fmt, metadata=metadata, model_name=model_name)
        except IntegrityError:
            # Two first imports of one external id raced on the unique constraint: retry once; the
            # second attempt finds the document the other created.
            if attempt:
                raise
    raise AssertionError("unreachable")


def _prepare_version_locked(kb, parsed, digest, *, external_id, title, fmt, metadata, model_name):
    with connection.cursor() as cursor:
        # This transaction only creates a pending version (never searched). Its commit need not wait
        # for the disk: the commit that stores its vectors and publishes it is synchronous and flushes
        # the log up to there; after a crash in between, a rerun simply prepares it again.
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
    document, created = Document.objects.get_or_create(
        knowledge_base=kb, external_id=external_id,
        defaults={"title": title, "format": fmt, "metadata": metadata or {}},
    )
    # Imports of one document serialize here; other documents import in parallel.
    document = Document.objects.select_for_update(of=("self",)).select_related("active_version").get(pk=document.pk)
    changed_fields = []
    for name, value in (("title", title), ("format", fmt)):
        if getattr(document, name) != value:
            setattr(document, name, value)
            changed_fields.append(name)
    if metadata is not None and document.metadata != metadata:
        document.metadata = metadata
        changed_fields.append("metadata")
    if changed_fields:
        document.save(update_fields=[*changed_fields, "updated_at"])

    active = document.active_version
    if active is not None and active.content_hash == digest and document.status == Document.Status.ACTIVE:
        return active, "unchanged", None, 0

    action = "created" if created or active is None else "updated"
    latest = document.versions.order_by("-number").first()
    if latest is not None and latest.content_hash == digest and latest.status in (
        DocumentVersion.Status.PENDING, DocumentVersion.Status.FAILED,
    ):
        # Resume: the rows exist, the vectors computed before the failure are kept.
        latest.status, latest.error = DocumentVersion.Status.PENDING, ""
        latest.save(update_fields=["status", "error"])
        return latest, action, None, 0

    number = (document.versions.aggregate(n=Max("number"))["n"] or 0) + 1
    version = DocumentVersion.objects.create(
        document=document, number=number, content_hash=digest, source_text=parsed.text,
        structure=parsed.structure(), status=DocumentVersion.Status.PENDING,
    )
    drafts = chunk_document(parsed, chunk_size=kb.chunk_size, chunk_overlap=kb.chunk_overlap)
    vectors = reusable_vectors(kb, [d.content_hash for d in drafts], model_name=model_name)
    rows = []
    for draft in drafts:
        vector = vectors.get(draft.content_hash)
        rows.append(Chunk(
            knowledge_base=kb, document=document, version=version, position=draft.position,
            heading_path=draft.heading_path, char_start=draft.char_start, char_end=draft.char_end,
            text=draft.text, content_hash=draft.content_hash, token_count=draft.token_count,
            status=Chunk.Status.PENDING, embedding=vector,
            embedding_model=model_name if vector is not None else "",
            **keyword_index_values(draft.heading_path, draft.text, knowledge_base=kb),
        ))
    Chunk.objects.bulk_create(rows, batch_size=500)
    reused = sum(1 for d in drafts if d.content_hash in vectors)
    return version, action, rows, reused



def __getattr__(name: str):
    # ingest_documents moved to bulk.py (which imports this module); its documented old path still works.
    if name == "ingest_documents":
        from .bulk import ingest_documents

        return ingest_documents
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

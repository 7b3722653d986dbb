"""Documents to versions: validate, find or create each document, version it by content hash, chunk it.

``begin_documents`` prepares a group of documents in one short transaction with one statement per
table (documents found, documents created, documents locked, latest versions, new versions, reusable
vectors, chunks), whatever the group's size: a single import is a group of one, a bulk import
(bulk.py) prepares as many documents as fill an embedding batch. Per document the outcome is the
same as it always was: ``unchanged`` when the active version has the same content hash, a resumed
pending/failed version of the same content (its stored vectors kept), or a new pending version with
its chunk rows, vectors copied from any chunk of the base with the same content hash and model.
What an import did is an ``IngestResult`` (built here from the prepared document, returned by bulk.py
and ingest.py).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field

from django.db import IntegrityError, connection, transaction
from django.db.models import Count
from django.utils import timezone

from ..conf import app_settings
from ..exceptions import AgentMemoryError, InvalidInput
from ..models import Chunk, Document, DocumentVersion, KnowledgeBase
from ..models.fields import vector_literal
from ..models.rows import insert_rows
from ..text.language import language_of
from .chunk import chunk_document
from .embed import reusable_vectors
from .keywords import keyword_index_values
from .parse import DocumentTooLarge, ParsedDocument, check_format


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def validate_text(text: str, *, max_chars: int | None = None) -> None:
    max_chars = int(max_chars or app_settings.MAX_DOCUMENT_CHARS)
    if not text or not text.strip():
        raise InvalidInput("The document is empty (no text could be extracted).", field="content")
    if len(text) > max_chars:
        raise DocumentTooLarge(
            f"The document has {len(text)} characters, over the limit of {max_chars} "
            f"(AGENTMEMORY['MAX_DOCUMENT_CHARS']).", field="content",
        )


#: Titles that generators write into a file's metadata and that name nothing ("untitled", "Microsoft Word -
#: Document1", "无标题"): the file name says more.
_PLACEHOLDER_TITLE_RE = re.compile(r"(?:untitled(?: document)?|document\d*|new document|microsoft word - .*|"
                                   r"无标题(?:文档)?|未命名(?:文档)?|文档\d*|title|\W*)", re.IGNORECASE)


def meaningful_title(title: str) -> bool:
    """Whether a title from a file's metadata names the document (not a generator's placeholder)."""
    title = (title or "").strip()
    return not _PLACEHOLDER_TITLE_RE.fullmatch(title)


def default_title(parsed: ParsedDocument, fallback: str = "") -> str:
    """The parser's title when it means something, else the fallback (file name), else the first non-empty
    line."""
    if meaningful_title(parsed.title):
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
    propose_checks: bool | None = None  # propose evaluation cases from this document (None: the base decides)


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


@dataclass(frozen=True)
class _Checked:
    item: DocumentInput
    fmt: str
    digest: str
    external_id: str
    title: str


def _check(item: DocumentInput) -> _Checked:
    fmt = check_format(item.fmt)
    validate_text(item.parsed.text)
    if item.metadata is not None and not isinstance(item.metadata, dict):
        raise InvalidInput("metadata must be a JSON object.", field="metadata")
    digest = content_hash(item.parsed.text)
    external_id = (item.external_id or "").strip() or f"sha256:{digest[:16]}"
    if len(external_id) > 255:
        raise InvalidInput("external_id is longer than 255 characters.", field="external_id")
    title = (item.title or "").strip()[:500] or default_title(item.parsed)
    return _Checked(item, fmt, digest, external_id, title)


def begin_documents(kb: KnowledgeBase, items: list[DocumentInput], model_name: str) -> list[_Begun | AgentMemoryError]:
    """Each input's version to publish (or the input's error), prepared in one transaction."""
    out: list[_Begun | AgentMemoryError | None] = [None] * len(items)
    checked: list[tuple[int, _Checked]] = []
    for i, item in enumerate(items):
        try:
            checked.append((i, _check(item)))
        except AgentMemoryError as exc:
            out[i] = exc
    # One external id twice in a group: its versions must follow each other, so one at a time.
    groups: list[list[tuple[int, _Checked]]] = []
    seen: set[str] = set()
    for entry in checked:
        if entry[1].external_id in seen or not groups:
            groups.append([])
            seen = set()
        groups[-1].append(entry)
        seen.add(entry[1].external_id)
    for group in groups:
        for (i, _c), begun in zip(group, _prepare_group(kb, [c for _i, c in group], model_name), strict=True):
            out[i] = begun
    return out  # type: ignore[return-value]


def _prepare_group(kb: KnowledgeBase, group: list[_Checked], model_name: str) -> list[_Begun]:
    for attempt in range(2):
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    # This transaction only creates pending versions (never searched). Its commit need not
                    # wait for the disk: the commit that stores their vectors and publishes them is
                    # synchronous and flushes the log up to there; after a crash, a rerun prepares again.
                    cursor.execute("SET LOCAL synchronous_commit TO OFF")
                return _prepare_locked(kb, group, model_name)
        except IntegrityError:
            # Two first imports of one external id raced on the unique constraint: retry once; the
            # second attempt finds the document the other created.
            if attempt:
                raise
    raise AssertionError("unreachable")


def _documents(kb: KnowledgeBase, group: list[_Checked]) -> tuple[dict[str, Document], set[str]]:
    """The group's documents, locked (imports of one document serialize here), and the external ids created."""
    wanted = [c.external_id for c in group]
    existing = set(Document.objects.filter(knowledge_base=kb, external_id__in=wanted)
                   .values_list("external_id", flat=True))
    new = [Document(knowledge_base=kb, external_id=c.external_id, title=c.title, format=c.fmt,
                    metadata=c.item.metadata or {}) for c in group if c.external_id not in existing]
    if new:
        Document.objects.bulk_create(new)
    # Locked in id order, so two imports of overlapping groups cannot deadlock.
    locked = (Document.objects.select_for_update(of=("self",)).select_related("active_version")
              .defer("active_version__source_text", "active_version__structure")
              .filter(knowledge_base=kb, external_id__in=wanted).order_by("pk"))
    return {d.external_id: d for d in locked}, {d.external_id for d in new}


def _update_fields(document: Document, c: _Checked) -> None:
    changed = []
    for name, value in (("title", c.title), ("format", c.fmt)):
        if getattr(document, name) != value:
            setattr(document, name, value)
            changed.append(name)
    if c.item.metadata is not None and document.metadata != c.item.metadata:
        document.metadata = c.item.metadata
        changed.append("metadata")
    if changed:
        document.save(update_fields=[*changed, "updated_at"])


def _prepare_locked(kb: KnowledgeBase, group: list[_Checked], model_name: str) -> list[_Begun]:
    documents, created = _documents(kb, group)
    # A version's text can be megabytes: what deciding needs is its hash, number and status.
    latest = {v.document_id: v for v in DocumentVersion.objects.filter(document__in=documents.values())
              .defer("source_text", "structure").order_by("document_id", "-number").distinct("document_id")}
    out: dict[str, _Begun] = {}
    fresh: list[tuple[_Checked, Document, DocumentVersion]] = []
    existing: list[_Begun] = []  # unchanged or resumed: their chunks exist
    for c in group:
        document = documents[c.external_id]
        _update_fields(document, c)
        active, last = document.active_version, latest.get(document.pk)
        action = "created" if c.external_id in created or active is None else "updated"
        if active is not None and active.content_hash == c.digest and document.status == Document.Status.ACTIVE:
            out[c.external_id] = _Begun(active, "unchanged", c.external_id, 0, 0)
            existing.append(out[c.external_id])
        elif last is not None and last.content_hash == c.digest and last.status in (
                DocumentVersion.Status.PENDING, DocumentVersion.Status.FAILED, DocumentVersion.Status.HELD):
            # Resume: the rows exist, the vectors computed before the failure are kept (a held version
            # imported again meets the publish gate again: the cases may have changed).
            last.status, last.error = DocumentVersion.Status.PENDING, ""
            out[c.external_id] = _Begun(last, action, c.external_id, 0, 0)
            existing.append(out[c.external_id])
        else:
            fresh.append((c, document, DocumentVersion(
                document=document, number=(last.number if last else 0) + 1, content_hash=c.digest,
                source_text=c.item.parsed.text, structure=c.item.parsed.structure(),
                status=DocumentVersion.Status.PENDING)))
            out[c.external_id] = _Begun(fresh[-1][2], action, c.external_id, 0, 0)
    resumed = [b.version.pk for b in existing if b.action != "unchanged"]
    if resumed:
        DocumentVersion.objects.filter(pk__in=resumed).update(status=DocumentVersion.Status.PENDING, error="")
    if existing:  # the chunk counts of unchanged and resumed versions, in one query
        counts = dict(Chunk.objects.filter(version__in=[b.version.pk for b in existing]).values("version")
                      .annotate(n=Count("pk")).values_list("version", "n"))
        for begun in existing:
            begun.chunks = counts.get(begun.version.pk, 0)
    if fresh:
        DocumentVersion.objects.bulk_create([v for _c, _d, v in fresh])
        _create_chunks(kb, fresh, out, model_name)
    return [out[c.external_id] for c in group]


def _create_chunks(kb: KnowledgeBase, fresh: list[tuple[_Checked, Document, DocumentVersion]],
                   out: dict[str, _Begun], model_name: str) -> None:
    drafts = {c.external_id: chunk_document(c.item.parsed, chunk_size=kb.chunk_size, chunk_overlap=kb.chunk_overlap)
              for c, _d, _v in fresh}
    vectors = reusable_vectors(kb, [d.content_hash for ds in drafts.values() for d in ds], model_name=model_name)
    rows: list[dict] = []
    for c, document, version in fresh:
        for d in drafts[c.external_id]:
            reused = vectors.get(d.content_hash)
            rows.append({
                "knowledge_base": kb.pk, "document": document.pk, "version": version.pk, "position": d.position,
                "heading_path": d.heading_path, "char_start": d.char_start, "char_end": d.char_end,
                "text": d.text, "content_hash": d.content_hash, "token_count": d.token_count,
                "language": language_of(f"{d.heading_path}\n{d.text}", default=""), "status": Chunk.Status.PENDING,
                "embedding": None if reused is None else vector_literal(reused),
                "embedding_model": model_name if reused is not None else "",
                **keyword_index_values(d.heading_path, d.text, knowledge_base=kb),
            })
    pks = iter(insert_rows(Chunk, rows, constants={"created_at": timezone.now()}))
    for c, _d, _v in fresh:
        begun, chunk_drafts = out[c.external_id], drafts[c.external_id]
        ids = [next(pks) for _ in chunk_drafts]
        begun.chunks = len(chunk_drafts)
        begun.reused = sum(1 for d in chunk_drafts if d.content_hash in vectors)
        begun.todo = [(pk, d.heading_path, d.text) for pk, d in zip(ids, chunk_drafts, strict=True)
                      if d.content_hash not in vectors]


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
    # "published" (live), or "held" by the base's publish gate for review (gate.py); ``gate``: its report
    publication: str = "published"
    gate: dict | None = None
    # chunks of this version repeating active chunks of other documents (duplicates.py)
    duplicates: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def _fail(version: DocumentVersion, exc: Exception) -> None:
    """Mark a version failed with the reason; the previous version stays active."""
    DocumentVersion.objects.filter(pk=version.pk).update(status=DocumentVersion.Status.FAILED, error=str(exc)[:2000])


def _result(begun: _Begun, embedded: int, *, publication: str = "published", gate: dict | None = None,
            duplicates: list[dict] | None = None) -> IngestResult:
    return IngestResult(begun.action, begun.version.document_id, begun.external_id, begun.version.number,
                        begun.chunks, embedded, begun.reused, publication, gate, duplicates or [])

"""Atomic version switches: publish a version, roll back to an older one, delete or purge a document.

Each switch is one transaction holding the document's row lock: the chunks of the version becoming
active turn ``active`` and every other chunk of the document turns ``deprecated`` together, the
keyword statistics follow (keywords.on_chunks_published), and an audit event is recorded. A search
running meanwhile sees either the old version or the new one, never both or neither.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db import transaction
from django.utils import timezone

from ..audit import record_event
from ..exceptions import InvalidInput, NotFound
from ..models import Chunk, Document, DocumentVersion, KnowledgeBase
from .keywords import on_chunks_published

MIXED_MODELS = "(mixed)"


@dataclass(frozen=True)
class PublishResult:
    document_id: int
    version: int | None
    previous_version: int | None
    activated: int
    deprecated: int

    def as_dict(self) -> dict:
        return asdict(self)


def publish_version(version: DocumentVersion, *, action: str = "publish") -> PublishResult:
    """Make ``version`` its document's active version, atomically; every chunk must have a vector."""
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=version.document_id)
        version = DocumentVersion.objects.select_for_update().get(pk=version.pk)
        previous = (
            DocumentVersion.objects.filter(pk=document.active_version_id).first()
            if document.active_version_id else None
        )
        missing = version.chunks.filter(embedding__isnull=True).count()
        if missing:
            raise InvalidInput(
                f"Version {version.number} has {missing} chunk(s) without an embedding; re-import to complete it.",
                field="version",
            )
        deprecated_ids = list(
            Chunk.objects.filter(document=document, status=Chunk.Status.ACTIVE)
            .exclude(version=version).values_list("pk", flat=True)
        )
        activated_ids = list(version.chunks.exclude(status=Chunk.Status.ACTIVE).values_list("pk", flat=True))
        if deprecated_ids:
            Chunk.objects.filter(pk__in=deprecated_ids).update(status=Chunk.Status.DEPRECATED)
        if activated_ids:
            Chunk.objects.filter(pk__in=activated_ids).update(status=Chunk.Status.ACTIVE)
        document.versions.filter(status=DocumentVersion.Status.ACTIVE).exclude(pk=version.pk).update(
            status=DocumentVersion.Status.DEPRECATED,
        )
        version.status, version.error, version.published_at = DocumentVersion.Status.ACTIVE, "", timezone.now()
        version.save(update_fields=["status", "error", "published_at"])
        document.active_version = version
        document.status = Document.Status.ACTIVE
        document.save(update_fields=["active_version", "status", "updated_at"])
        on_chunks_published(knowledge_base_id=document.knowledge_base_id,
                            activated_ids=activated_ids, deprecated_ids=deprecated_ids)
        refresh_embedding_model(document.knowledge_base_id)
        record_event(
            f"document.{action}", object_type="document", object_id=document.pk,
            before={"version": previous.number if previous else None},
            after={"version": version.number, "activated": len(activated_ids), "deprecated": len(deprecated_ids)},
        )
    return PublishResult(document.pk, version.number, previous.number if previous else None,
                         len(activated_ids), len(deprecated_ids))


def rollback_document(document: Document, *, version_number: int) -> PublishResult:
    """Make an earlier (or any published) version active again, atomically."""
    version = DocumentVersion.objects.filter(document=document, number=version_number).first()
    if version is None:
        raise NotFound(f"Document {document.pk} has no version {version_number}.")
    if version.status in (DocumentVersion.Status.PENDING, DocumentVersion.Status.FAILED):
        raise InvalidInput(
            f"Version {version_number} is {version.status} and was never published; only published versions "
            f"can be restored.", field="version",
        )
    if document.status == Document.Status.DELETED and version.status != DocumentVersion.Status.DEPRECATED:
        raise InvalidInput("The document is deleted.", field="version")
    return publish_version(version, action="rollback")


def delete_document(document: Document, *, purge: bool = False) -> PublishResult:
    """Deprecate a document's chunks (kept for history) or, with ``purge``, delete its rows."""
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document.pk)
        previous = DocumentVersion.objects.filter(pk=document.active_version_id).first()
        deprecated_ids = list(
            Chunk.objects.filter(document=document, status=Chunk.Status.ACTIVE).values_list("pk", flat=True)
        )
        Chunk.objects.filter(pk__in=deprecated_ids).update(status=Chunk.Status.DEPRECATED)
        # Statistics are updated before a purge removes the rows they are computed from.
        on_chunks_published(knowledge_base_id=document.knowledge_base_id, activated_ids=[],
                            deprecated_ids=deprecated_ids)
        result = PublishResult(document.pk, None, previous.number if previous else None, 0, len(deprecated_ids))
        record_event(
            "document.purge" if purge else "document.delete", object_type="document", object_id=document.pk,
            before={"version": previous.number if previous else None, "external_id": document.external_id,
                    "title": document.title},
            after=None if purge else {"status": "deleted"},
        )
        if purge:
            document.delete()
        else:
            document.versions.filter(status=DocumentVersion.Status.ACTIVE).update(
                status=DocumentVersion.Status.DEPRECATED,
            )
            document.active_version = None
            document.status = Document.Status.DELETED
            document.save(update_fields=["active_version", "status", "updated_at"])
        refresh_embedding_model(document.knowledge_base_id)
    return result


def refresh_embedding_model(knowledge_base_id: int) -> str:
    """Record which model made the active vectors of a knowledge base ("(mixed)" when several did)."""
    models_used = list(
        Chunk.objects.filter(knowledge_base_id=knowledge_base_id, status=Chunk.Status.ACTIVE)
        .order_by().values_list("embedding_model", flat=True).distinct()[:2]
    )
    if not models_used:
        value = ""
    elif len(models_used) == 1:
        value = models_used[0]
    else:
        value = MIXED_MODELS
    KnowledgeBase.objects.filter(pk=knowledge_base_id).exclude(embedding_model=value).update(embedding_model=value)
    return value


def get_document(knowledge_base: KnowledgeBase, document_id) -> Document:
    """The document ``document_id`` of this knowledge base, or NotFound."""
    try:
        pk = int(document_id)
        if not 0 < pk < 2**63:
            raise ValueError(pk)
    except (TypeError, ValueError):
        raise NotFound(f"Document {document_id!r} does not exist in {knowledge_base.slug!r}.") from None
    document = Document.objects.in_knowledge_base(knowledge_base).filter(pk=pk).first()
    if document is None:
        raise NotFound(f"Document {document_id!r} does not exist in {knowledge_base.slug!r}.")
    return document

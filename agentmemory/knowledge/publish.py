"""Atomic version switches: publish a version, roll back to an older one, delete or purge a document.

Each switch is one transaction holding the document's row lock: the chunks of the version becoming
active turn ``active`` and every other chunk of the document turns ``deprecated`` together, the
keyword statistics follow (keywords.on_chunks_published), and an audit event is recorded. A search
running meanwhile sees either the old version or the new one, never both or neither.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import asdict, dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from ..audit import audit_event, record_event, record_events
from ..exceptions import InvalidInput, NotFound
from ..models import Chunk, Document, DocumentVersion, KnowledgeBase
from ..models.rows import update_rows
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
    outcome = publish_versions([version], action=action)[0]
    if isinstance(outcome, InvalidInput):
        raise outcome
    return outcome


def publish_versions(versions: list[DocumentVersion], *, action: str = "publish",
                     activated: Collection[int] = ()) -> list[PublishResult | InvalidInput]:
    """Publish several versions (of different documents) in one transaction, each switch whole.

    The bulk import's way: the statements are per batch, not per document. A version with a chunk
    lacking its vector is not published; its place in the returned list holds the InvalidInput.
    ``activated``: chunks of these versions the caller already turned active in this transaction
    (embed.store_vectors' ``activate``); they are counted as activated, and turned pending again if
    their version cannot be published.
    """
    # Two versions of one document (an import holding one external id twice, both completed by one
    # batch) are published one after the other, as two imports would be: the later one active, the
    # earlier one deprecated by it. Each round holds a document at most once.
    rounds: list[list[int]] = []
    seen: dict[int, int] = {}
    for i, version in enumerate(versions):
        seen[version.document_id] = number = seen.get(version.document_id, -1) + 1
        if number == len(rounds):
            rounds.append([])
        rounds[number].append(i)
    out: list[PublishResult | InvalidInput | None] = [None] * len(versions)
    # No savepoint of its own inside a caller's transaction (the import's): nothing here is retried.
    with transaction.atomic(savepoint=False):
        for number, indexes in enumerate(rounds):
            later = [versions[i].pk for round_ in rounds[number + 1:] for i in round_]
            results = _publish_round([versions[i] for i in indexes], action=action, activated=activated, later=later)
            for i, result in zip(indexes, results, strict=True):
                out[i] = result
    return out  # type: ignore[return-value]


def _publish_round(versions: list[DocumentVersion], *, action: str, activated: Collection[int],
                   later: list[int]) -> list[PublishResult | InvalidInput]:
    """publish_versions for versions of distinct documents, inside its transaction; ``later``: the
    versions of the rounds after this one (their chunks, which the caller may have turned active, are
    not deprecated by this round)."""
    documents = {d.pk: d for d in Document.objects.select_for_update().filter(
        pk__in=[v.document_id for v in versions]).order_by("pk")}
    locked = {v.pk: v for v in DocumentVersion.objects.select_for_update().filter(
        pk__in=[v.pk for v in versions]).order_by("pk")}
    previous = dict(DocumentVersion.objects.filter(
        pk__in=[d.active_version_id for d in documents.values() if d.active_version_id])
        .values_list("pk", "number"))
    missing = dict(Chunk.objects.filter(version__in=list(locked), embedding__isnull=True).order_by()
                   .values("version").annotate(n=Count("id")).values_list("version", "n"))
    ready = [locked[v.pk] for v in versions if not missing.get(v.pk)]
    if activated and len(ready) < len(versions):
        Chunk.objects.filter(pk__in=list(activated), version__in=[v.pk for v in versions if missing.get(v.pk)],
                             ).update(status=Chunk.Status.PENDING)
    changes = _switch(ready, documents, set(activated), later)
    for kb_id in {documents[v.document_id].knowledge_base_id for v in ready}:
        on_chunks_published(knowledge_base_id=kb_id, activated_ids=changes["activated"][kb_id],
                            deprecated_ids=changes["deprecated"][kb_id], locked=True)
        refresh_embedding_model(kb_id, activated_ids=changes["activated"][kb_id])
    out: list[PublishResult | InvalidInput] = []
    events = []
    for version in versions:
        if missing.get(version.pk):
            out.append(InvalidInput(
                f"Version {version.number} has {missing[version.pk]} chunk(s) without an embedding; re-import "
                "to complete it.", field="version"))
            continue
        document, before = documents[version.document_id], previous.get(changes["was_active"][version.pk])
        turned_on, turned_off = changes["per_version"][version.pk]
        events.append(audit_event(
            f"document.{action}", object_type="document", object_id=document.pk, before={"version": before},
            after={"version": version.number, "activated": turned_on, "deprecated": turned_off}))
        out.append(PublishResult(document.pk, version.number, before, turned_on, turned_off))
    record_events(events)
    return out


def _switch(versions: list[DocumentVersion], documents: dict[int, Document], already: set[int],
            later: list[int]) -> dict:
    """Flip chunks, versions and documents for ``versions`` (locked, complete): a few statements in all.

    ``already``: chunks the caller turned active in this transaction (counted, not updated again);
    ``later``: versions published after these in the same call (their chunks are left alone).
    """
    chosen = {v.document_id: v for v in versions}
    inactive = ~Q(status=Chunk.Status.ACTIVE)
    activated = list(Chunk.objects.filter(version__in=versions).filter(inactive | Q(pk__in=already) if already
                                                                        else inactive)
                     .values_list("pk", "version_id", "knowledge_base_id"))
    deprecated = list(Chunk.objects.filter(document__in=list(chosen), status=Chunk.Status.ACTIVE)
                      .exclude(version__in=[*versions, *later]).values_list("pk", "document_id", "knowledge_base_id"))
    if deprecated:
        Chunk.objects.filter(pk__in=[pk for pk, _d, _k in deprecated]).update(status=Chunk.Status.DEPRECATED)
    if flip := [pk for pk, _v, _k in activated if pk not in already]:
        Chunk.objects.filter(pk__in=flip).update(status=Chunk.Status.ACTIVE)
    DocumentVersion.objects.filter(document__in=list(chosen), status=DocumentVersion.Status.ACTIVE).exclude(
        pk__in=[v.pk for v in versions]).update(status=DocumentVersion.Status.DEPRECATED)
    now = timezone.now()
    DocumentVersion.objects.filter(pk__in=[v.pk for v in versions]).update(
        status=DocumentVersion.Status.ACTIVE, error="", published_at=now)
    was_active = {v.pk: documents[v.document_id].active_version_id for v in versions}
    for version in versions:
        version.status, version.error, version.published_at = DocumentVersion.Status.ACTIVE, "", now
        document = documents[version.document_id]
        document.active_version, document.status, document.updated_at = version, Document.Status.ACTIVE, now
    update_rows(Document, list(chosen), {"active_version": [chosen[d].pk for d in chosen]},
                constants={"status": Document.Status.ACTIVE, "updated_at": now})
    per_version = {v.pk: (sum(1 for _c, vid, _k in activated if vid == v.pk),
                          sum(1 for _c, did, _k in deprecated if did == v.document_id)) for v in versions}
    by_kb: dict[str, dict[int, list[int]]] = {"activated": defaultdict(list), "deprecated": defaultdict(list)}
    for pk, _v, kb in activated:
        by_kb["activated"][kb].append(pk)
    for pk, _d, kb in deprecated:
        by_kb["deprecated"][kb].append(pk)
    return {**by_kb, "per_version": per_version, "was_active": was_active}


def rollback_document(document: Document, *, version_number: int) -> PublishResult:
    """Make an earlier (or any published) version active again, atomically."""
    version = DocumentVersion.objects.filter(document=document, number=version_number).first()
    if version is None:
        raise NotFound(f"Document {document.pk} has no version {version_number}.")
    if version.status in (DocumentVersion.Status.PENDING, DocumentVersion.Status.FAILED,
                          DocumentVersion.Status.HELD, DocumentVersion.Status.DISCARDED):
        hint = " (a held version is published from the review queue: publish/)" if version.status == "held" else ""
        raise InvalidInput(
            f"Version {version_number} is {version.status} and was never published; only published versions "
            f"can be restored{hint}.", field="version",
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


def refresh_embedding_model(knowledge_base_id: int, *, activated_ids: list[int] | None = None) -> str:
    """Record which model made the active vectors of a knowledge base ("(mixed)" when several did).

    With ``activated_ids`` (a publish): when the base already records one model and every chunk just
    activated has it, the set of models cannot have changed, and the base's chunks are not read
    (importing N documents would otherwise read the base's chunks N times).
    """
    if activated_ids:
        recorded = KnowledgeBase.objects.filter(pk=knowledge_base_id).values_list("embedding_model", flat=True).first()
        if recorded and recorded != MIXED_MODELS:
            new = set(Chunk.objects.filter(pk__in=activated_ids).values_list("embedding_model", flat=True).distinct())
            if new == {recorded}:
                return recorded
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

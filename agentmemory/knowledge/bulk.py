"""Import many documents at the embedder's speed (``agentmemory_ingest``, the ingest benchmark).

The steps and guarantees are ``ingest_document``'s for each document; what changes is the rhythm:
- documents are prepared (parsed text validated, versioned, chunked, keyword-indexed) in groups of
  about one embedding batch (the first groups smaller: the embedder starts with the first document),
  one short transaction and one statement per table for each group (prepare.py), while the embedder
  works on the batch before (backends/embeddings/pipeline.py);
- chunks of consecutive documents fill embedding batches of the embedder's batch size, so short
  documents do not each pay for a call, and a long one spans several batches;
- each batch's vectors, and the publishing of every document whose last chunk is in it, are one
  transaction: a killed import resumes after the last committed batch, a document is published
  only whole, and the database sees one commit per batch instead of several per document.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.db import transaction

from ..backends import get_embedder
from ..backends.embeddings.pipeline import embed_batches
from ..conf import app_settings
from ..exceptions import AgentMemoryError, EmbeddingError
from ..models import Chunk, KnowledgeBase
from ..progress import Progress
from .chunk import embedding_text
from .duplicates import find_duplicates
from .embed import store_vectors
from .gate import gate_versions
from .prepare import DocumentInput, IngestResult, _Begun, _fail, _result, begin_documents
from .propose import propose_cases
from .publish import publish_versions
from .sentences import write_sentences

Outcome = tuple[DocumentInput, IngestResult | AgentMemoryError]


@dataclass(eq=False)  # identity: one object per document
class _Pending:
    """A document between its preparation and its publishing."""

    item: DocumentInput
    begun: _Begun
    todo: list[tuple[int, str, str]]  # (pk, heading_path, text) still to embed
    remaining: int
    embedded: int = 0
    failed: bool = False


def ingest_documents(*, knowledge_base: KnowledgeBase, items: Iterable[DocumentInput],
                     progress: Progress | None = None) -> Iterator[Outcome]:
    """Import ``items``; yields (input, result or error) per document as each is settled.

    ``progress(chunks_embedded, chunks_known)`` is called after every group of documents is prepared
    and after every batch (the total grows as documents are prepared: the items may be a lazy iterator).
    """
    embedder = get_embedder()
    model = embedder.model_name
    size = int(getattr(embedder, "batch_size", 0) or app_settings.EMBEDDING_BATCH_SIZE)
    settled: deque[Outcome] = deque()  # outcomes known while preparing (errors, unchanged, all reused)
    counts = {"known": 0, "done": 0}

    def batches() -> Iterator[tuple[list[tuple[int, _Pending]], list[str]]]:
        keys: list[tuple[int, _Pending]] = []
        texts: list[str] = []
        for number, group in enumerate(_groups(items, knowledge_base, size)):
            prepared = [p for item, begun in zip(group, begin_documents(knowledge_base, group, model), strict=True)
                        if (p := _pending(knowledge_base, item, begun, model, settled)) is not None]
            counts["known"] += sum(p.remaining for p in prepared)
            if progress and prepared:
                # The chunks known so far, before they embed: a job shows its total from the start.
                progress(counts["done"], counts["known"])
            for pending in prepared:
                for pk, path, text in pending.todo:
                    if pending.failed:  # a batch of it failed meanwhile: stop sending its chunks
                        break
                    keys.append((pk, pending))
                    texts.append(embedding_text(path, text))
                    if len(texts) == size:
                        yield keys, texts
                        keys, texts = [], []
            if texts and number < _RAMP:
                # The first groups are small and each leaves as its own batch (one document, then
                # about size/8, size/4, size/2 chunks): the embedder starts at once and always has the
                # next batch before it finishes one, instead of waiting for a whole batch of documents.
                yield keys, texts
                keys, texts = [], []
        if texts:
            # The last batch's vectors are stored after the embedder has nothing left to do: a short
            # last batch keeps that write short, while the batch before it is stored as it embeds.
            cut = len(texts) - _tail(size)
            if cut >= _tail(size):
                yield keys[:cut], texts[:cut]
                keys, texts = keys[cut:], texts[cut:]
            yield keys, texts

    # The documents imported, unchanged ones too (a re-run of a killed import): their chunks without sentence
    # vectors get them once all are published (sentences.py).
    imported: set[int] = set()

    def noted(outcome: Outcome) -> Outcome:
        if isinstance(outcome[1], IngestResult):
            imported.add(outcome[1].document_id)
        return outcome

    for keys, vectors in embed_batches(batches(), embedder.embed_passages):
        while settled:
            yield noted(settled.popleft())
        yield from map(noted, _settle(knowledge_base, keys, vectors, model))
        counts["done"] += len(keys)
        if progress:
            progress(counts["done"], max(counts["known"], counts["done"]))
    while settled:
        yield noted(settled.popleft())
    if imported:
        write_sentences(Chunk.objects.filter(document_id__in=imported).exclude(status=Chunk.Status.DEPRECATED),
                        embedder=embedder)


#: The first groups that leave as batches of their own (bulk.batches), growing to the embedder's batch size.
_RAMP = 4


def _tail(size: int) -> int:
    """Chunks of the import's last embedding batch at most (an eighth of a batch, as the first ramp step)."""
    return max(1, size // 8)


def _groups(items: Iterable[DocumentInput], kb: KnowledgeBase, size: int) -> Iterator[list[DocumentInput]]:
    """The inputs in groups prepared together: the first alone, then about size/8, size/4 and size/2
    chunks (estimated from the text's length), then about one embedding batch each, at most 64 documents."""
    group: list[DocumentInput] = []
    estimate, number = 0, 0
    for item in items:
        group.append(item)
        estimate += max(1, -(-len(item.parsed.text) // max(kb.chunk_size - kb.chunk_overlap, 1)))
        wanted = 0 if number == 0 else max(1, size >> max(0, _RAMP - number))
        if estimate >= wanted or len(group) >= 64:
            yield group
            group, estimate, number = [], 0, number + 1
    if group:
        yield group


def _pending(kb: KnowledgeBase, item: DocumentInput, begun: _Begun | AgentMemoryError, model: str,
             settled: deque[Outcome]) -> _Pending | None:
    """The document's pending version, or None when its outcome is already known (then in ``settled``)."""
    if isinstance(begun, AgentMemoryError):
        settled.append((item, begun))
        return None
    if begun.action == "unchanged":
        settled.append((item, _result(begun, 0)))
        return None
    # A new version knows its chunks to embed; a resumed one asks the database what is still missing.
    todo = begun.todo if begun.todo is not None else list(Chunk.objects.filter(version=begun.version).to_embed(model))
    if not todo:  # every vector reused (or a resumed version whose vectors were all stored)
        settled.extend(_publish(kb, [_Pending(item, begun, [], 0)]))
        return None
    return _Pending(item, begun, todo, len(todo))


def _publish(kb: KnowledgeBase, complete: list[_Pending], activated: set[int] = frozenset()) -> list[Outcome]:
    """Link the complete versions' duplicates, then publish them (or, with the base's gate on, let the
    gate publish or hold each)."""
    if not complete:
        return []
    versions = [p.begun.version for p in complete]
    duplicates = {vid: [d.as_dict() for d in found] for vid, found in find_duplicates(versions).items()}
    out: list[Outcome] = []
    if kb.publish_gate:
        for pending, gated in zip(complete, gate_versions(kb, versions), strict=True):
            out.append((pending.item, _result(pending.begun, pending.embedded, publication=gated.decision,
                                              gate=gated.report, duplicates=duplicates.get(gated.version.pk))))
    else:
        for pending, result in zip(complete, publish_versions(versions, activated=activated), strict=True):
            out.append((pending.item, result if isinstance(result, AgentMemoryError) else _result(
                pending.begun, pending.embedded, duplicates=duplicates.get(pending.begun.version.pk))))
    for item, outcome in out:
        wanted = kb.propose_checks if item.propose_checks is None else item.propose_checks
        if wanted and isinstance(outcome, IngestResult) and outcome.publication == "published":
            propose_cases(next(p.begun.version for p in complete if p.item is item))
    return out


def _settle(kb: KnowledgeBase, keys: list[tuple[int, _Pending]], vectors, model: str) -> list[Outcome]:
    """Store one batch's vectors and publish the documents it completes (one transaction; with the base's
    publish gate on, the vectors are committed first and the gate decides after)."""
    documents = list(dict.fromkeys(pending for _pk, pending in keys))
    out: list[Outcome] = []
    if isinstance(vectors, EmbeddingError):
        for pending in documents:
            pending.remaining -= sum(1 for _pk, p in keys if p is pending)
            if not pending.failed:
                pending.failed = True
                _fail(pending.begun.version, vectors)
                out.append((pending.item, vectors))
        return out
    with transaction.atomic():
        for _pk, pending in keys:
            pending.remaining -= 1
            pending.embedded += 1
        complete = [p for p in documents if not p.remaining and not p.failed]
        # The chunks of a document this batch completes turn active with their vectors (one write each),
        # unless the gate is to decide.
        activate = set() if kb.publish_gate else {pk for pk, p in keys if not p.remaining and not p.failed}
        store_vectors([pk for pk, _p in keys], vectors, model, activate=activate)
        if not kb.publish_gate:
            out.extend(_publish(kb, complete, activate))
    if kb.publish_gate:
        out.extend(_publish(kb, complete))
    return out

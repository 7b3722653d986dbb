"""Bulk import (knowledge/bulk.py): batches filled across documents, one batch embedding while the next
documents are prepared, a failed batch failing only its documents, progress with chunk counts.

Real database, the bundled model (counting or failing on purpose, tests/knowledge/embedders.py).
"""
from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.test import override_settings

from agentmemory.exceptions import EmbeddingError
from agentmemory.knowledge.bulk import ingest_documents
from agentmemory.knowledge.ingest import DocumentInput, prepare_document
from agentmemory.models import Chunk, Document, DocumentVersion

from .conftest import COUNTING

pytestmark = pytest.mark.django_db


def inputs(n: int, *, long: int | None = None):
    for i in range(n):
        text = f"第{i}号通知：办公室第{i}层的打印机已经修好。" if i != long else "。".join(
            f"第{j}段：长文档的内容，关于设备维护的说明" for j in range(40))
        yield DocumentInput(parsed=prepare_document(fmt="text", content=text), title="", fmt="text",
                            external_id=f"doc-{i}")


@contextmanager
def recorded_batches(counting_embedder):
    """The texts of each embedding call made inside the block."""
    calls: list[list[str]] = []
    original = counting_embedder.embed_passages

    def recording(self, texts):
        calls.append(list(texts))
        return original(self, texts)

    counting_embedder.embed_passages = recording
    try:
        yield calls
    finally:
        counting_embedder.embed_passages = original


def test_short_documents_share_embedding_batches_and_all_publish(kb, counting_embedder):
    seen = []
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 4, "SENTENCE_VECTORS": False}), \
            recorded_batches(counting_embedder) as batches:
        outcomes = list(ingest_documents(knowledge_base=kb, items=inputs(10),
                                         progress=lambda done, total: seen.append((done, total))))
    calls = [len(b) for b in batches]
    assert [o.action for _i, o in outcomes] == ["created"] * 10
    assert sorted(i.external_id for i, _o in outcomes) == sorted(f"doc-{i}" for i in range(10))
    chunks = Chunk.objects.filter(knowledge_base=kb)
    assert set(chunks.values_list("status", flat=True)) == {"active"}
    assert not chunks.filter(embedding__isnull=True).exists()
    # ten one-chunk documents: the first leaves alone (the embedder starts at once), then growing
    # batches (size/8, size/4, size/2: 1, 1, 2 at size 4) so the next is ready before the embedder
    # finishes one, then batches of four chunks across documents, not one call per document
    assert calls == [1, 1, 1, 2, 4, 1]
    assert seen[-1] == (10, 10) and [d for d, _t in seen] == sorted(d for d, _t in seen)
    # one audit event per document, written per batch in one statement (audit.record_events)
    from agentmemory.models import AuditEvent

    events = AuditEvent.objects.filter(action="document.publish", object_type="document")
    assert sorted(events.values_list("object_id", flat=True)) == sorted(str(o.document_id) for _i, o in outcomes)
    assert {e.after["version"] for e in events} == {1} and all(e.actor for e in events)


def test_a_document_spanning_batches_publishes_only_whole(kb, counting_embedder):
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 3, "SENTENCE_VECTORS": False}):
        outcomes = dict((i.external_id, o) for i, o in ingest_documents(knowledge_base=kb, items=inputs(3, long=1)))
    long_doc = Document.objects.get(knowledge_base=kb, external_id="doc-1")
    assert outcomes["doc-1"].chunks == Chunk.objects.filter(document=long_doc).count() > 3
    assert outcomes["doc-1"].embedded == outcomes["doc-1"].chunks
    assert long_doc.active_version is not None and long_doc.active_version.status == "active"


def test_a_failed_batch_fails_its_documents_and_a_rerun_resumes(kb, counting_embedder):
    from .embedders import FailingEmbedder

    FailingEmbedder.budget = 5  # the first two batches (1 + 4 chunks) embed, then the server goes away
    failing = {"EMBEDDER": "tests.knowledge.embedders.FailingEmbedder", "EMBEDDING_BATCH_SIZE": 4,
               "SENTENCE_VECTORS": False}
    with override_settings(AGENTMEMORY=failing):
        from agentmemory.backends import reset_backends

        reset_backends()
        outcomes = dict((i.external_id, o) for i, o in ingest_documents(knowledge_base=kb, items=inputs(6)))
    reset_backends()
    published = {k for k, o in outcomes.items() if not isinstance(o, Exception)}
    failed = {k for k, o in outcomes.items() if isinstance(o, EmbeddingError)}
    assert len(published) == 5 and len(failed) == 1 and published | failed == {f"doc-{i}" for i in range(6)}
    assert DocumentVersion.objects.filter(document__knowledge_base=kb, status="failed").count() == 1
    counting_embedder.reset()
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 4, "SENTENCE_VECTORS": False}):
        again = dict((i.external_id, o) for i, o in ingest_documents(knowledge_base=kb, items=inputs(6)))
    assert {k for k, o in again.items() if o.action == "unchanged"} == published
    assert {k for k, o in again.items() if o.action == "created"} == failed
    assert len(counting_embedder.texts) == 1  # only what had failed is embedded again


def test_stored_vectors_read_back_exactly(kb):
    import numpy as np

    from agentmemory.knowledge.embed import store_vectors

    list(ingest_documents(knowledge_base=kb, items=inputs(3)))
    pks = list(Chunk.objects.filter(knowledge_base=kb).order_by("id").values_list("id", flat=True))
    vectors = np.random.default_rng(7).standard_normal((len(pks), 384)).astype(np.float32)
    store_vectors(pks, vectors, "another-model")
    stored = dict(Chunk.objects.filter(pk__in=pks).values_list("id", "embedding"))
    for pk, vector in zip(pks, vectors, strict=True):
        assert np.array_equal(np.asarray(stored[pk], dtype=np.float32), vector)
    assert set(Chunk.objects.filter(pk__in=pks).values_list("embedding_model", flat=True)) == {"another-model"}
    with pytest.raises(ValueError):
        store_vectors(pks, vectors[:1], "another-model")


def test_one_document_twice_in_an_import_ends_with_the_later_text_only(kb, counting_embedder):
    def twice():
        for text in ("第一版：打印机在三楼。", "第二版：打印机搬到了五楼。"):
            yield DocumentInput(parsed=prepare_document(fmt="text", content=text), title="", fmt="text",
                                external_id="moved")
        yield from inputs(2)

    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 8, "SENTENCE_VECTORS": False}):
        outcomes = list(ingest_documents(knowledge_base=kb, items=twice()))
    assert [type(o).__name__ for _i, o in outcomes] == ["IngestResult"] * 4
    document = Document.objects.get(knowledge_base=kb, external_id="moved")
    assert document.active_version.number == 2
    active = Chunk.objects.filter(document=document, status="active")
    assert [c.text for c in active] == ["第二版：打印机搬到了五楼。"]
    assert list(document.versions.order_by("number").values_list("status", flat=True)) == ["deprecated", "active"]
    # the keyword index holds the active text only
    from agentmemory.models import KeywordPosting

    assert set(KeywordPosting.objects.filter(chunk__document=document).values_list("chunk_id", flat=True)) == {
        active[0].pk}


def test_chunks_become_active_with_their_vectors_in_one_write(kb, counting_embedder):
    # A document whose chunks all embed in one batch gets its vectors and its active status in one
    # UPDATE (each chunk enters the vector index once); a document spanning batches is flipped at publish.
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 3, "SENTENCE_VECTORS": False}):
        outcomes = list(ingest_documents(knowledge_base=kb, items=inputs(4, long=2)))
    assert all(not isinstance(o, Exception) for _i, o in outcomes)
    assert set(Chunk.objects.filter(knowledge_base=kb).values_list("status", flat=True)) == {"active"}
    from agentmemory.models import KeywordPosting, KnowledgeBaseStats

    chunks = Chunk.objects.filter(knowledge_base=kb)
    stats = KnowledgeBaseStats.objects.get(knowledge_base=kb)
    assert stats.chunk_count == chunks.count()
    assert set(KeywordPosting.objects.filter(knowledge_base=kb).values_list("chunk_id", flat=True)) == set(
        chunks.values_list("id", flat=True))


def test_the_last_batch_is_short_so_the_write_after_the_embedder_is(kb, counting_embedder):
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 8, "SENTENCE_VECTORS": False}), \
            recorded_batches(counting_embedder) as batches:
        outcomes = list(ingest_documents(knowledge_base=kb, items=inputs(13)))
    calls = [len(b) for b in batches]
    assert len(outcomes) == 13 and all(o.action == "created" for _i, o in outcomes)
    # ramp 1, 1, 2, 4; the five chunks left leave as 4 + 1: the last settle, which nothing overlaps,
    # stores one chunk while the four before it are stored during its embedding
    assert calls == [1, 1, 2, 4, 4, 1]
    assert not Chunk.objects.filter(knowledge_base=kb).exclude(status="active").exists()


def test_one_document_reports_its_total_before_it_embeds(kb, counting_embedder):
    from agentmemory.knowledge.ingest import ingest_document

    [long_input] = [i for n, i in enumerate(inputs(2, long=1)) if n == 1]
    seen = []
    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 3, "SENTENCE_VECTORS": False}):
        result = ingest_document(knowledge_base=kb, parsed=long_input.parsed, title="", fmt="text",
                                 external_id="long", progress=lambda done, total: seen.append((done, total)))
    assert result.action == "created" and result.embedded == result.chunks > 3
    assert seen[0] == (0, result.chunks)  # the total is known once the version is prepared
    assert seen[-1] == (result.chunks, result.chunks)
    assert [d for d, _t in seen] == sorted(d for d, _t in seen)
    assert Chunk.objects.filter(document_id=result.document_id, status="active").count() == result.chunks


def test_one_document_twice_in_one_batch_publishes_in_order(kb, counting_embedder):
    # Past the ramp both versions of "moved" fall in one embedding batch and complete together: they
    # are published one after the other, as two imports would be.
    def items():
        yield from inputs(12)
        for text in ("第一版：打印机在三楼。", "第二版：打印机搬到了五楼。"):
            yield DocumentInput(parsed=prepare_document(fmt="text", content=text), title="", fmt="text",
                                external_id="moved")
        for i in range(3):
            yield DocumentInput(parsed=prepare_document(fmt="text", content=f"尾部文档{i}号。"), title="", fmt="text",
                                external_id=f"tail-{i}")

    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "EMBEDDING_BATCH_SIZE": 8, "SENTENCE_VECTORS": False}), \
            recorded_batches(counting_embedder) as calls:
        outcomes = [(i.external_id, o) for i, o in ingest_documents(knowledge_base=kb, items=items())]
    assert any(sum("打印机" in t for t in batch) == 2 for batch in calls)  # the case: one batch holds both
    moved = [o for external_id, o in outcomes if external_id == "moved"]
    assert [o.version for o in moved] == [1, 2]  # both "created": the document is new to this import
    document = Document.objects.get(knowledge_base=kb, external_id="moved")
    assert document.active_version.number == 2
    assert list(Chunk.objects.filter(document=document, status="active").values_list("text", flat=True)) == [
        "第二版：打印机搬到了五楼。"]
    assert list(document.versions.order_by("number").values_list("status", flat=True)) == ["deprecated", "active"]
    from agentmemory.models import AuditEvent, KeywordPosting, KnowledgeBaseStats

    assert KnowledgeBaseStats.objects.get(knowledge_base=kb).chunk_count == Chunk.objects.filter(
        knowledge_base=kb, status="active").count()
    assert not KeywordPosting.objects.filter(chunk__document=document, chunk__status="deprecated").exists()
    events = AuditEvent.objects.filter(action="document.publish", object_id=str(document.pk)).order_by("id")
    assert [(e.before["version"], e.after["version"]) for e in events] == [(None, 1), (1, 2)]

"""One-statement inserts and updates from arrays (agentmemory/models/rows.py), the import's chunk and
document writes: every value reads back as written, ids come back in the rows' order."""
from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agentmemory.models import Chunk, Document, DocumentVersion, KnowledgeBase
from agentmemory.models.fields import EMBEDDING_DIMENSIONS, vector_literal
from agentmemory.models.rows import insert_rows, update_rows
from agentmemory.text.tsvector import tsvector_fields

pytestmark = pytest.mark.django_db


@pytest.fixture
def version():
    kb = KnowledgeBase.objects.create(slug="rows", name="Rows")
    document = Document.objects.create(knowledge_base=kb, external_id="d", title="D", format="text")
    return DocumentVersion.objects.create(document=document, number=1, content_hash="h", source_text="x")


def _row(version, position: int, text: str, **extra) -> dict:
    return {"knowledge_base": version.document.knowledge_base_id, "document": version.document_id,
            "version": version.pk, "position": position, "heading_path": extra.pop("heading_path", ""),
            "char_start": 0, "char_end": len(text), "text": text, "content_hash": f"hash-{position}",
            "token_count": len(text), "status": Chunk.Status.PENDING, **extra}


def test_insert_rows_stores_every_value_and_returns_ids_in_order(version):
    vector = np.linspace(-1, 1, EMBEDDING_DIMENSIONS, dtype=np.float32)
    texts = ["它's 一个\\反斜杠和'引号'", 'say "hi", {braces}, NULL', "第三段：全角标点，！？"]
    rows = [
        _row(version, 0, texts[0], heading_path="手册 > 参数", embedding=vector_literal(vector),
             embedding_model="m", **tsvector_fields(["它's", "引号", "引号"])),
        _row(version, 1, texts[1], embedding=None, embedding_model="", search_vector=None, term_count=0),
        _row(version, 2, texts[2], embedding=None, embedding_model="", **tsvector_fields(["第三", "段"])),
    ]
    now = timezone.now()
    with CaptureQueriesContext(connection) as queries:
        ids = insert_rows(Chunk, rows, constants={"created_at": now})
    assert len(queries.captured_queries) == 1
    chunks = {c.pk: c for c in Chunk.objects.filter(pk__in=ids)}
    assert [chunks[pk].position for pk in ids] == [0, 1, 2]
    assert [chunks[pk].text for pk in ids] == texts
    first, second, _third = (chunks[pk] for pk in ids)
    assert first.heading_path == "手册 > 参数" and first.embedding_model == "m"
    assert np.array_equal(np.asarray(first.embedding, dtype=np.float32), vector)
    assert second.embedding is None and second.search_vector is None
    assert all(c.created_at == now for c in chunks.values())
    with connection.cursor() as cursor:
        cursor.execute("SELECT u.lexeme, array_length(u.positions, 1) FROM agentmemory_chunk c, "
                       "unnest(c.search_vector) u WHERE c.id = %s ORDER BY 1", [ids[0]])
        assert cursor.fetchall() == [("它's", 1), ("引号", 2)]
    assert first.term_count == 3


def test_insert_rows_refuses_rows_of_different_fields(version):
    with pytest.raises(ValueError):
        insert_rows(Chunk, [_row(version, 0, "a"), {"text": "b"}])
    with pytest.raises(ValueError):  # as many fields, not the same ones
        insert_rows(Chunk, [_row(version, 0, "a", term_count=1), _row(version, 1, "b", embedding_model="")])
    assert insert_rows(Chunk, []) == []


def test_update_rows_sets_a_value_per_key_and_the_constants(version):
    kb = version.document.knowledge_base
    other = Document.objects.create(knowledge_base=kb, external_id="e", title="E", format="text")
    second = DocumentVersion.objects.create(document=other, number=1, content_hash="h2", source_text="y")
    untouched = Document.objects.create(knowledge_base=kb, external_id="f", title="F", format="text")
    now = timezone.now()
    with CaptureQueriesContext(connection) as queries:
        count = update_rows(Document, [version.document_id, other.pk],
                            {"active_version": [version.pk, second.pk]},
                            constants={"status": Document.Status.DELETED, "updated_at": now})
    assert count == 2 and len(queries.captured_queries) == 1
    assert Document.objects.get(pk=version.document_id).active_version_id == version.pk
    updated = Document.objects.get(pk=other.pk)
    assert (updated.active_version_id, updated.status, updated.updated_at) == (second.pk, Document.Status.DELETED, now)
    assert Document.objects.get(pk=untouched.pk).status == Document.Status.ACTIVE
    with pytest.raises(ValueError):
        update_rows(Document, [other.pk], {"active_version": []})
    assert update_rows(Document, [], {"active_version": []}) == 0

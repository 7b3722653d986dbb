"""Versions: unchanged re-posts, partial re-embedding, atomic publish, rollback, failure and resume, delete."""
from __future__ import annotations

import pytest
from django.test import override_settings

from agentmemory.knowledge.chunk import chunk_document
from agentmemory.knowledge.parse import parse
from agentmemory.models import AuditEvent, Chunk, Document, DocumentVersion

from .conftest import COUNTING, MANUAL_MD

URL = "/api/agentmemory/knowledge-bases/manuals/documents/"
pytestmark = pytest.mark.django_db

CHANGED_MD = MANUAL_MD.replace("指示灯变绿表示安装完成。", "指示灯变蓝并鸣响一声，表示安装完成。")


def _post(api_client, content, external_id="x200"):
    return api_client.post(URL, {"external_id": external_id, "title": "X-200 手册", "content": content,
                                 "format": "markdown"}, format="json")


def _statuses(document_id):
    return {
        v.number: (v.status, set(v.chunks.values_list("status", flat=True)))
        for v in DocumentVersion.objects.filter(document_id=document_id)
    }


def test_same_content_is_unchanged_and_changed_paragraph_reembeds_only_changed_chunks(api_client, kb,
                                                                                      counting_embedder):
    first = _post(api_client, MANUAL_MD)
    assert first.status_code == 201
    doc_id = first.json()["document_id"]
    counting_embedder.reset()

    again = _post(api_client, MANUAL_MD)
    assert again.status_code == 200 and again.json()["action"] == "unchanged"
    assert counting_embedder.texts == []
    assert DocumentVersion.objects.filter(document_id=doc_id).count() == 1

    old = {c.content_hash for c in chunk_document(parse("markdown", MANUAL_MD), chunk_size=120, chunk_overlap=30)}
    new_drafts = chunk_document(parse("markdown", CHANGED_MD), chunk_size=120, chunk_overlap=30)
    changed = [d for d in new_drafts if d.content_hash not in old]
    assert 0 < len(changed) < len(new_drafts)

    updated = _post(api_client, CHANGED_MD)
    assert updated.status_code == 201, updated.content
    body = updated.json()
    assert (body["action"], body["version"]) == ("updated", 2)
    assert body["embedded"] == len(changed) == len(counting_embedder.texts)
    assert body["reused"] == len(new_drafts) - len(changed)
    assert sorted(counting_embedder.texts) == sorted(d.embedding_text for d in changed)
    assert _statuses(doc_id) == {1: ("deprecated", {"deprecated"}), 2: ("active", {"active"})}
    # Reused vectors are the very vectors of the old version.
    reused = Chunk.objects.filter(version__number=2, document_id=doc_id, content_hash=new_drafts[0].content_hash).get()
    original = Chunk.objects.filter(version__number=1, document_id=doc_id, content_hash=new_drafts[0].content_hash).get()
    assert list(reused.embedding) == list(original.embedding)
    event = AuditEvent.objects.filter(action="document.publish", object_id=str(doc_id)).first()
    assert event.before == {"version": 1} and event.after["version"] == 2

    # Rollback flips back atomically, with nothing re-embedded.
    counting_embedder.reset()
    rolled = api_client.post(f"{URL}{doc_id}/rollback/", {"version": 1}, format="json")
    assert rolled.status_code == 200, rolled.content
    assert rolled.json()["version"] == 1 and rolled.json()["previous_version"] == 2
    assert _statuses(doc_id) == {1: ("active", {"active"}), 2: ("deprecated", {"deprecated"})}
    assert counting_embedder.texts == []
    assert Document.objects.get(pk=doc_id).active_version.number == 1
    v1_preview = api_client.get(f"{URL}{doc_id}/chunks/?version=2").json()
    assert {c["status"] for c in v1_preview} == {"deprecated"}

    assert api_client.post(f"{URL}{doc_id}/rollback/", {"version": 9}, format="json").status_code == 404
    assert api_client.post(f"{URL}{doc_id}/rollback/", {}, format="json").status_code == 400


def test_import_killed_mid_way_keeps_previous_version_and_resumes(api_client, kb, counting_embedder):
    from .embedders import FailingEmbedder

    doc_id = _post(api_client, MANUAL_MD).json()["document_id"]
    rewritten = MANUAL_MD.replace("。", "。\n").replace("X-200", "X-300")  # every chunk changes
    total = len(chunk_document(parse("markdown", rewritten), chunk_size=120, chunk_overlap=30))
    assert total > 2

    FailingEmbedder.budget = 2
    with override_settings(AGENTMEMORY={"EMBEDDER": "tests.knowledge.embedders.FailingEmbedder", "SENTENCE_VECTORS": False,
                                        "EMBEDDING_BATCH_SIZE": 2}):
        counting_embedder.reset()
        failed = _post(api_client, rewritten)
    # The embedder failed: the import is kept, queued for a retry (202), never a 5xx.
    assert failed.status_code == 202, failed.content
    assert failed.json()["status"] == "queued" and "connection reset" in failed.json()["error"]
    version = DocumentVersion.objects.get(document_id=doc_id, number=2)
    assert version.status == "failed" and "connection reset" in version.error
    assert _statuses(doc_id)[1] == ("active", {"active"})
    assert Document.objects.get(pk=doc_id).active_version.number == 1
    assert set(version.chunks.values_list("status", flat=True)) == {"pending"}
    assert version.chunks.filter(embedding__isnull=False).count() == 2  # the batch done before the failure
    detail = api_client.get(f"{URL}{doc_id}/").json()
    assert detail["versions"][0]["status"] == "failed" and "connection reset" in detail["versions"][0]["error"]

    with override_settings(AGENTMEMORY={"EMBEDDER": COUNTING, "SENTENCE_VECTORS": False}):
        counting_embedder.reset()
        resumed = _post(api_client, rewritten)
    assert resumed.status_code == 201, resumed.content
    assert resumed.json()["version"] == 2  # the same version, completed
    assert len(counting_embedder.texts) == total - 2
    assert _statuses(doc_id) == {1: ("deprecated", {"deprecated"}), 2: ("active", {"active"})}


def test_delete_deprecates_and_purge_removes(api_client, kb, counting_embedder):
    doc_id = _post(api_client, MANUAL_MD).json()["document_id"]
    other_id = _post(api_client, "# 其他\n\n另一份文档。", external_id="other").json()["document_id"]

    response = api_client.delete(f"{URL}{doc_id}/")
    assert response.status_code == 200
    assert Document.objects.get(pk=doc_id).status == "deleted"
    assert set(Chunk.objects.filter(document_id=doc_id).values_list("status", flat=True)) == {"deprecated"}
    assert [d["id"] for d in api_client.get(URL).json()] == [other_id]
    assert [d["external_id"] for d in api_client.get(f"{URL}?status=all&limit=1&offset=1").json()] == ["x200"]
    # Re-posting a deleted document brings it back as a new version.
    counting_embedder.reset()
    back = _post(api_client, MANUAL_MD)
    assert back.status_code == 201 and back.json()["version"] == 2 and counting_embedder.texts == []

    response = api_client.delete(f"{URL}{doc_id}/?purge=true")
    assert response.status_code == 200 and response.json()["purged"] is True
    assert not Document.objects.filter(pk=doc_id).exists()
    assert not Chunk.objects.filter(document_id=doc_id).exists()
    assert Chunk.objects.filter(document_id=other_id, status="active").exists()
    assert AuditEvent.objects.filter(action="document.purge", object_id=str(doc_id)).exists()
    assert api_client.get(f"{URL}{doc_id}/").status_code == 404

"""Preparing documents in groups (knowledge/prepare.py): one statement per table whatever the group's size,
and per document the same outcome as a single import (created, updated, unchanged, resumed, refused)."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentmemory.exceptions import AgentMemoryError
from agentmemory.knowledge.ingest import DocumentInput, prepare_document
from agentmemory.knowledge.prepare import begin_documents
from agentmemory.models import Chunk, DocumentVersion

pytestmark = pytest.mark.django_db
MODEL = "test-model"


def doc(external_id: str, text: str, title: str = "") -> DocumentInput:
    return DocumentInput(parsed=prepare_document(fmt="text", content=text), title=title, fmt="text",
                         external_id=external_id)


def test_a_group_costs_the_same_statements_as_one_document(kb):
    def statements(items: list[DocumentInput]) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert all(not isinstance(b, AgentMemoryError) for b in begin_documents(kb, items, MODEL))
        return len(queries.captured_queries)

    one = statements([doc("solo", "第一份通知：打印机已经修好。")])
    many = statements([doc(f"g-{i}", f"第{i}号通知：办公室第{i}层的打印机已经修好。") for i in range(12)])
    assert many == one
    assert Chunk.objects.filter(knowledge_base=kb, document__external_id__startswith="g-").count() == 12
    # Preparing them again resumes the pending versions: still no statement per document.
    again = statements([doc(f"g-{i}", f"第{i}号通知：办公室第{i}层的打印机已经修好。") for i in range(12)])
    assert again == statements([doc("solo", "第一份通知：打印机已经修好。")])


def test_each_document_of_a_group_gets_its_own_outcome(kb):
    [first] = begin_documents(kb, [doc("same", "不变的内容。"), ], MODEL)
    DocumentVersion.objects.filter(pk=first.version.pk).update(status=DocumentVersion.Status.ACTIVE)
    first.version.document.active_version = first.version
    first.version.document.save(update_fields=["active_version"])
    [failed] = begin_documents(kb, [doc("resume", "失败后重试的内容。")], MODEL)
    DocumentVersion.objects.filter(pk=failed.version.pk).update(status=DocumentVersion.Status.FAILED, error="x")

    results = begin_documents(kb, [
        doc("same", "不变的内容。"),
        doc("new", "新的文档。"),
        DocumentInput(parsed=prepare_document(fmt="text", content="格式不对。"), title="", fmt="docx-nope",
                      external_id="bad"),
        doc("resume", "失败后重试的内容。"),
        doc("twice", "第一版。"),
        doc("twice", "第二版。"),
    ], MODEL)
    same, new, bad, resume, v1, v2 = results
    assert same.action == "unchanged" and same.version.pk == first.version.pk
    assert new.action == "created" and new.chunks == 1 and len(new.todo) == 1
    assert isinstance(bad, AgentMemoryError)
    assert resume.version.pk == failed.version.pk and resume.todo is None
    assert DocumentVersion.objects.get(pk=failed.version.pk).status == DocumentVersion.Status.PENDING
    # one external id twice in a group: two versions, in order
    assert (v1.action, v1.version.number, v2.action, v2.version.number) == ("created", 1, "created", 2)  # nothing published yet
    assert v2.version.document_id == v1.version.document_id

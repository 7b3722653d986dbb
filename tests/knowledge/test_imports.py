"""The front door of an import (knowledge/imports.py) and the knowledge-base service (knowledge/bases.py)."""
from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from agentmemory.audit import audit_context
from agentmemory.exceptions import InvalidInput
from agentmemory.knowledge.bases import (
    add_knowledge_base,
    create_knowledge_base,
    delete_knowledge_base,
    update_knowledge_base,
)
from agentmemory.knowledge.imports import import_document, prepare_upload
from agentmemory.knowledge.jobs import run_import_job
from agentmemory.knowledge.parse import DocumentTooLarge, UnsupportedFormat
from agentmemory.models import AuditEvent, Document, ImportJob, KnowledgeBase

from .conftest import MANUAL_MD

pytestmark = pytest.mark.django_db


def test_import_document_from_text_records_a_job_that_imports_it(kb, counting_embedder):
    with audit_context("command:test"):
        job = import_document(kb, text=MANUAL_MD, external_id="manual")
    assert (job.kind, job.status, job.format, job.title, job.requested_by) == (
        ImportJob.Kind.INGEST, ImportJob.Status.QUEUED, "markdown", "产品手册", "command:test")
    assert not Document.objects.exists()  # recorded, not run
    result = run_import_job(job.pk)
    assert result["action"] == "created" and result["chunks"] > 0
    assert Document.objects.get().external_id == "manual"


def test_import_document_from_an_upload_detects_format_and_defaults_the_title(kb):
    upload = SimpleUploadedFile("notes/setup-guide.txt", b"plain words, no heading", "text/plain")
    job = import_document(kb, upload=upload)
    # With no external_id, the file name identifies the document in its base (the next upload of
    # setup-guide.txt is its next version).
    assert (job.format, job.title, job.external_id) == ("text", "setup-guide", "file:setup-guide.txt")
    nameless = SimpleUploadedFile("README", b"# Title\n\nbody", "text/markdown")
    assert import_document(kb, upload=nameless, title="given").title == "given"


@pytest.mark.parametrize(("upload", "error", "field"), [
    (SimpleUploadedFile("empty.md", b"", "text/markdown"), InvalidInput, "file"),
    (SimpleUploadedFile("slides.pptx", b"x", "application/octet-stream"), UnsupportedFormat, "file"),
    (SimpleUploadedFile("big.md", b"# x\n" + b"y" * 200, "text/markdown"), DocumentTooLarge, "file"),
])
def test_import_document_refuses_bad_uploads_before_writing(kb, upload, error, field):
    with override_settings(AGENTMEMORY={"MAX_UPLOAD_BYTES": 100}), pytest.raises(error) as caught:
        import_document(kb, upload=upload)
    assert caught.value.field == field
    assert not ImportJob.objects.exists()


def test_import_document_takes_a_file_or_a_text(kb):
    with pytest.raises(InvalidInput):
        import_document(kb)
    with pytest.raises(InvalidInput):
        import_document(kb, text="a", upload=ContentFile(b"a", name="a.md"))
    with pytest.raises(InvalidInput, match="multipart"):
        import_document(kb, text="%PDF", fmt="pdf")
    with pytest.raises(InvalidInput, match="empty"):
        import_document(kb, text="   ")


def test_prepare_upload_reads_a_plain_file_as_the_command_does(tmp_path):
    from django.core.files import File

    path = tmp_path / "guide.md"
    path.write_text("# 安装指南\n\n先固定支架。", encoding="utf-8")
    with path.open("rb") as handle:
        prepared = prepare_upload(File(handle, name=path.name))
    assert (prepared.fmt, prepared.title) == ("markdown", "安装指南")


def test_knowledge_base_service_audits_create_update_delete():
    with audit_context("admin:ops"):
        kb = create_knowledge_base(slug="faq", name="FAQ", chunk_size=300, chunk_overlap=40)
        update_knowledge_base(kb, user_dictionary=["X-200"], name="Questions")
        delete_knowledge_base(kb)
    assert not KnowledgeBase.objects.exists()
    events = list(AuditEvent.objects.filter(object_type="knowledge_base").order_by("id")
                  .values_list("action", "actor", "after", "before"))
    assert events == [
        ("knowledge_base.create", "admin:ops", {"slug": "faq", "chunk_size": 300, "chunk_overlap": 40}, None),
        ("knowledge_base.update", "admin:ops",
         {"chunk_size": 300, "chunk_overlap": 40, "user_dictionary": ["X-200"], "publish_gate": False,
          "publish_gate_margin": None, "duplicate_policy": "keep", "propose_checks": False}, None),
        ("knowledge_base.delete", "admin:ops", None, {"slug": "faq", "name": "Questions"}),
    ]


def test_knowledge_base_service_saves_a_form_built_instance_and_refuses_unknown_fields():
    kb = add_knowledge_base(KnowledgeBase(slug="built", name="Built"))
    assert KnowledgeBase.objects.get(slug="built").pk == kb.pk
    assert AuditEvent.objects.filter(action="knowledge_base.create", object_id=str(kb.pk)).count() == 1
    with pytest.raises(TypeError):
        create_knowledge_base(slug="x", name="x", embedding_model="other")
    with pytest.raises(ValueError):
        add_knowledge_base(kb)
    with pytest.raises(ValueError):
        update_knowledge_base(KnowledgeBase(slug="new", name="new"))


def test_admin_writes_knowledge_bases_through_the_audited_service(admin_client, admin_user):
    from django.urls import reverse

    form = {"slug": "ops", "name": "Ops", "description": "", "chunk_size": 200, "chunk_overlap": 20,
            "user_dictionary": "[]", "floor_cosine": "", "floor_bm25": "", "floor_bm25_min_cosine": "",
            "floor_margin": "", "duplicate_policy": "keep", "publish_gate_margin": ""}
    response = admin_client.post(reverse("admin:agentmemory_knowledgebase_add"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    kb = KnowledgeBase.objects.get(slug="ops")
    response = admin_client.post(reverse("admin:agentmemory_knowledgebase_change", args=[kb.pk]),
                                 {**form, "name": "Operations", "publish_gate": "on", "duplicate_policy": "link"})
    assert response.status_code == 302 and KnowledgeBase.objects.get(pk=kb.pk).name == "Operations"
    kb.refresh_from_db()
    assert (kb.publish_gate, kb.duplicate_policy) == (True, "link")
    response = admin_client.post(reverse("admin:agentmemory_knowledgebase_delete", args=[kb.pk]), {"post": "yes"})
    assert response.status_code == 302 and not KnowledgeBase.objects.exists()
    actor = f"admin:{admin_user.get_username()}"
    assert list(AuditEvent.objects.filter(object_type="knowledge_base").order_by("id")
                .values_list("action", "actor")) == [
        ("knowledge_base.create", actor), ("knowledge_base.update", actor), ("knowledge_base.delete", actor)]


def test_ingest_command_reads_files_as_uploads_and_creates_the_base_audited(tmp_path, counting_embedder):
    import io

    from django.core.management import CommandError, call_command

    (tmp_path / "small.md").write_text("# 小\n\n短文。", encoding="utf-8")
    (tmp_path / "large.md").write_text("# 大\n\n" + "长" * 400, encoding="utf-8")
    out = io.StringIO()
    with override_settings(AGENTMEMORY={"EMBEDDER": "tests.knowledge.embedders.CountingEmbedder",
                                        "MAX_UPLOAD_BYTES": 500}), pytest.raises(CommandError):
        call_command("agentmemory_ingest", "--kb", "cmd", "--create", str(tmp_path), stdout=out)
    assert "large.md: FAILED" in out.getvalue() and "MAX_UPLOAD_BYTES" in out.getvalue()
    assert list(Document.objects.values_list("external_id", "title")) == [("small.md", "小")]
    assert AuditEvent.objects.filter(action="knowledge_base.create", actor="command:agentmemory_ingest").count() == 1

"""Admin: import from the admin, a chunk preview on documents and versions (never vectors), rollback action."""
from __future__ import annotations

import pytest
from django.urls import reverse

from agentmemory.models import Chunk, Document, ImportJob

from .conftest import MANUAL_MD

pytestmark = pytest.mark.django_db


def test_admin_import_preview_and_rollback(admin_client, kb, counting_embedder, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin_client.post(reverse("admin:agentmemory_document_add"), {
            "knowledge_base": kb.pk, "external_id": "x200", "title": "", "format": "markdown", "metadata": "{}",
            "content": MANUAL_MD,
        })
    assert callbacks  # the import task is enqueued on commit
    assert response.status_code == 302, response.content.decode()[:3000]
    job = ImportJob.objects.get()
    assert response["Location"] == reverse("admin:agentmemory_importjob_change", args=[job.pk])
    job.refresh_from_db()
    assert job.status == "succeeded"  # no broker: the task ran at commit
    document = Document.objects.get(external_id="x200")
    assert document.title == "产品手册"

    page = admin_client.get(reverse("admin:agentmemory_document_change", args=[document.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "产品手册 &gt; 参数说明" in html and "am-chunk-preview" in html and "multilingual-e5-small-q4" in html
    chunk = Chunk.objects.filter(document=document).first()
    assert f"{chunk.char_start}–{chunk.char_end}" in html
    vector_start = f"{float(chunk.embedding[0]):.4f}"[:6]
    assert vector_start not in html

    changed = MANUAL_MD.replace("指示灯变绿", "指示灯变蓝")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(reverse("admin:agentmemory_document_add"), {
            "knowledge_base": kb.pk, "external_id": "x200", "format": "markdown", "metadata": "{}", "content": changed,
        })
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert ImportJob.objects.filter(status="succeeded").count() == 2, list(ImportJob.objects.values_list("status", "error"))
    document.refresh_from_db()
    assert document.active_version.number == 2
    v1 = document.versions.get(number=1)
    # The rollback asks first (what is active, what will be), then does it.
    url = reverse("admin:agentmemory_documentversion_changelist")
    asked = admin_client.post(url, {"action": "make_active", "_selected_action": [v1.pk]})
    assert asked.status_code == 200 and "Yes, roll back" in asked.content.decode()
    assert Document.objects.get(pk=document.pk).active_version.number == 2
    response = admin_client.post(url, {"action": "make_active", "_selected_action": [v1.pk], "confirm": "yes"},
                                 follow=True)
    assert "version 1 is active (was 2)" in response.content.decode()
    document.refresh_from_db()
    assert document.active_version.number == 1

    version_page = admin_client.get(reverse("admin:agentmemory_documentversion_change", args=[v1.pk]))
    assert version_page.status_code == 200 and "产品手册 &gt; 安装步骤" in version_page.content.decode()
    for name in ("chunk", "importjob", "knowledgebase", "documentversion", "document"):
        assert admin_client.get(reverse(f"admin:agentmemory_{name}_changelist")).status_code == 200


def test_admin_import_refuses_bad_input(admin_client, kb):
    response = admin_client.post(reverse("admin:agentmemory_document_add"), {
        "knowledge_base": kb.pk, "format": "markdown", "metadata": "{}", "content": "   ",
    })
    assert response.status_code == 200 and "empty" in response.content.decode()
    assert not ImportJob.objects.exists() and not Document.objects.exists()

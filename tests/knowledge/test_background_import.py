"""Without a broker (Celery eager), a long document never blocks its request: a background thread imports it."""
from __future__ import annotations

import time

import pytest

from agentmemory.models import AuditEvent, Chunk, KnowledgeBase

from .conftest import MANUAL_MD


@pytest.mark.django_db(transaction=True)
def test_a_long_document_answers_202_at_once_and_is_imported_in_the_background(api_client, settings, eager_celery):
    settings.AGENTMEMORY = {"IMPORT_INLINE_MAX_CHARS": 200}
    KnowledgeBase.objects.create(slug="eager", name="Eager", chunk_size=150, chunk_overlap=30)
    assert len(MANUAL_MD) > 200
    started = time.monotonic()
    response = api_client.post("/api/agentmemory/knowledge-bases/eager/documents/",
                               {"external_id": "m", "title": "Manual", "content": MANUAL_MD}, format="json")
    answered_in = time.monotonic() - started
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "queued" and job["url"].endswith(f"/import-jobs/{job['id']}/")
    deadline = time.monotonic() + 120
    while True:
        polled = api_client.get(job["url"]).json()
        if polled["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert polled["status"] == "succeeded", polled
    assert Chunk.objects.filter(document_id=polled["result"]["document_id"], status="active").count() == polled["total"]
    event = AuditEvent.objects.get(action="document.publish", object_id=str(polled["result"]["document_id"]))
    assert event.actor == "api_key:test-client"  # the thread keeps the request's actor
    print(f"answered in {answered_in * 1000:.0f} ms")


@pytest.mark.django_db
def test_a_short_document_is_still_imported_inside_the_request(api_client, eager_celery):
    KnowledgeBase.objects.create(slug="inline", name="Inline", chunk_size=150, chunk_overlap=30)
    response = api_client.post("/api/agentmemory/knowledge-bases/inline/documents/",
                               {"external_id": "s", "title": "Short", "content": "# 退货\n\n七天无理由退货。"},
                               format="json")
    assert response.status_code == 201 and response.json()["action"] == "created"


@pytest.mark.django_db(transaction=True)
def test_a_long_document_added_in_the_admin_is_imported_in_the_background_too(admin_client, settings, eager_celery):
    from django.urls import reverse

    from agentmemory.models import ImportJob

    settings.AGENTMEMORY = {"IMPORT_INLINE_MAX_CHARS": 200}
    kb = KnowledgeBase.objects.create(slug="eager-admin", name="Eager admin", chunk_size=150, chunk_overlap=30)
    response = admin_client.post(reverse("admin:agentmemory_document_add"), {
        "knowledge_base": kb.pk, "external_id": "m", "title": "", "format": "markdown", "metadata": "{}",
        "content": MANUAL_MD})
    assert response.status_code == 302, response.content.decode()[:2000]
    job = ImportJob.objects.get(knowledge_base=kb)
    deadline = time.monotonic() + 120
    while job.status not in ("succeeded", "failed") and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert Chunk.objects.filter(document__knowledge_base=kb, status="active").count() == job.total

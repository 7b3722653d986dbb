"""With a broker configured, an import answers 202 with a job to poll; a real worker does the work."""
from __future__ import annotations

import time

import pytest

from agentmemory.models import AuditEvent, Chunk, KnowledgeBase

from .conftest import MANUAL_MD


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_import_is_queued_and_polled_when_a_broker_is_configured(celery_worker, api_client):
    KnowledgeBase.objects.create(slug="queued", name="Queued", chunk_size=150, chunk_overlap=30)
    response = api_client.post("/api/agentmemory/knowledge-bases/queued/documents/",
                               {"external_id": "m", "title": "Manual", "content": MANUAL_MD}, format="json")
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "queued" and job["url"] == f"/api/agentmemory/import-jobs/{job['id']}/"

    deadline = time.monotonic() + 120
    while True:
        job = api_client.get(job["url"]).json()
        if job["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert job["status"] == "succeeded", job
    assert job["result"]["action"] == "created" and job["progress"] == job["total"] == job["result"]["embedded"]
    assert Chunk.objects.filter(document_id=job["result"]["document_id"], status="active").count() == job["total"]
    # The publish made on the worker is attributed to the API key that asked for it.
    event = AuditEvent.objects.get(action="document.publish", object_id=str(job["result"]["document_id"]))
    assert event.actor == "api_key:test-client"

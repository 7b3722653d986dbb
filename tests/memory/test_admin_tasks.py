"""Admin edits go through the write service (audited); the nightly decay job runs on a real Celery worker."""
from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from agentmemory.memory.forget import forget_user
from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, DeletionReceipt, MemoryItem
from agentmemory.schedules import BEAT_SCHEDULE
from agentmemory.types import MemoryDraft


def _write(user, content, **kw):
    kw.setdefault("type", "fact")
    kw.setdefault("source", "user_stated")
    return write_memory(user, MemoryDraft(content=content, **kw)).memory_id


@pytest.mark.django_db
def test_admin_add_edit_and_history_are_audited(admin_client):
    page = admin_client.get("/admin/agentmemory/memoryitem/add/")
    assert page.status_code == 200
    form = {"user_id": "adm", "agent_id": "", "type": "fact", "key": "budget", "content": "预算 5000 以内",
            "value": "null", "source": "user_stated", "confidence": "0.9", "tags": "{}", "valid_from": ""}
    response = admin_client.post("/admin/agentmemory/memoryitem/add/", form)
    assert response.status_code == 302, response.content[:2000]
    item = MemoryItem.objects.for_user("adm").get()
    assert AuditEvent.objects.for_user("adm").get(action="create").actor == "admin:admin"

    rejected = admin_client.post("/admin/agentmemory/memoryitem/add/", {**form, "content": "今天天气真热"})
    assert rejected.status_code == 200 and b"quality gate" in rejected.content

    change = {**form, "content": "预算 8000 以内", "status": "active", "valid_to": ""}
    response = admin_client.post(f"/admin/agentmemory/memoryitem/{item.pk}/change/", change)
    assert response.status_code == 302
    current = MemoryItem.objects.for_user("adm").active().get()
    assert current.content == "预算 8000 以内" and current.supersedes_id == item.pk
    detail = admin_client.get(f"/admin/agentmemory/memoryitem/{current.pk}/change/").content.decode()
    assert "预算 5000 以内" in detail and "supersede" in detail and "admin:admin" in detail


@pytest.mark.django_db
def test_receipts_are_read_only_and_found_by_user_id(admin_client):
    _write("gone", "预算 5000 以内", key="budget")
    receipt = forget_user("gone", reason="request")
    listing = admin_client.get("/admin/agentmemory/deletionreceipt/?q=gone").content.decode()
    assert f"/admin/agentmemory/deletionreceipt/{receipt.pk}/change/" in listing
    assert admin_client.get("/admin/agentmemory/deletionreceipt/add/").status_code == 403
    assert DeletionReceipt.objects.count() == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_decay_job_marks_untouched_memories_cold_on_a_worker(celery_worker):
    from agentmemory.tasks import decay_memories

    old = _write("d", "我们在用 MySQL", key="tech_stack")
    fresh = _write("d", "预算 5000 以内", key="budget")
    long_ago = timezone.now() - dt.timedelta(days=400)
    MemoryItem.objects.for_user("d").filter(pk=old).update(created_at=long_ago, last_accessed_at=long_ago)

    assert decay_memories.delay().get(timeout=60) == {"cold": 1}
    assert decay_memories.delay().get(timeout=60) == {"cold": 0}  # idempotent
    statuses = dict(MemoryItem.objects.for_user("d").values_list("id", "status"))
    assert statuses == {old: "cold", fresh: "active"}
    assert AuditEvent.objects.for_user("d").get(action="cold").actor == "task:agentmemory.decay_memories"
    assert BEAT_SCHEDULE["agentmemory-decay-memories"]["task"] == "agentmemory.decay_memories"

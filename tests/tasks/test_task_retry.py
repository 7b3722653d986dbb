"""The one declared retry policy of the tasks (tasks/retry.py): what each task retries on, and how long it waits."""
from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import override_settings

from agentmemory.exceptions import BackendError, EmbeddingError
from agentmemory.tasks import retry
from agentmemory.tasks.knowledge import ingest_document
from agentmemory.tasks.memory import decay_memories, forget_user
from agentmemory.tasks.working import extract_session


def test_policies_wait_as_declared():
    assert [retry.DECAY.wait(n) for n in range(3)] == [60, 60, 60]
    assert [retry.EXTRACTION.wait(n) for n in (0, 1, 2, 10)] == [5, 10, 20, 600]
    assert all(0 <= retry.KNOWLEDGE_JOB.wait(n) <= min(300, 5 * 2 ** n) for n in range(8))
    assert retry.FORGET.limit() == 5 and retry.KNOWLEDGE_JOB.limit() == 3
    with override_settings(AGENTMEMORY={"EXTRACTION_MAX_RETRIES": 7}):
        assert retry.EXTRACTION.limit() == 7


def test_tasks_keep_their_names_and_delivery_options():
    assert (ingest_document.name, ingest_document.acks_late, ingest_document.reject_on_worker_lost) == (
        "agentmemory.ingest_document", True, False)
    assert (decay_memories.name, decay_memories.acks_late, decay_memories.reject_on_worker_lost) == (
        "agentmemory.decay_memories", True, True)
    assert EmbeddingError in retry.KNOWLEDGE_JOB.on and BackendError in retry.EXTRACTION.on
    assert OperationalError in retry.DECAY.on


def test_a_task_checks_its_arguments_against_the_function():
    # Celery checks a call's arguments before sending it: the wrapped function's, not (self, *args).
    with pytest.raises(TypeError):
        forget_user.apply_async(("u1", "reason", "one too many"))
    with pytest.raises(TypeError):
        extract_session.apply_async(())


@pytest.mark.django_db
def test_a_task_writes_as_its_own_actor():
    from agentmemory.models import DeletionReceipt

    result = forget_user.apply(("gone", "ticket 7")).get()
    receipt = DeletionReceipt.objects.get(pk=result["receipt_id"])
    assert (receipt.actor, receipt.reason) == ("task:agentmemory.forget_user", "ticket 7")

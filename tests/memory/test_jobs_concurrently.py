"""Each lifecycle job run twice at the same moment: together they do exactly what one run does."""
from __future__ import annotations

import datetime as dt
import io
import re
import threading

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, DeletionReceipt, ExtractionRun, MemoryItem, MemoryProfile, Session
from agentmemory.types import MemoryDraft
from agentmemory.working.sessions import append_turn, create_session

pytestmark = pytest.mark.django_db(transaction=True)
USERS = [f"twice-{i}" for i in range(4)]


def _twice(command: str, *args: str) -> list[str]:
    """Run ``command`` in two threads released together; the two outputs."""
    barrier = threading.Barrier(2)
    outputs: list[str] = ["", ""]
    errors: list[BaseException] = []

    def run(slot: int) -> None:
        out = io.StringIO()
        try:
            barrier.wait(timeout=30)
            call_command(command, *args, stdout=out)
            outputs[slot] = out.getvalue()
        except BaseException as exc:  # reported below: a crash of either run fails the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    return outputs


def _count(pattern: str, outputs: list[str]) -> int:
    return sum(int(re.search(pattern, out).group(1)) for out in outputs)


def _age(pks: list[int], days: float) -> None:
    old = timezone.now() - dt.timedelta(days=days)
    MemoryItem.objects.get_queryset().filter(pk__in=pks).update(created_at=old, updated_at=old, last_accessed_at=None)


def test_every_lifecycle_job_run_twice_at_once_does_the_work_once(eager_celery):
    # Memories: two per user, untouched for 200 days (due for decay, then past retention).
    pks = [write_memory(user, MemoryDraft(content=content, type="fact", key=key, source="user_stated",
                                          confidence=0.8)).memory_id
           for user in USERS for content, key in [("用户住在杭州", "location"), ("用户的预算：5万元", "budget")]]
    _age(pks, 200)
    later = (timezone.now() + dt.timedelta(days=1)).isoformat()

    outputs = _twice("agentmemory_distill_profiles")
    assert MemoryProfile.objects.filter(user_id__in=USERS).exclude(summary="").count() == len(USERS)
    assert AuditEvent.objects.filter(action="distill").count() == len(USERS)  # one rewrite per user

    outputs = _twice("agentmemory_decay_memories", "--now", later)
    assert _count(r"Marked (\d+)", outputs) == len(pks)
    assert AuditEvent.objects.filter(action="cold").count() == len(pks)
    assert "Marked 0" in _run("agentmemory_decay_memories", "--now", later)

    outputs = _twice("agentmemory_purge_memories", "--now", later)
    assert _count(r"Deleted (\d+)", outputs) == len(pks)
    assert DeletionReceipt.objects.filter(kind="memory").count() == len(pks)
    assert "Deleted 0" in _run("agentmemory_purge_memories", "--now", later)

    # Sessions: idle ones ended (and extracted) once, then archived once.
    sessions = []
    for user in USERS:
        session = create_session(user_id=user)
        append_turn(session, role="user", content="我们公司是做母婴用品的品牌。", remember=False)
        sessions.append(session.pk)
    Session.objects.filter(pk__in=sessions).update(last_activity_at=timezone.now() - dt.timedelta(hours=30))
    outputs = _twice("agentmemory_close_idle_sessions")
    assert _count(r"Ended (\d+)", outputs) == len(sessions)
    assert AuditEvent.objects.filter(action="end", object_type="session").count() == len(sessions)
    assert set(Session.objects.filter(pk__in=sessions).values_list("status", flat=True)) == {"ended"}
    # Their extraction ran (Celery eager here) once: the purge may archive them.
    assert list(Session.objects.filter(pk__in=sessions).values_list("extracted_up_to", flat=True)) == [1] * len(sessions)
    assert ExtractionRun.objects.filter(session_id__in=sessions).count() == len(sessions)

    far = (timezone.now() + dt.timedelta(days=400)).isoformat()
    outputs = _twice("agentmemory_purge_sessions", "--now", far)
    assert _count(r"Archived (\d+)", outputs) == len(sessions)
    assert AuditEvent.objects.filter(action="archive", object_type="session").count() == len(sessions)
    assert "Archived 0" in _run("agentmemory_purge_sessions", "--now", far)


def _run(command: str, *args: str) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()

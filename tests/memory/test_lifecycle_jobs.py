"""Lifecycle jobs as commands with --dry-run and --now: retention with receipts, idle sessions, decay."""
from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from agentmemory.memory.write import write_memory
from agentmemory.models import DeletionReceipt, ExtractionRun, MemoryItem, Session
from agentmemory.types import MemoryDraft
from agentmemory.working.sessions import append_turn, create_session

pytestmark = pytest.mark.django_db


def _run(name: str, *args: str) -> str:
    out = io.StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


def _memory(content, days_old, **kw):
    kw.setdefault("type", "fact")
    kw.setdefault("source", "user_stated")
    kw.setdefault("confidence", 0.8)
    pk = write_memory("life", MemoryDraft(content=content, **kw)).memory_id
    old = timezone.now() - dt.timedelta(days=days_old)
    MemoryItem.objects.get_queryset().filter(pk=pk).update(created_at=old, updated_at=old, last_accessed_at=None)
    return pk


def test_retention_deletes_what_is_past_its_types_period_with_receipts():
    expired = _memory("用户在杭州工作", 200, key="employer")
    confirmed = _memory("用户的名字是林", 200, key="name", confidence=0.95)
    pinned = _memory("用户的生日在三月", 200, key="birthday", tags={"pinned": "true"})
    recent = _memory("用户喜欢简短的回答", 10, type="preference", key="reply_style")
    assert "Would delete 1" in _run("agentmemory_purge_memories", "--dry-run")
    assert MemoryItem.objects.for_user("life").get(pk=expired).status == "active"
    out = _run("agentmemory_purge_memories")
    receipt = DeletionReceipt.objects.get()
    assert "Deleted 1" in out and f"#{receipt.pk}" in out and receipt.reason.startswith("retention")
    statuses = dict(MemoryItem.objects.for_user("life").values_list("pk", "status"))
    assert statuses == {expired: "deleted", confirmed: "active", pinned: "active", recent: "active"}
    assert "Deleted 0" in _run("agentmemory_purge_memories")  # the second run changes nothing
    later = (timezone.now() + dt.timedelta(days=200)).isoformat()
    assert "Would delete 1" in _run("agentmemory_purge_memories", "--dry-run", "--now", later)  # the recent one
    with override_settings(AGENTMEMORY={"MEMORY_RETENTION_DAYS": {"preference": None}}):
        assert "Would delete 0" in _run("agentmemory_purge_memories", "--dry-run", "--now", later)


def test_idle_sessions_are_ended_and_extracted_once():
    session = create_session(user_id="idle")
    append_turn(session, role="user", content="我们公司是做母婴用品的品牌。", remember=False)
    Session.objects.filter(pk=session.pk).update(last_activity_at=timezone.now() - dt.timedelta(hours=30))
    fresh = create_session(user_id="idle")
    append_turn(fresh, role="user", content="你好", remember=False)
    assert "Would end 1" in _run("agentmemory_close_idle_sessions", "--dry-run")
    assert "Ended 1 idle session(s); queued 1" in _run("agentmemory_close_idle_sessions")
    assert Session.objects.get(pk=session.pk).status == "ended"
    assert Session.objects.get(pk=fresh.pk).status == "active"
    assert ExtractionRun.objects.filter(session_id=session.pk).exists()
    assert "Ended 0" in _run("agentmemory_close_idle_sessions")
    tomorrow = (timezone.now() + dt.timedelta(hours=25)).isoformat()
    assert "Ended 1" in _run("agentmemory_close_idle_sessions", "--now", tomorrow)


def test_decay_with_dry_run_and_now():
    _memory("用户在杭州工作", 1, key="employer")
    later = (timezone.now() + dt.timedelta(days=200)).isoformat()
    assert "Would mark 1" in _run("agentmemory_decay_memories", "--dry-run", "--now", later)
    assert "Marked 0" in _run("agentmemory_decay_memories")
    assert "Marked 1" in _run("agentmemory_decay_memories", "--now", later)
    assert MemoryItem.objects.for_user("life").get(key="employer").status == "cold"


def test_a_cold_memory_restated_by_the_user_comes_back():
    pk = _memory("用户在杭州工作", 1, key="employer")
    later = (timezone.now() + dt.timedelta(days=200)).isoformat()
    assert "Marked 1" in _run("agentmemory_decay_memories", "--now", later)
    again = write_memory("life", MemoryDraft(content="用户在杭州工作", type="fact", key="employer",
                                             source="user_stated", session_id="later-session"))
    assert again.action == "merged" and again.memory_id == pk
    item = MemoryItem.objects.for_user("life").get(pk=pk)
    assert item.status == "active" and item.last_accessed_at is not None and len(item.provenance) == 2
    assert MemoryItem.objects.for_user("life").count() == 1

"""Idle-session interim extraction, retention purge (task and command), and the admin screens."""
from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from agentmemory.models import ExtractionRun, MemoryItem, Session, Turn
from agentmemory.schedules import BEAT_SCHEDULE
from agentmemory.tasks import extract_idle_sessions, purge_sessions
from agentmemory.working.extract import run_extraction
from agentmemory.working.sessions import append_turn, create_session, end_session
from agentmemory.working.window import get_working_context

pytestmark = pytest.mark.django_db


def test_an_idle_session_gets_an_interim_extraction_from_the_beat_job(django_capture_on_commit_callbacks):
    assert BEAT_SCHEDULE["agentmemory-extract-idle-sessions"]["task"] == "agentmemory.extract_idle_sessions"
    idle = create_session(user_id="idle-user")
    append_turn(idle, role="user", content="我在字节跳动工作，我们用的是Go和Kafka。", remember=False)
    busy = create_session(user_id="busy-user")
    append_turn(busy, role="user", content="我叫周杰，我在腾讯工作。", remember=False)
    Session.objects.filter(pk=idle.pk).update(last_activity_at=timezone.now() - dt.timedelta(minutes=31))
    extract_idle_sessions.delay()
    run = ExtractionRun.objects.get(session=idle)
    assert run.trigger == "idle" and run.status == "succeeded"
    assert {"employer", "tech_stack"} <= {m.key for m in MemoryItem.objects.for_user("idle-user").all()}
    assert not ExtractionRun.objects.filter(session=busy).exists()
    idle.refresh_from_db()
    assert idle.status == "active" and idle.extracted_up_to == 1
    # The session goes on; ending it extracts only the new turns.
    append_turn(idle, role="user", content="其实我们已经迁到Rust了。", remember=False)
    final = run_extraction(end_session(idle).pk)
    assert (final.first_seq, final.last_seq) == (2, 2)
    current = MemoryItem.objects.for_user("idle-user").current().get(key="tech_stack")
    assert "Rust" in current.content


def test_ended_sessions_are_purged_after_retention_unless_not_yet_extracted():
    done = create_session(user_id="purge-user")
    append_turn(done, role="user", content="我叫吴敏，预算3万元。", remember=False)
    run_extraction(end_session(done).pk)
    pending = create_session(user_id="purge-user")
    append_turn(pending, role="user", content="我不吃辣。", remember=False)
    end_session(pending)  # its extraction has not run
    recent = create_session(user_id="purge-user")
    append_turn(recent, role="user", content="好的", remember=False)
    run_extraction(end_session(recent).pk)
    old = timezone.now() - dt.timedelta(days=31)
    Session.objects.filter(pk__in=[done.pk, pending.pk]).update(ended_at=old)

    out = StringIO()
    call_command("agentmemory_purge_sessions", "--dry-run", stdout=out)
    assert "Would archive 1 session(s)" in out.getvalue() and Turn.objects.filter(session=done).count() == 1
    assert purge_sessions.delay().get() == {"sessions": 1, "turns": 1, "kept_unextracted": 1}
    done.refresh_from_db()
    assert done.status == "archived" and done.archived_at and Turn.objects.filter(session=done).count() == 0
    assert Turn.objects.filter(session=pending).count() == 1 and Turn.objects.filter(session=recent).count() == 1
    assert MemoryItem.objects.for_user("purge-user").filter(key="name").exists()  # memories stay
    out = StringIO()
    call_command("agentmemory_purge_sessions", "--days", "0", stdout=out)
    assert "Archived 1 session(s)" in out.getvalue()  # the recent one; the pending one is still kept


def test_working_context_for_the_context_assembler():
    session = create_session(user_id="ctx-user", agent_id="a1")
    append_turn(session, role="user", content="记住：我对花生过敏。")
    append_turn(session, role="assistant", content="好的，已记住。")
    context = get_working_context(Session.objects.for_user("ctx-user").get(pk=session.pk))
    assert context["user_id"] == "ctx-user" and context["covered_up_to"] == 0 and context["summary"] == ""
    assert [t["seq"] for t in context["turns"]] == [1, 2] and context["turns"][0]["high_priority"] is True
    assert not Session.objects.for_user("someone-else").filter(pk=session.pk).exists()


def test_admin_lists_sessions_with_turns_and_extraction_runs(admin_client):
    session = create_session(user_id="admin-user")
    append_turn(session, role="user", content="我们公司是做母婴用品的品牌。", remember=False)
    run_extraction(end_session(session).pk)
    listing = admin_client.get("/admin/agentmemory/session/")
    assert listing.status_code == 200 and "admin-user" in listing.content.decode()
    page = admin_client.get(f"/admin/agentmemory/session/{session.pk}/change/").content.decode()
    assert "我们公司是做母婴用品的品牌。" in page and "succeeded" in page
    run = ExtractionRun.objects.get(session=session)
    detail = admin_client.get(f"/admin/agentmemory/extractionrun/{run.pk}/change/")
    assert detail.status_code == 200 and "company_industry" in detail.content.decode()
    active = create_session(user_id="admin-user")
    append_turn(active, role="user", content="我不吃辣。", remember=False)
    response = admin_client.post("/admin/agentmemory/session/", {"action": "end_and_extract",
                                                                  "_selected_action": [str(active.pk)]}, follow=True)
    assert "Ended 1 session(s); queued 1 extraction(s)." in response.content.decode()
    assert Session.objects.get(pk=active.pk).status == "ended"

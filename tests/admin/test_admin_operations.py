"""Admin operations without a browser: read-only history, messages, the user page, jobs, both languages."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse

from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, DeletionReceipt, MemoryItem, MemoryProfile
from agentmemory.types import MemoryDraft
from agentmemory.working.sessions import append_turn, create_session, end_session

pytestmark = pytest.mark.django_db


def _memory(user, content, **kw):
    kw.setdefault("type", "fact")
    kw.setdefault("source", "user_stated")
    return write_memory(user, MemoryDraft(content=content, **kw)).memory_id


def test_audit_events_and_receipts_are_read_only(admin_client):
    pk = _memory("u", "公司在杭州")
    admin_client.post(reverse("admin:agentmemory_memoryitem_changelist"),
                      {"action": "delete_selected", "_selected_action": [pk], "post": "yes"})
    event, receipt = AuditEvent.objects.first(), DeletionReceipt.objects.get()
    for name, obj in (("auditevent", event), ("deletionreceipt", receipt)):
        assert admin_client.get(reverse(f"admin:agentmemory_{name}_add")).status_code == 403
        page = admin_client.get(reverse(f"admin:agentmemory_{name}_change", args=[obj.pk]))
        assert page.status_code == 200 and b'name="_save"' not in page.content
        assert admin_client.post(reverse(f"admin:agentmemory_{name}_delete", args=[obj.pk]),
                                 {"post": "yes"}).status_code == 403
    listed = admin_client.get(reverse("admin:agentmemory_auditevent_changelist") + "?actor=admin%3A")
    assert listed.status_code == 200 and b"admin:admin" in listed.content


def test_deleting_from_the_list_says_which_receipts(admin_client):
    pk = _memory("u", "预算五万")
    response = admin_client.post(reverse("admin:agentmemory_memoryitem_changelist"),
                                 {"action": "delete_selected", "_selected_action": [pk], "post": "yes"}, follow=True)
    receipt = DeletionReceipt.objects.get()
    assert f"Deletion receipts: #{receipt.pk}" in response.content.decode()


def test_an_unchanged_save_says_so_once(admin_client):
    pk = _memory("u", "团队有十二个人", key="team_size")
    url = reverse("admin:agentmemory_memoryitem_change", args=[pk])
    form = {"agent_id": "", "type": "fact", "key": "team_size", "content": "团队有十二个人", "value": "null",
            "source": "user_stated", "confidence": "0.8", "status": "active", "tags": "{}"}
    page = admin_client.post(url, form, follow=True).content.decode()
    assert "Nothing changed" in page and "changed successfully" not in page


def test_cold_reactivate_and_rerun_extraction_actions(admin_client):
    session = create_session(user_id="u")
    append_turn(session, role="user", content="我们公司是做母婴用品的品牌。", remember=False)
    end_session(session)
    pk = _memory("u", "公司在杭州", session_id=str(session.pk))
    url = reverse("admin:agentmemory_memoryitem_changelist")
    admin_client.post(url, {"action": "mark_cold", "_selected_action": [pk]})
    assert MemoryItem.objects.for_user("u").get(pk=pk).status == "cold"
    admin_client.post(url, {"action": "reactivate", "_selected_action": [pk]})
    assert MemoryItem.objects.for_user("u").get(pk=pk).status == "active"
    done = admin_client.post(url, {"action": "rerun_extraction", "_selected_action": [pk]}, follow=True)
    assert "source session(s)" in done.content.decode()


def test_the_user_page_regenerates_the_summary(admin_client):
    _memory("ann", "我们公司是做母婴用品的", key="company_industry")
    _memory("ann", "我喜欢简短的回答", type="preference", key="reply_style")
    url = reverse("admin:agentmemory_user", args=["ann"])
    assert "母婴用品" in admin_client.get(url).content.decode()
    admin_client.post(url, {"action": "regenerate"})
    summary = MemoryProfile.objects.get(user_id="ann").summary
    assert "母婴用品" in summary and "简短" in summary
    assert summary in admin_client.get(url).content.decode()


def test_the_scheduled_jobs_page(admin_client):
    call_command("agentmemory_setup_schedules", stdout=io.StringIO())
    page = admin_client.get(reverse("admin:agentmemory_jobs")).content.decode()
    assert "agentmemory.decay_memories" in page and "agentmemory-retry-import-jobs" in page
    # Schedules in words, not a crontab repr.
    assert "every day at 03:10 UTC" in page and "every 5 minutes" in page and "&lt;crontab" not in page
    assert reverse("admin:agentmemory_jobs") in admin_client.get(
        reverse("admin:agentmemory_auditevent_changelist")).content.decode()


def test_the_apps_own_admin_strings_are_translated():
    from django.utils import translation

    pk = _memory("u", "公司在杭州")
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.create_superuser("zh-ops", password="x"))
    with override_settings(LANGUAGE_CODE="zh-hans"), translation.override("zh-hans"):
        changelist = client.get(reverse("admin:agentmemory_memoryitem_changelist")).content.decode()
        assert "更正所选记忆" in changelist and "置信度" in changelist
        user_page = client.get(reverse("admin:agentmemory_user", args=["u"])).content.decode()
        assert "画像" in user_page and "忘记该用户" in user_page
        assert "历史" in client.get(reverse("admin:agentmemory_memoryitem_change", args=[pk])).content.decode()


@pytest.mark.parametrize("language,home", [("en", "Home"), ("zh-hans", "首页")])
def test_every_agentmemory_admin_page_renders_in_both_languages(admin_client, language, home):
    pk = _memory("u", "公司在杭州")
    with override_settings(LANGUAGE_CODE=language):
        urls = [reverse("admin:agentmemory_memoryitem_changelist"),
                reverse("admin:agentmemory_memoryitem_change", args=[pk]),
                reverse("admin:agentmemory_user", args=["u"]), reverse("admin:agentmemory_user_forget", args=["u"]),
                reverse("admin:agentmemory_jobs"), reverse("admin:agentmemory_auditevent_changelist"),
                reverse("admin:agentmemory_session_changelist"), reverse("admin:agentmemory_extractionrun_changelist"),
                reverse("admin:agentmemory_deletionreceipt_changelist"), reverse("admin:agentmemory_document_changelist")]
        for url in urls:
            page = admin_client.get(url, HTTP_ACCEPT_LANGUAGE=language)
            assert page.status_code == 200, url
            assert home in page.content.decode(), url
            assert "['" not in page.content.decode(), url  # no list reprs


def test_from_the_user_page_to_the_source_turn_and_the_decision(admin_client):
    """Why did the agent say X to U: user page -> memory -> its source turn -> the extraction decision."""
    from agentmemory.models import ExtractionRun
    from agentmemory.working.extract import run_extraction

    session = create_session(user_id="uu")
    append_turn(session, role="user", content="我们公司是做母婴用品的品牌，电话 13812345678。", remember=False)
    run = run_extraction(end_session(session).pk)
    memory = MemoryItem.objects.for_user("uu").get(key="company_industry")
    user_page = admin_client.get(reverse("admin:agentmemory_user", args=["uu"])).content.decode()
    assert reverse("admin:agentmemory_memoryitem_change", args=[memory.pk]) in user_page
    memory_page = admin_client.get(reverse("admin:agentmemory_memoryitem_change", args=[memory.pk])).content.decode()
    session_url = reverse("admin:agentmemory_session_change", args=[session.pk])
    # The source turn is linked at its anchor, and the audit events are there.
    fragment = memory_page[memory_page.find("field-source_turn"):][:1500]
    assert f"{session_url}#turn-1" in fragment, (memory.turn_id, memory.session_id, fragment)
    assert memory.session_id == str(session.pk)  # ids survive redaction (a UUID can look like a card)
    assert "create" in memory_page
    from agentmemory.models import Session as SessionModel

    SessionModel.objects.filter(pk=session.pk).update(summary="用户在问母婴品牌的营销")
    session_page = admin_client.get(session_url).content.decode()
    assert 'id="turn-1"' in session_page and "138****5678" in session_page and "13812345678" not in session_page
    assert session_page.count("用户在问母婴品牌的营销") == 1  # the summary once (masked), not also as a raw field
    listed = admin_client.get(reverse("admin:agentmemory_memoryitem_changelist")).content.decode()
    headers = [h for h in ("column-status", "column-short_content", "column-agent_id") if h in listed]
    assert headers == ["column-status", "column-short_content", "column-agent_id"]
    assert listed.find("column-status") < listed.find("column-short_content") < listed.find("column-agent_id")
    run_page = admin_client.get(reverse("admin:agentmemory_extractionrun_change", args=[run.pk])).content.decode()
    assert "created" in run_page and reverse("admin:agentmemory_memoryitem_change", args=[memory.pk]) in run_page
    assert ExtractionRun.objects.get(pk=run.pk).status == "succeeded"

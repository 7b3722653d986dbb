"""The profile layer: summaries distilled from the memories, on schedule or on demand, with provenance."""
from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from django.core.management import call_command
from django.utils import timezone

from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, MemoryProfile
from agentmemory.tasks import distill_profiles
from agentmemory.testing.openai_server import OpenAIChatServer
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"
FACTS = [("我们公司是做母婴用品的", "fact", "company_industry"), ("用户的预算：5万元", "preference", "budget"),
         ("用户希望回答简洁", "preference", "reply_style"), ("用户使用的技术栈：PostgreSQL", "fact", "tech_stack"),
         ("用户的决定：先做线上推广", "decision", "launch_plan"), ("用户住在杭州", "fact", "location")]


def _facts(user="ann"):
    for content, type_, key in FACTS:
        write_memory(user, MemoryDraft(content=content, type=type_, key=key, source="user_stated"))
    # A later statement of the same slot: the summary names the newest value only.
    write_memory(user, MemoryDraft(content="用户的预算：8万元", type="preference", key="budget", source="user_stated"))


def _run(*args) -> str:
    out = io.StringIO()
    call_command("agentmemory_distill_profiles", *args, stdout=out)
    return out.getvalue()


def test_the_job_writes_a_summary_with_the_newest_values_and_the_context_loads_it(api_client):
    _facts()
    assert "would_rewrite" in _run("--dry-run") and not MemoryProfile.objects.filter(user_id="ann").exists()
    assert "rewritten     ann" in _run()
    profile = MemoryProfile.objects.get(user_id="ann")
    assert "母婴用品" in profile.summary and "8万元" in profile.summary and "5万元" not in profile.summary
    assert profile.summary_method == "template" and len(profile.summary_sources) == 6
    assert AuditEvent.objects.filter(action="distill", user_id="ann").exists()
    body = api_client.get(f"{API}users/ann/profile/").json()
    assert body["summary"] == profile.summary and body["summary_sources"] == profile.summary_sources
    prompt = api_client.post(f"{API}context/", {"user_id": "ann", "query": "帮我写一封推广邮件"}, format="json").json()
    assert profile.summary[:20] in prompt["prompt"]
    # Nothing due now; run twice, nothing changes.
    assert "0 profile(s)" in _run()
    assert distill_profiles.delay().get() == {"rewritten": [], "unchanged": []}


def test_due_after_the_max_age_or_enough_changes():
    _facts("bo")
    _run()
    for i in range(4):
        write_memory("bo", MemoryDraft(content=f"用户喜欢第{i}种咖啡", type="preference", key=f"coffee_{i}",
                                       source="user_stated"))
    assert "0 profile(s)" in _run()  # 4 changes: not yet
    write_memory("bo", MemoryDraft(content="用户喜欢手冲咖啡", type="preference", key="coffee_5",
                                   source="user_stated"))
    assert "rewritten     bo" in _run()
    assert "咖啡" in MemoryProfile.objects.get(user_id="bo").summary
    later = (timezone.now() + dt.timedelta(days=91)).isoformat()
    assert "unchanged     bo" in _run("--now", later)  # old enough: looked at again; same text, no rewrite


def test_an_llm_distiller_writes_a_structured_summary(settings):
    _facts("cy")
    answer = json.dumps({"summary": "母婴用品公司的创始人，预算8万元，喜欢简洁的回答。"}, ensure_ascii=False)
    with OpenAIChatServer([answer]) as server:
        settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "test-model",
                                "PROFILE_DISTILLER": "agentmemory.backends.distillers.LLMDistiller"}
        assert "rewritten     cy" in _run("--user", "cy")
        sent = server.requests[0]["messages"][1]["content"]
    profile = MemoryProfile.objects.get(user_id="cy")
    assert profile.summary.startswith("母婴用品公司") and profile.summary_method == "llm"
    assert "8万元" in sent and "5万元" not in sent  # only the newest value of each slot is sent
    assert "最近的对话" not in sent  # no session with a summary yet


def test_an_llm_distiller_also_reads_the_recent_sessions(settings):
    from agentmemory.models import Session

    _facts("sessions")
    old = Session.objects.create(user_id="sessions", summary="用户在比较两家物流服务商，倾向顺丰。")
    new = Session.objects.create(user_id="sessions", summary="用户说下季度要开拓日本市场，电话 13812345678。")
    Session.objects.filter(pk=old.pk).update(last_activity_at=timezone.now() - dt.timedelta(days=3))
    Session.objects.create(user_id="someone-else", summary="别人的会话，不该出现")
    answer = json.dumps({"summary": "母婴用品公司，预算8万元，下季度开拓日本市场。"}, ensure_ascii=False)
    with OpenAIChatServer([answer, answer]) as server:
        settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "test-model", "PROFILE_DISTILL_SESSIONS": 1,
                                "PROFILE_DISTILLER": "agentmemory.backends.distillers.LLMDistiller"}
        assert "rewritten     sessions" in _run("--user", "sessions")
        sent = server.requests[0]["messages"][1]["content"]
    assert "最近的对话" in sent and "开拓日本市场" in sent
    assert "顺丰" not in sent and "别人的会话" not in sent  # only the newest one (limit 1), only the user's
    event = AuditEvent.objects.for_user("sessions").get(action="distill")
    assert event.after["sessions"] == [str(new.pk)] and event.after["method"] == "llm"


def test_rest_sets_and_regenerates_the_summary(api_client):
    _facts("dee")
    put = api_client.put(f"{API}users/dee/profile/summary/", {"summary": "手写的画像"}, format="json")
    assert put.status_code == 200 and put.json()["summary"] == "手写的画像" and put.json()["summary_method"] == "manual"
    regenerated = api_client.post(f"{API}users/dee/profile/summary/").json()
    assert regenerated["action"] == "rewritten" and "母婴用品" in regenerated["profile"]["summary"]
    assert api_client.put(f"{API}users/dee/profile/summary/", {}, format="json").status_code == 400

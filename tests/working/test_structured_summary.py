"""The structured working summary (goal / confirmed / open), offline by rules and by a configured LLM, through
REST and into the prompt; LLM tokens recorded per job."""
from __future__ import annotations

import json

import pytest

from agentmemory.backends.extractors import TurnText
from agentmemory.backends.summarizers.base import SummaryFields
from agentmemory.backends.summarizers.extractive import ExtractiveSummarizer
from agentmemory.models import LLMUsage, Session
from agentmemory.testing.openai_server import OpenAIChatServer
from agentmemory.working.summary import update_summary

BASE = "/api/agentmemory/sessions/"
TRIP = [
    ("user", "你好，帮我规划一下五月去日本的旅行。"),
    ("assistant", "好的！您的预算大概多少？"),
    ("user", "2万元左右。"),
    ("assistant", "东京和京都都很适合五月去。"),
    ("user", "酒店还没定，我想先比较一下价格。我们决定去东京和京都。"),
    ("assistant", "可以在携程上比价。"),
    ("user", "机票还需要确认一下日期。"),
    ("assistant", "明白。"),
    ("user", "酒店定了，住新宿的希尔顿。"),
    ("assistant", "好的，已记下。"),
]


def _turns(pairs, start=1):
    return [TurnText(seq=i, role=role, content=text) for i, (role, text) in enumerate(pairs, start=start)]


def test_rules_sort_the_turns_into_goal_confirmed_and_open_in_chinese():
    fields = ExtractiveSummarizer().summarize_fields(SummaryFields(), _turns(TRIP))
    assert fields.goal == "你好，帮我规划一下五月去日本的旅行。"
    confirmed = "\n".join(fields.confirmed)
    assert "2万元左右" in confirmed and "预算大概多少" in confirmed  # a short answer keeps its question
    assert "我们决定去东京和京都" in confirmed and "希尔顿" in confirmed
    # The hotel was settled later; the flight dates were not.
    assert [line.split(": ", 1)[1] for line in fields.open] == ["机票还需要确认一下日期。"]
    text = fields.render()
    assert text.startswith("目标：") and "已确认：" in text and "待解决：" in text


def test_rules_in_english_and_an_incremental_fold():
    first = ExtractiveSummarizer().summarize_fields(SummaryFields(), _turns([
        ("user", "Hi! Can you help me plan the launch of my side project Nimbus?"),
        ("assistant", "Sure. When is the launch date?"),
        ("user", "March 14."),
        ("user", "We still need to pick a pricing tier."),
    ]))
    assert first.goal.startswith("Can you help me plan") or "help me plan" in first.goal
    assert any("March 14" in line for line in first.confirmed)
    assert any("pricing tier" in line for line in first.open)
    later = ExtractiveSummarizer().summarize_fields(first, _turns([
        ("assistant", "Let's go with a $9 pricing tier then."),
        ("user", "Agreed, the budget for ads is 500 dollars."),
    ], start=5))
    assert later.goal == first.goal and not later.open  # settled
    assert later.confirmed[: len(first.confirmed)] == first.confirmed and any("500" in x for x in later.confirmed)
    assert later.render().startswith("Goal: ")


@pytest.mark.django_db
def test_a_long_session_through_rest_has_the_three_fields_and_the_prompt_carries_them(
        api_client, django_capture_on_commit_callbacks, settings):
    settings.AGENTMEMORY = {"WINDOW_TURNS": 4, "SUMMARY_TRIGGER_TURNS": 4}
    sid = api_client.post(BASE, {"user_id": "tomo"}, format="json").json()["id"]
    for role, text in TRIP:
        with django_capture_on_commit_callbacks(execute=True):  # the summary task (eager) runs on commit
            response = api_client.post(f"{BASE}{sid}/turns/", {"role": role, "content": text}, format="json")
            assert response.status_code == 201, response.content
    body = api_client.get(f"{BASE}{sid}/").json()
    fields = body["summary_fields"]
    assert set(fields) == {"goal", "confirmed", "open"}
    assert "日本" in fields["goal"] and any("2万元" in x for x in fields["confirmed"])
    assert body["summary"].startswith("目标：")
    context = api_client.post("/api/agentmemory/context/", {"user_id": "tomo", "session_id": sid,
                                                             "query": "机票日期定了吗？"}, format="json").json()
    summary = [i for i in context["sections"]["working_memory"] if i["kind"] == "summary"]
    assert summary and "目标：" in summary[0]["text"] and "目标：" in context["prompt"]


@pytest.mark.django_db
def test_an_older_text_summary_still_reads_as_its_fields(api_client):
    sid = api_client.post(BASE, {"user_id": "ulla"}, format="json").json()["id"]
    Session.objects.filter(pk=sid).update(summary="[1] user: 我们公司在杭州。")
    body = api_client.get(f"{BASE}{sid}/").json()
    assert body["summary_fields"] == {"goal": "", "confirmed": ["[1] user: 我们公司在杭州。"], "open": []}


@pytest.mark.django_db
def test_the_llm_summarizer_returns_fields_and_its_tokens_are_recorded_per_job(settings):
    from agentmemory.working.sessions import append_turn, create_session

    reply = {"goal": "规划五月日本旅行", "confirmed": ["预算2万元", "去东京和京都"], "open": ["机票日期待确认"]}
    with OpenAIChatServer([json.dumps(reply, ensure_ascii=False)]) as server:
        settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "test-model", "WINDOW_TURNS": 2,
                                "SUMMARIZER": "agentmemory.backends.summarizers.llm.LLMSummarizer"}
        session = create_session(user_id="vera")
        for role, text in TRIP[:6]:
            append_turn(session.pk, role=role, content=text)
        result = update_summary(session.pk, force=True)
        prompt = server.requests[0]["messages"][1]["content"]
        usage = server.usages[0]
    assert result.changed and '"goal"' in prompt and "[1] user: 你好，帮我规划一下五月去日本的旅行。" in prompt
    session.refresh_from_db()
    assert session.summary_fields == reply
    assert session.summary == "目标：规划五月日本旅行\n已确认：\n- 预算2万元\n- 去东京和京都\n待解决：\n- 机票日期待确认"
    row = LLMUsage.objects.get(user_id="vera")
    assert (row.purpose, row.job, row.model, row.calls) == ("summary", f"session:{session.pk}", "test-model", 1)
    assert (row.prompt_tokens, row.completion_tokens) == (usage["prompt_tokens"], usage["completion_tokens"]) != (0, 0)


@pytest.mark.django_db
def test_offline_jobs_record_no_llm_usage(settings):
    from agentmemory.working.sessions import append_turn, create_session

    settings.AGENTMEMORY = {"WINDOW_TURNS": 2}
    session = create_session(user_id="wen")
    for role, text in TRIP:
        append_turn(session.pk, role=role, content=text)
    assert update_summary(session.pk, force=True).changed
    assert not LLMUsage.objects.exists()

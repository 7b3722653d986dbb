"""LLM extractor and summarizer against a local OpenAI-compatible server (real HTTP protocol)."""
from __future__ import annotations

import contextlib
import datetime as dt
import json

import pytest
from django.utils import timezone

from agentmemory.backends.extractors import TurnText
from agentmemory.backends.extractors.llm import LLMExtractor
from agentmemory.backends.summarizers.llm import LLMSummarizer
from agentmemory.exceptions import LLMError
from agentmemory.models import ExtractionRun, LLMUsage, MemoryItem, Turn
from agentmemory.tasks import extract_session
from agentmemory.testing.hanging import hanging_server
from agentmemory.testing.openai_server import OpenAIChatServer
from agentmemory.working.extract import due_extractions, run_extraction
from agentmemory.working.sessions import append_turn, create_session, end_session

BASE = "/api/agentmemory/sessions/"
ITEMS = {"items": [
    {"type": "fact", "key": "company_industry", "value": "跨境物流", "content": "用户的公司做跨境物流",
     "source": "user_stated", "confidence": 0.9, "quality": 0.9, "turn": 1, "status": "new", "existing_id": None},
    {"type": "preference", "key": "reply_style", "value": "简洁", "content": "用户希望回答简洁",
     "source": "model_inferred", "confidence": 0.6, "quality": 0.7, "turn": 1, "status": "new"},
    {"type": "bogus", "content": "skipped: unknown type"},
]}


def _llm_settings(settings, server, **extra):
    settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "test-model", **extra}


def test_llm_extractor_parses_valid_json_and_sends_turns_and_existing_memories(settings):
    with OpenAIChatServer([json.dumps(ITEMS, ensure_ascii=False)]) as server:
        _llm_settings(settings, server)
        from agentmemory.backends.extractors.base import ExistingMemory

        drafts = LLMExtractor().extract(
            [TurnText(1, "user", "我们公司做跨境物流，回答简短点", turn_id=7, session_id="s1")],
            existing=[ExistingMemory(id=3, type="fact", key="name", content="用户叫王芳")])
        sent = server.requests[0]
    assert [(d.type, d.key, d.source) for d in drafts] == [
        ("fact", "company_industry", "user_stated"), ("preference", "reply_style", "model_inferred")]
    assert drafts[0].turn_id == 7 and drafts[0].session_id == "s1" and drafts[0].confidence == 0.9
    assert sent["response_format"] == {"type": "json_object"} and sent["model"] == "test-model"
    assert "我们公司做跨境物流" in sent["messages"][1]["content"] and "用户叫王芳" in sent["messages"][1]["content"]


def test_fenced_json_is_repaired_and_invalid_json_is_asked_again(settings):
    fenced = "Here you go:\n```json\n" + json.dumps(ITEMS, ensure_ascii=False) + "\n```"
    with OpenAIChatServer([fenced, "not json at all", json.dumps({"items": []})]) as server:
        _llm_settings(settings, server)
        assert len(LLMExtractor().extract([TurnText(1, "user", "我们公司做跨境物流")])) == 2
        assert LLMExtractor().extract([TurnText(1, "user", "好的")]) == []
        assert len(server.requests) == 3  # the invalid answer was followed by one re-ask


@pytest.mark.django_db
def test_a_run_whose_model_keeps_failing_fails_with_turns_kept_and_succeeds_on_retry(settings):
    session = create_session(user_id="llm-user")
    append_turn(session, role="user", content="我们公司是做跨境物流的，回答请简洁。", remember=False)
    run = end_session(session)
    with OpenAIChatServer(["nope", "still {not json"]) as server:
        _llm_settings(settings, server, EXTRACTOR="agentmemory.backends.extractors.llm.LLMExtractor")
        with pytest.raises(LLMError):
            run_extraction(run.pk)
    run.refresh_from_db()
    assert run.status == "failed" and "valid JSON" in run.error and run.items is None
    assert Turn.objects.filter(session=session).count() == 1 and MemoryItem.objects.for_user("llm-user").count() == 0
    with OpenAIChatServer([json.dumps(ITEMS, ensure_ascii=False)]) as server:
        _llm_settings(settings, server, EXTRACTOR="agentmemory.backends.extractors.llm.LLMExtractor")
        run_extraction(run.pk)
        reported = server.usages
    run.refresh_from_db()
    assert run.status == "succeeded" and run.attempts == 2
    assert {m.key for m in MemoryItem.objects.for_user("llm-user").current()} >= {"company_industry"}
    # The tokens each attempt spent are recorded against the run: the failed one's two calls, then one.
    usage = list(LLMUsage.objects.filter(job=f"extraction_run:{run.pk}").order_by("id"))
    assert [(u.purpose, u.user_id, u.calls) for u in usage] == [("extraction", "llm-user", 2),
                                                                ("extraction", "llm-user", 1)]
    assert usage[1].prompt_tokens == reported[0]["prompt_tokens"] > 0


@pytest.mark.django_db
def test_a_failed_extraction_is_reported_and_retried_by_the_beat_sweep(api_client, settings,
                                                                       django_capture_on_commit_callbacks):
    sid = api_client.post(BASE, {"user_id": "llm-api"}, format="json").json()["id"]
    api_client.post(f"{BASE}{sid}/turns/", {"role": "user", "content": "我们公司是做跨境物流的。"}, format="json")
    with OpenAIChatServer(["x", "y", json.dumps(ITEMS, ensure_ascii=False)]) as server:
        _llm_settings(settings, server, EXTRACTOR="agentmemory.backends.extractors.llm.LLMExtractor")
        with django_capture_on_commit_callbacks(execute=True):
            assert api_client.post(f"{BASE}{sid}/end/").status_code == 202
        failed = api_client.get(f"{BASE}{sid}/extraction/").json()
        assert failed["status"] == "failed" and "valid JSON" in failed["runs"][0]["error"]
        assert api_client.get(f"{BASE}{sid}/turns/").json()["results"][0]["content"] == "我们公司是做跨境物流的。"
        # The beat sweep picks the failed run up once its backoff has passed.
        later = timezone.now() + dt.timedelta(hours=1)
        assert due_extractions(now=timezone.now()) == []
        run_ids = due_extractions(now=later)
        assert run_ids == [failed["runs"][0]["id"]]
        extract_session.delay(run_ids[0])
    report = api_client.get(f"{BASE}{sid}/extraction/").json()
    assert report["status"] == "succeeded" and report["runs"][0]["attempts"] == 2
    assert [(m["key"], m["source"]) for m in report["memories"]["created"] if m["type"] != "episode"] == [
        ("company_industry", "user_stated"), ("reply_style", "model_inferred")]
    assert ExtractionRun.objects.get(pk=report["runs"][0]["id"]).extractor.endswith("LLMExtractor")


@pytest.mark.django_db
@pytest.mark.parametrize("failure", ["truncated", "timeout"])
def test_truncated_or_hanging_llm_fails_the_run_with_its_reason_after_the_retries(settings, failure):
    session = create_session(user_id=f"llm-{failure}")
    append_turn(session, role="user", content="我们公司是做跨境物流的，预算五万元。", remember=False)
    run = end_session(session)
    truncated = json.dumps(ITEMS, ensure_ascii=False)[:60]  # the answer cut off mid-object
    with contextlib.ExitStack() as stack:
        if failure == "timeout":
            url = stack.enter_context(hanging_server()) + "/v1"
        else:
            url = stack.enter_context(OpenAIChatServer([truncated] * 10)).url
        settings.AGENTMEMORY = {"LLM_URL": url, "LLM_MODEL": "test-model", "LLM_TIMEOUT": 1.0,
                                "EXTRACTOR": "agentmemory.backends.extractors.llm.LLMExtractor",
                                "EXTRACTION_MAX_RETRIES": 1}
        for attempt in (1, 2):
            with pytest.raises(LLMError):
                run_extraction(run.pk)
            run.refresh_from_db()
            assert run.status == "failed" and run.attempts == attempt
            reason = "valid JSON" if failure == "truncated" else "timed out"
            assert reason in run.error, run.error
        # Retries exhausted: the sweep leaves it, failed with its reason; the turns are all kept.
        assert run.pk not in due_extractions(now=timezone.now() + dt.timedelta(days=1))
    assert Turn.objects.filter(session=session).count() == 1
    assert MemoryItem.objects.for_user(f"llm-{failure}").count() == 0


def test_llm_summarizer_folds_new_turns_into_the_previous_summary(settings):
    with OpenAIChatServer(["用户叫王芳，预算8000元；公司在杭州。"]) as server:
        _llm_settings(settings, server)
        text = LLMSummarizer().summarize("用户叫王芳，预算8000元。", [TurnText(5, "user", "我们公司在杭州。")])
        prompt = server.requests[0]["messages"][1]["content"]
    assert text == "用户叫王芳，预算8000元；公司在杭州。"
    assert "用户叫王芳，预算8000元。" in prompt and "[5] user: 我们公司在杭州。" in prompt

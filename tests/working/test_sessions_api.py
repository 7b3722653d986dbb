"""Sessions and turns through the REST API (eager Celery): window, summary, task state, bad input."""
from __future__ import annotations

import threading

import pytest
from django.db import connection

from agentmemory.models import MemoryItem, Session, Turn

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/sessions/"


def _session(api_client, user_id="u1", **extra) -> str:
    response = api_client.post(BASE, {"user_id": user_id, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _turn(api_client, sid, content, role="user"):
    return api_client.post(f"{BASE}{sid}/turns/", {"role": role, "content": content}, format="json")


def test_create_session_append_turns_and_read_the_window(api_client):
    sid = _session(api_client, agent_id="shop-bot", metadata={"channel": "web"})
    first = _turn(api_client, sid, "你好，我想咨询一下")
    second = _turn(api_client, sid, "您好，请讲。", role="assistant")
    assert first.status_code == second.status_code == 201
    assert (first.json()["turn"]["seq"], second.json()["turn"]["seq"]) == (1, 2)
    assert first.json()["memories"] == []
    body = api_client.get(f"{BASE}{sid}/").json()
    assert body["status"] == "active" and body["agent_id"] == "shop-bot" and body["metadata"] == {"channel": "web"}
    assert [t["content"] for t in body["window"]] == ["你好，我想咨询一下", "您好，请讲。"]
    assert body["summary"] == "" and body["task_state"] == {}


def test_task_state_is_merged_by_patch(api_client):
    sid = _session(api_client)
    r1 = api_client.patch(f"{BASE}{sid}/", {"task_state": {"step": "choose", "options": ["A", "B"]}}, format="json")
    assert r1.status_code == 200
    r2 = api_client.patch(f"{BASE}{sid}/", {"task_state": {"step": "confirm", "options": None}}, format="json")
    assert r2.json()["task_state"] == {"step": "confirm"}
    assert api_client.get(f"{BASE}{sid}/").json()["task_state"] == {"step": "confirm"}
    bad = api_client.patch(f"{BASE}{sid}/", {"task_state": "not an object"}, format="json")
    assert bad.status_code == 400


def test_bad_input_is_a_4xx_and_nothing_is_written(api_client):
    sid = _session(api_client)
    unknown_role = api_client.post(f"{BASE}{sid}/turns/", {"role": "robot", "content": "hi"}, format="json")
    empty = _turn(api_client, sid, "   ")
    one_mb = _turn(api_client, sid, "a" * 1_000_000)
    three_mb = _turn(api_client, sid, "长" * 1_000_000)  # 1M characters, 3 MB of UTF-8
    assert unknown_role.status_code == 400 and "role" in unknown_role.json()["detail"]
    assert empty.status_code == 400 and one_mb.status_code == 400
    assert "MAX_TURN_CHARS" in one_mb.json()["detail"]
    assert three_mb.status_code == 413 and three_mb.json()["error"] == "too_large"
    assert Turn.objects.filter(session_id=sid).count() == 0
    assert api_client.post(BASE, {"agent_id": "x"}, format="json").status_code == 400
    assert api_client.get(f"{BASE}not-a-uuid/").status_code == 404
    assert api_client.get(f"{BASE}00000000-0000-0000-0000-000000000000/").status_code == 404
    assert api_client.post(f"{BASE}{sid}/end/").status_code == 202
    ended = _turn(api_client, sid, "还有一个问题")
    assert ended.status_code == 400 and "ended" in ended.json()["detail"]
    assert Turn.objects.filter(session_id=sid).count() == 0


def test_unauthenticated_calls_are_refused(client):
    assert client.post(BASE, {"user_id": "u1"}, content_type="application/json").status_code in (401, 403)


def test_remember_intent_is_stored_at_once_and_small_talk_is_not(api_client):
    sid = _session(api_client, user_id="u-remember")
    for text in ["今天天气真热", "好的，谢谢"]:
        assert _turn(api_client, sid, text).json()["memories"] == []
    response = _turn(api_client, sid, "记住：以后回答先给结论")
    memories = response.json()["memories"]
    assert [m["action"] for m in memories] == ["created"]
    item = MemoryItem.objects.for_user("u-remember").get(pk=memories[0]["memory_id"])
    assert item.source == "user_stated" and item.confidence >= 0.95 and "先给结论" in item.content
    assert item.key == "reply_style" and item.turn_id == response.json()["turn"]["id"]
    assert response.json()["turn"]["high_priority"] is True
    # Ending the session does not write it a second time, and small talk still gives nothing.
    api_client.post(f"{BASE}{sid}/end/")
    assert MemoryItem.objects.for_user("u-remember").count() == 1


def test_sixty_turn_session_keeps_last_twenty_verbatim_and_turn_three_in_summary(
        api_client, django_capture_on_commit_callbacks):
    sid = _session(api_client, user_id="u-long")
    for i in range(1, 61):
        if i == 3:
            text = "我叫陈静，我们在苏州有3家门店，年营业额1200万元。"
        elif i % 2:
            text = "我们继续讨论一下活动的细节吧"
        else:
            text = "好的，这是关于细节的一些通用建议。"
        with django_capture_on_commit_callbacks(execute=True):  # the summary task (eager) runs on commit
            assert _turn(api_client, sid, text, role="user" if i % 2 else "assistant").status_code == 201
    body = api_client.get(f"{BASE}{sid}/").json()
    assert [t["seq"] for t in body["window"]] == list(range(41, 61))
    assert body["covered_up_to"] == 40
    summary = body["summary"]
    assert "陈静" in summary and "3家门店" in summary and "1200万元" in summary and "苏州" in summary
    # The high-priority turn 3 is also kept verbatim beside the summary.
    assert [t["seq"] for t in body["pinned_turns"]][:1] == [3]


def test_a_fact_restated_later_in_the_session_is_not_lost(api_client, django_capture_on_commit_callbacks):
    sid = _session(api_client, user_id="u-restate")
    _turn(api_client, sid, "我刚说过我的公司是跨境物流")
    for i in range(45):
        with django_capture_on_commit_callbacks(execute=True):
            _turn(api_client, sid, "明白，我们继续下一个话题。" if i % 2 else "嗯嗯，继续说说吧",
                  role="assistant" if i % 2 else "user")
    body = api_client.get(f"{BASE}{sid}/").json()
    assert body["window"][0]["seq"] > 1  # turn 1 has left the window...
    assert "[1] user: 我刚说过我的公司是跨境物流" in body["summary"]  # ...and lives on in the summary
    assert "继续说说吧" not in body["summary"]


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_get_gap_free_sequence_numbers(api_client):
    from agentmemory.working.sessions import append_turn, create_session

    session = create_session(user_id="u-concurrent")
    errors = []

    def worker(n: int) -> None:
        try:
            for i in range(5):
                append_turn(session, role="user", content=f"thread {n} message {i}")
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    seqs = sorted(Turn.objects.filter(session=session).values_list("seq", flat=True))
    assert seqs == list(range(1, 31))
    assert Session.objects.get(pk=session.pk).turn_count == 30

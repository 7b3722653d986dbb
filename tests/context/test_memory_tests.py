"""An operator's memory test cases: saved from a file by the command, run there and from the admin, each with
its outcome and why (answered, not stored, stored but not recalled, stale value shown)."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from agentmemory.models import MemoryItem, MemoryTestCase

pytestmark = pytest.mark.django_db

CASES = [
    {"name": "employer corrected across sessions", "sessions": [["帮我改简历，我在阿里巴巴工作，做数据分析。"],
                                                               ["我离开阿里了，去了腾讯。"]],
     "question": "用户在哪家公司工作？", "expected": ["腾讯"], "stale": ["阿里"]},
    {"name": "a dog named in passing", "sessions": [["I have a dog named Max, what chew toys last longest?"]],
     "question": "What is the name of the user's dog?", "expected": ["Max"]},
    {"name": "small talk names no cat", "sessions": [["你好呀", "哈哈谢谢你"]], "question": "用户的猫叫什么名字？",
     "expected": ["豆豆"]},
]


def test_the_command_saves_and_runs_cases_and_says_why_one_missed(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in CASES), encoding="utf-8")
    out = io.StringIO()
    call_command("agentmemory_memory_tests", "--file", str(path), stdout=out)
    outcomes = dict(MemoryTestCase.objects.values_list("name", "last_outcome"))
    assert outcomes == {"employer corrected across sessions": "answered", "a dog named in passing": "answered",
                        "small talk names no cat": "not_stored"}
    assert "2 of 3 answered; not_stored 1" in out.getvalue()
    case = MemoryTestCase.objects.get(name="employer corrected across sessions")
    assert "腾讯" in case.last_result["shown"] and case.last_result["stale"] == []
    # The throwaway users are forgotten.
    assert not MemoryItem.objects.get_queryset().filter(user_id__startswith="memory-test-").exists()


def test_a_stale_value_shown_is_its_own_outcome():
    case = MemoryTestCase.objects.create(name="stale", sessions=[["我在阿里巴巴工作。"]], question="用户在哪家公司工作？",
                                         expected=["腾讯"], stale=["阿里巴巴"])
    call_command("agentmemory_memory_tests", "stale", stdout=io.StringIO())
    case.refresh_from_db()
    assert case.last_outcome == "stale_shown" and case.last_result["stale"] == ["阿里巴巴"]


def test_the_admin_runs_the_selected_cases(admin_client):
    case = MemoryTestCase.objects.create(**CASES[1])
    changelist = reverse("admin:agentmemory_memorytestcase_changelist")
    response = admin_client.post(changelist, {"action": "run_selected", "_selected_action": [case.pk]}, follow=True)
    assert "Ran 1 case(s): answered 1." in response.content.decode()
    case.refresh_from_db()
    assert case.last_outcome == "answered" and case.last_run_at is not None
    page = admin_client.get(reverse("admin:agentmemory_memorytestcase_change", args=[case.pk])).content.decode()
    assert "Max" in page

"""A Chinese question recalls the English memory that answers it, and the other way round: recall compares
each memory with the query and with the query moved into the other language, keeping the closer."""
from __future__ import annotations

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db

ENGLISH = ("I adopted a rescue dog named Biscuit last spring.", "My sister lives in Toronto.",
           "I work as a nurse at a children's hospital.", "I'm training for a half marathon in October.",
           "I can't eat peanuts, I'm allergic.")
CHINESE = ("我在杭州做跨境电商，主营母婴用品。", "我养了一只叫年糕的猫。", "我下个月要去成都出差。",
           "我每天早上六点起床跑步。", "我对海鲜过敏。")


def _write(api_client, user: str, texts) -> None:
    for text in texts:
        r = api_client.post(f"/api/agentmemory/users/{user}/memories/",
                            {"content": text, "type": "fact", "source": "user_stated"}, format="json")
        assert r.status_code in (200, 201), r.content


def _search(api_client, user: str, query: str) -> list[dict]:
    r = api_client.post(f"/api/agentmemory/users/{user}/memories/search/", {"query": query, "top_k": 3},
                        format="json")
    assert r.status_code == 200, r.content
    return r.json()["results"]


@pytest.mark.parametrize("sql_only", [False, True])
def test_a_chinese_question_recalls_the_english_memory(api_client, sql_only):
    _write(api_client, "xl-en", ENGLISH)
    settings = {"MEMORY_RECALL_CACHE_MB": 0} if sql_only else {}
    with override_settings(AGENTMEMORY=settings):
        found = _search(api_client, "xl-en", "用户是做什么工作的？")
        pets = _search(api_client, "xl-en", "用户的狗叫什么名字？")
    assert "nurse" in found[0]["content"]
    assert "Biscuit" in pets[0]["content"]


def test_an_english_question_recalls_the_chinese_memory(api_client):
    _write(api_client, "xl-zh", CHINESE)
    assert "年糕" in _search(api_client, "xl-zh", "What is the name of the user's cat?")[0]["content"]
    assert "海鲜" in _search(api_client, "xl-zh", "Does the user have any food allergies?")[0]["content"]


def test_the_shift_raises_the_cross_lingual_cosine(api_client):
    _write(api_client, "xl-en", ENGLISH)
    shifted = _search(api_client, "xl-en", "用户是做什么工作的？")[0]
    with override_settings(AGENTMEMORY={"CROSS_LINGUAL_SHIFT": False}):
        plain = next(r for r in _search(api_client, "xl-en", "用户是做什么工作的？") if r["id"] == shifted["id"])
    assert shifted["scores"]["vector"] > plain["scores"]["vector"]


@pytest.mark.parametrize("sql_only", [False, True])
def test_the_keyword_channel_reads_a_question_in_the_other_language_through_the_dictionary(api_client, sql_only):
    _write(api_client, "xl-dict", ENGLISH)
    settings = {"MEMORY_RECALL_CACHE_MB": 0} if sql_only else {}
    question = "用户是在儿童医院当护士吗？"  # 护士 -> "nurse", 医院 -> "hospital"
    with override_settings(AGENTMEMORY=settings):
        top = _search(api_client, "xl-dict", question)[0]
    assert "nurse" in top["content"] and top["scores"]["bm25"] > 0
    with override_settings(AGENTMEMORY={**settings, "CROSS_LINGUAL_KEYWORDS": False}):
        plain = _search(api_client, "xl-dict", question)
    assert all(not r["scores"]["bm25"] for r in plain)

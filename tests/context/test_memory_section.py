"""A memory section of the right size: at most five memories, core facts first; an inferred guess only when
it is what the message is about and nothing stated is; only what the prompt carries counts as accessed."""
from __future__ import annotations

import pytest

from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"

FACTS = [("employer", "用户在腾讯工作"), ("city", "用户住在深圳"), ("pet", "用户养了一只猫叫年糕"),
         ("car", "用户开一辆比亚迪汉"), ("diet", "用户不吃辣"), ("child", "用户的女儿今年六岁"),
         ("instrument", "用户会弹钢琴"), ("commute", "用户每天坐地铁上班")]


def _memories(body) -> list[dict]:
    return [it for name in ("profile", "long_term_memory") for it in body["sections"].get(name, [])
            if it.get("kind") != "summary"]


def _seed(user: str) -> dict[str, int]:
    return {key: write_memory(user, MemoryDraft(content=text, type="fact", key=key, source="user_stated",
                                                confidence=0.95)).memory_id for key, text in FACTS}


def test_a_context_carries_at_most_five_memories_and_touches_only_those(api_client):
    ids = _seed("u5")
    before = dict(MemoryItem.objects.for_user("u5").values_list("pk", "access_count"))
    body = api_client.post(f"{API}context/", {"user_id": "u5", "query": "我女儿几岁了？"}, format="json").json()
    shown = _memories(body)
    assert 1 <= len(shown) <= 5
    assert any("女儿" in it["text"] for it in shown)  # the one the message is about is among them
    left = [d for d in body["trace"]["dropped"] if d["reason"] == "memory_items"]
    assert left and all("holds 5 items" in d["detail"] for d in left)
    after = dict(MemoryItem.objects.for_user("u5").values_list("pk", "access_count"))
    shown_ids = {int(it["ref"]["memory_id"]) for it in shown}
    assert {pk for pk in ids.values() if after[pk] > before[pk]} == shown_ids


def test_an_inferred_guess_stays_out_unless_it_is_what_the_message_is_about(api_client):
    _seed("inf")
    guess = write_memory("inf", MemoryDraft(content="用户可能喜欢安静的环境", type="preference",
                                            key="ambience", source="model_inferred", confidence=0.85)).memory_id
    email = api_client.post(f"{API}context/", {"user_id": "inf", "query": "帮我写一封邮件"}, format="json").json()
    assert "安静" not in email["prompt"]
    assert any(d["key"] == f"memory:{guess}" and d["reason"] == "inferred" for d in email["trace"]["dropped"])
    about = api_client.post(f"{API}context/", {"user_id": "inf", "query": "我喜欢安静的环境吗？"},
                            format="json").json()
    line = next(line for line in about["prompt"].splitlines() if "安静" in line)
    assert "推断" in line  # marked as the model's guess


def test_the_cap_is_a_setting(api_client, settings):
    _seed("cap")
    settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "CONTEXT_MEMORY_MAX_ITEMS": 2}
    body = api_client.post(f"{API}context/", {"user_id": "cap", "query": "我住在哪里？"}, format="json").json()
    assert len(_memories(body)) == 2


def test_the_secondary_places_go_to_what_the_query_asks_about(api_client):
    """Three core profile facts, then what recall found for the query or a further profile fact of its topic, before
    the profile's other facts ("The user wants answers: bullet points" does not crowd out the twins)."""
    user = "sec"
    for key, text in [("job_title", "The user is a paramedic"), ("budget", "The user's budget: $900"),
                      ("car", "The user drives a 2017 Honda CR-V"), ("reply_style", "The user wants answers: bullet points"),
                      ("partner", "The user's partner: wife Thandi")]:
        write_memory(user, MemoryDraft(content=text, type="fact", key=key, value=text.split()[-1], source="user_stated",
                                       confidence=0.95))
    write_memory(user, MemoryDraft(content="my twins Liam and Noah are climbing the walls, it's -32 out", type="episode",
                                   source="user_stated", confidence=0.8, value={"topics": ["family"]}))
    texts = [it["text"] for it in _memories(api_client.post(
        f"{API}context/", {"user_id": user, "query": "What are the names of the user's twins?"}, format="json").json())]
    assert any("Liam and Noah" in t for t in texts), texts
    texts = [it["text"] for it in _memories(api_client.post(
        f"{API}context/", {"user_id": user, "query": "What is the user's wife's name?"}, format="json").json())]
    assert any("Thandi" in t for t in texts), texts
    texts = [it["text"] for it in _memories(api_client.post(
        f"{API}context/", {"user_id": user, "query": "How does the user like answers formatted?"}, format="json").json())]
    assert any("bullet points" in t for t in texts), texts


def test_of_what_recall_found_the_topic_asked_about_comes_first(api_client):
    """Session 42: with the secondary places full, a recalled memory of the topic the query asks about (health, work,
    home …) comes before closer-worded ones, unless it is what someone else is ("my partner Femi is a nurse")."""
    user = "topical"
    for key, text in [("child", "The user's child: daughter Lwazi"), ("budget", "The user's budget: R1500")]:
        write_memory(user, MemoryDraft(content=text, type="fact", key=key, value=text.split()[-1], source="user_stated",
                                       confidence=0.95))
    for text in ["how do I convert blood sugar from mmol/L to mg/dL? the clinic uses one, the app the other",
                 "can you help me plan the braai for saturday, 20 people, budget R1500",
                 "my partner Femi is a nurse and says I should rest more",
                 "also need a sugar-free dessert idea for the braai, something with fruit",
                 "I'm foreman at the sugar mill in Felixton, shifts start at 6am so I leave at 5:20"]:
        write_memory(user, MemoryDraft(content=text, type="episode", source="user_stated", confidence=0.8))
    texts = [it["text"] for it in _memories(api_client.post(
        f"{API}context/", {"user_id": user, "query": "What is the user's job?"}, format="json").json())]
    assert any("foreman at the sugar mill" in t for t in texts), texts
    assert texts.index(next(t for t in texts if "foreman" in t)) < next(
        (i for i, t in enumerate(texts) if "nurse" in t), len(texts)), texts

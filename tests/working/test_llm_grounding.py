"""The LLM extractor holds to the rules' standard, through REST against a local OpenAI-compatible server: a
model's memory in another language than the user's, about another person, or saying the opposite of the
user's words is refused with its reason (the user's episode keeps their words); a value the user never said is
the model's inference; "supersedes" replaces the existing memory the model names; the model sees the user's
episodes and slot facts with their ids."""
from __future__ import annotations

import json
import re

import pytest

from agentmemory.models import MemoryItem
from agentmemory.testing.openai_server import OpenAIChatServer

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"
LLM = "agentmemory.backends.extractors.llm.LLMExtractor"


@pytest.fixture
def talk(api_client, settings, django_capture_on_commit_callbacks):
    """One REST session of ``user`` with ``messages``, ended and extracted by the LLM extractor whose
    server answers ``answer`` (a callable over the request body); the extraction report."""
    def run(user: str, messages: list[str], answer) -> dict:
        with OpenAIChatServer([answer]) as server:
            settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "small-model", "EXTRACTOR": LLM}
            with django_capture_on_commit_callbacks(execute=True):
                sid = api_client.post(f"{API}sessions/", {"user_id": user, "agent_id": "assistant"},
                                      format="json").json()["id"]
                for message in messages:
                    for role, content in (("user", message), ("assistant", "好的。")):
                        assert api_client.post(f"{API}sessions/{sid}/turns/", {"role": role, "content": content},
                                               format="json").status_code == 201
                assert api_client.post(f"{API}sessions/{sid}/end/").status_code == 202
            run.requests = server.requests
        return api_client.get(f"{API}sessions/{sid}/extraction/").json()
    return run


def item(turn: int, content: str, value: str, key: str, mtype: str = "fact", **extra) -> dict:
    return {"type": mtype, "key": key, "value": value, "content": content, "source": "user_stated",
            "confidence": 0.9, "quality": 0.9, "turn": turn, "status": "new", "existing_id": None, **extra}


def test_a_small_models_mistakes_are_refused_with_their_reasons_and_the_users_words_kept(api_client, talk):
    answer = json.dumps({"items": [
        item(1, "用户在柏林读博", "柏林读博", "education"),  # the cousin's PhD
        item(3, "用户喜欢吃辣", "辣", "likes", "preference"),  # the opposite of what was said
        item(5, "The user's cat is named Tuanzi", "Tuanzi", "pet"),  # English for a Chinese user
        item(5, "用户的猫叫团子", "团子", "pet"),
        item(5, "用户老家在哈尔滨", "哈尔滨", "hometown"),  # never said: the model's guess
    ]}, ensure_ascii=False)
    report = talk("g-zh", ["表姐在柏林读博，我想给她寄点年货，国际快递要注意啥？",
                           "我是一点辣都吃不了，推荐几道适合带的菜吧", "我家猫叫团子，寄东西的时候谁帮我喂呢"],
                  lambda body: answer)
    rejected = {row["content"]: row["reason"] for row in report["memories"]["rejected"]}
    assert "another person (表姐)" in rejected["用户在柏林读博"]
    assert "opposite" in rejected["用户喜欢吃辣"]
    assert "another language" in rejected["The user's cat is named Tuanzi"]
    current = MemoryItem.objects.for_user("g-zh").current()
    assert list(current.filter(key="pet").values_list("content", flat=True)) == ["用户的猫叫团子"]
    assert current.get(key="hometown").source == "model_inferred"
    assert not current.filter(content__contains="柏林读博").exclude(type="episode").exists()
    # The user's own words about the spice are kept (an episode), and the context shows no taste for it.
    body = api_client.post(f"{API}context/", {"user_id": "g-zh", "query": "用户能吃辣吗？"}, format="json").json()
    shown = "\n".join(i["text"] for name in ("profile", "long_term_memory") for i in body["sections"][name])
    assert "一点辣都吃不了" in shown and "喜欢吃辣" not in shown and "哈尔滨" not in shown


def test_english_another_persons_move_is_not_the_users_and_a_clause_with_i_is(talk):
    answer = json.dumps({"items": [
        item(1, "The user moved to Berlin.", "Berlin", "location"),
        item(3, "The user lives in Lisbon.", "Lisbon", "location"),
    ]})
    report = talk("g-en", ["My sister moved to Berlin last month, what should I send her for her flat?",
                           "My partner and I live in Lisbon, so shipping takes a while."], lambda body: answer)
    assert [row["content"] for row in report["memories"]["rejected"]] == ["The user moved to Berlin."]
    assert list(MemoryItem.objects.for_user("g-en").current().filter(key="location")
                .values_list("value", flat=True)) == ["Lisbon"]


def test_supersedes_replaces_the_memory_the_model_names_among_those_it_was_shown(api_client, talk):
    first = json.dumps({"items": [item(1, "用户在阿里巴巴工作", "阿里巴巴", "employer")]}, ensure_ascii=False)
    talk("g-sup", ["帮我改下简历。我在阿里巴巴做数据分析，已经干了三年，想往数据产品经理方向转。"], lambda body: first)
    old = MemoryItem.objects.for_user("g-sup").current().get(key="employer")

    def model(body: dict) -> str:
        """A model that reads the existing memories it was shown and names the one it replaces."""
        shown = json.loads(re.search(r"Existing memories of this user:\n(.*)\n\nConversation", body["messages"][1]
                                     ["content"], re.S).group(1))
        employer = next(m["id"] for m in shown if "阿里巴巴" in m["content"] and m["type"] != "episode")
        return json.dumps({"items": [item(1, "用户在腾讯工作", "腾讯", "employer", status="supersedes",
                                          existing_id=employer)]}, ensure_ascii=False)

    talk("g-sup", ["我早就不干了，换到腾讯快半年了。"], model)
    shown = json.loads(re.search(r"Existing memories of this user:\n(.*)\n\nConversation",
                                 talk.requests[0]["messages"][1]["content"], re.S).group(1))
    assert {"fact", "episode"} <= {m["type"] for m in shown}  # slot facts and the user's episodes, with ids
    old.refresh_from_db()
    assert old.status == "superseded"
    assert list(MemoryItem.objects.for_user("g-sup").current().filter(key="employer")
                .values_list("value", flat=True)) == ["腾讯"]
    body = api_client.post(f"{API}context/", {"user_id": "g-sup", "query": "用户在哪里工作？"}, format="json").json()
    shown_text = "\n".join(i["text"] for name in ("profile", "long_term_memory") for i in body["sections"][name])
    assert "腾讯" in shown_text and "阿里巴巴" not in shown_text

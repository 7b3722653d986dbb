"""Both languages first-class on one server: the context speaks the language of the query (or the one asked
for), and a distilled summary uses the template of the user's own language, never the two mixed."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryProfile
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def test_the_context_speaks_the_language_of_the_query_or_the_one_asked_for(api_client, settings):
    settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "LANGUAGE": "zh"}
    write_memory("lang", MemoryDraft(content="The user works at Stripe", type="fact", key="employer",
                                     value="Stripe", source="user_stated"))
    english = api_client.post(f"{API}context/", {"user_id": "lang", "query": "Where does the user work?"},
                              format="json").json()
    assert "[User memory]" in english["prompt"] and "【用户记忆】" not in english["prompt"]
    assert english["trace"]["language"] == "en"
    chinese = api_client.post(f"{API}context/", {"user_id": "lang", "query": "用户在哪里工作？"}, format="json").json()
    assert "【用户记忆】" in chinese["prompt"] and chinese["trace"]["language"] == "zh"
    asked = api_client.post(f"{API}context/", {"user_id": "lang", "query": "用户在哪里工作？", "language": "en"},
                            format="json").json()
    assert "[User memory]" in asked["prompt"]
    bad = api_client.post(f"{API}context/", {"user_id": "lang", "query": "x", "language": "fr"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "language"


def test_a_query_in_neither_language_gets_the_users_language(api_client, settings):
    settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "LANGUAGE": "zh"}
    write_memory("en-user", MemoryDraft(content="The user works at Stripe", type="fact", key="employer",
                                        source="user_stated"))
    write_memory("zh-user", MemoryDraft(content="用户在腾讯工作", type="fact", key="employer", source="user_stated"))
    for user, language in (("en-user", "en"), ("zh-user", "zh"), ("nobody", "zh")):
        body = api_client.post(f"{API}context/", {"user_id": user, "query": "123？"}, format="json").json()
        assert body["trace"]["language"] == language, user
    settings.AGENTMEMORY = {**settings.AGENTMEMORY, "LANGUAGE": "en"}
    body = api_client.post(f"{API}context/", {"user_id": "nobody", "query": "123"}, format="json").json()
    assert body["trace"]["language"] == "en"


def test_a_summary_uses_the_template_of_the_users_language(settings):
    settings.AGENTMEMORY = {**getattr(settings, "AGENTMEMORY", {}), "LANGUAGE": "zh"}
    for content, key in (("The user works at Stripe", "employer"), ("The user prefers short answers", "reply_style")):
        write_memory("en-user", MemoryDraft(content=content, type="fact" if key == "employer" else "preference",
                                            key=key, source="user_stated"))
    write_memory("zh-user", MemoryDraft(content="用户在腾讯工作", type="fact", key="employer", source="user_stated"))
    call_command("agentmemory_distill_profiles", stdout=io.StringIO())
    english = MemoryProfile.objects.get(user_id="en-user").summary
    assert "Stripe" in english and not any("\u4e00" <= c <= "\u9fff" for c in english), english
    assert "腾讯" in MemoryProfile.objects.get(user_id="zh-user").summary

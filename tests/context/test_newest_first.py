"""Of several recalled episodes on one single-state topic (work, home, study), the context puts the newest
first, even when the older one matches the question better: a correction the write side could not link to
what it corrects still leads, with its date beside it. Additive topics (pets) keep recall's order."""
from __future__ import annotations

import datetime as dt

import pytest

from agentmemory.memory.write import write_memory
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def episode(user: str, text: str, topics: list[str], days_ago: int) -> None:
    when = dt.datetime.now(dt.UTC) - dt.timedelta(days=days_ago)
    result = write_memory(user, MemoryDraft(content=text, type="episode", source="user_stated",
                                            value={"slots": [], "topics": topics}, valid_from=when))
    assert result.action == "created", result


def memory_lines(api_client, user: str, query: str) -> list[str]:
    body = api_client.post(f"{API}context/", {"user_id": user, "query": query}, format="json").json()
    return [item["text"] for item in body["sections"]["long_term_memory"]]


def test_the_newest_episode_on_where_the_user_works_comes_first(api_client):
    episode("nf", "I work as a nurse at St. Mary's hospital and the night shifts are brutal.", ["work"], 200)
    episode("nf", "These days I teach chemistry at Lincoln High.", ["work"], 3)
    lines = memory_lines(api_client, "nf", "Where does the user work?")
    assert lines.index("These days I teach chemistry at Lincoln High.") < lines.index(
        "I work as a nurse at St. Mary's hospital and the night shifts are brutal.")


def test_additive_topics_keep_recalls_order(api_client):
    episode("nf-pet", "My dog Biscuit is a beagle who steals socks.", ["pet"], 200)
    episode("nf-pet", "We also have a cat called Miso.", ["pet"], 3)
    lines = memory_lines(api_client, "nf-pet", "What breed is the user's dog Biscuit?")
    assert lines[0] == "My dog Biscuit is a beagle who steals socks."

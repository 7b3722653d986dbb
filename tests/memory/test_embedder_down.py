"""A failing embedder never loses a memory: it is stored, found by keywords, and embedded later."""
from __future__ import annotations

import socket

import pytest
from django.test import override_settings

from agentmemory.models import MemoryItem
from agentmemory.tasks.memory import embed_pending_memories

pytestmark = pytest.mark.django_db


def _dead_embedder_settings():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return override_settings(AGENTMEMORY={
        "EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
        "EMBEDDING_URL": f"http://127.0.0.1:{port}/v1", "EMBEDDING_MODEL": "multilingual-e5-small-q4",
        "EMBEDDING_TIMEOUT": 2.0,
    })


def test_memory_written_while_the_embedder_is_down_is_kept_and_embedded_later(api_client):
    url = "/api/agentmemory/users/u-down/memories/"
    with _dead_embedder_settings():
        resp = api_client.post(url, {"content": "我们公司主营跨境物流业务", "type": "fact", "key": "company_industry",
                                     "source": "user_stated"}, format="json")
        assert resp.status_code == 201, resp.json()
        memory_id = resp.json()["memory"]["id"]
        found = api_client.post(url + "search/", {"query": "跨境物流"}, format="json").json()
        assert [r["id"] for r in found["results"]] == [memory_id]
        # Still down: the sweep leaves it pending instead of failing.
        assert embed_pending_memories.delay().get()["still_pending"] == 1
    item = MemoryItem.objects.for_user("u-down").get(pk=memory_id)
    assert item.embedding is None and item.embedding_model == ""

    outcome = embed_pending_memories.delay().get()  # the beat sweep, with the embedder back
    assert outcome == {"embedded": 1, "still_pending": 0}
    item = MemoryItem.objects.for_user("u-down").get(pk=memory_id)
    assert item.embedding is not None and item.embedding_model == "multilingual-e5-small-q4"
    found = api_client.post(url + "search/", {"query": "物流公司"}, format="json").json()
    assert found["results"][0]["id"] == memory_id

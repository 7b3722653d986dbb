"""Backends down or hanging, and Redis (broker and cache) down: the API answers, nothing is lost.

- the embedding server refuses connections, or accepts them and never answers: search and context fall
  back to the keyword channel and say so in the trace; memory writes and document imports are kept and
  embedded by the sweeps once the server is back; no 5xx;
- Redis down as cache and as broker: reads bypass the cache; jobs are recorded, the request answers,
  and the beat sweeps dispatch them to a real worker once Redis is back.
"""
from __future__ import annotations

import datetime as dt
import socket
import threading

import pytest
from django.test import override_settings
from django.utils import timezone

from agentmemory.models import ExtractionRun, ImportJob, KnowledgeBase, MemoryItem
from agentmemory.tasks import embed_pending_memories, retry_import_jobs
from agentmemory.testing.hanging import hanging_server
from tests.celery_helpers import reset_broker_state

API = "/api/agentmemory/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def hanging_port():
    with hanging_server() as url:
        yield int(url.rsplit(":", 1)[1])


def _embedder_at(port: int):
    return override_settings(AGENTMEMORY={
        "EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
        "EMBEDDING_URL": f"http://127.0.0.1:{port}/v1", "EMBEDDING_MODEL": "multilingual-e5-small-q4",
        "EMBEDDING_TIMEOUT": 1.0,
    })


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["refusing", "hanging"])
def test_embedder_outage_degrades_reads_and_keeps_writes(api_client, mode, hanging_port):
    port = hanging_port if mode == "hanging" else _free_port()
    KnowledgeBase.objects.create(slug="kb", name="KB")
    with _embedder_at(port):
        imported = api_client.post(f"{API}knowledge-bases/kb/documents/",
                                   {"title": "X-200", "content": "# X-200\n## 参数\nX-200 的功率是 15W。"}, format="json")
        assert imported.status_code == 202, imported.content
        job = imported.json()
        assert job["status"] == "queued" and "embedding backend" in job["error"]
        wrote = api_client.post(f"{API}users/ann/memories/", {"content": "ann 的公司做跨境物流", "type": "fact",
                                                              "source": "user_stated"}, format="json")
        assert wrote.status_code == 201
        # Nothing is searchable by vector: reads use keywords and say so.
        found = api_client.post(f"{API}users/ann/memories/search/", {"query": "跨境物流"}, format="json")
        assert found.status_code == 200 and found.json()["results"]
        assert found.json()["mode"] != "hybrid" or found.json()["degraded_reason"]
        context = api_client.post(f"{API}context/", {"user_id": "ann", "query": "我们公司做什么？"}, format="json")
        assert context.status_code == 200
        assert "跨境物流" in context.json()["prompt"] and context.json()["trace"]["degraded"]
        assert ImportJob.objects.get(pk=job["id"]).status == "queued"

    # The server is back (the bundled embedder): the sweeps finish what waited.
    ImportJob.objects.filter(pk=job["id"]).update(created_at=timezone.now() - dt.timedelta(minutes=5))
    swept = retry_import_jobs.delay().get()
    assert swept["succeeded"] == [job["id"]]
    assert api_client.get(f"{API}import-jobs/{job['id']}/").json()["status"] == "succeeded"
    hits = api_client.post(f"{API}knowledge-bases/kb/search/", {"query": "X-200 功率"}, format="json").json()
    assert hits["hits"] and not hits["trace"].get("degraded")
    assert embed_pending_memories.delay().get()["still_pending"] == 0
    assert MemoryItem.objects.for_user("ann").get().embedding is not None


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_redis_down_as_cache_and_broker_then_back(api_client, celery_app_with_broker, redis_url):
    from agentmemory.tasks import extract_idle_sessions

    app = celery_app_with_broker
    dead = f"redis://127.0.0.1:{_free_port()}/0"
    dead_cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": dead}}
    KnowledgeBase.objects.create(slug="kb", name="KB")
    api_client.post(f"{API}users/bo/memories/", {"content": "bo 住在宁波", "type": "fact", "key": "city",
                                                 "source": "user_stated"}, format="json")

    app.conf.update(broker_url=dead, broker_connection_retry=False, broker_connection_max_retries=0)
    reset_broker_state(app)
    try:
        with override_settings(CACHES=dead_cache):
            assert api_client.get(f"{API}users/bo/profile/").status_code == 200  # cache bypassed
            context = api_client.post(f"{API}context/", {"user_id": "bo", "query": "我住在哪里？"}, format="json")
            assert context.status_code == 200 and "宁波" in context.json()["prompt"]
            imported = api_client.post(f"{API}knowledge-bases/kb/documents/",
                                       {"title": "Y", "content": "# Y\nY-1 的电压是 12V。"}, format="json")
            assert imported.status_code == 202  # recorded; the message could not be sent
            session = api_client.post(f"{API}sessions/", {"user_id": "bo"}, format="json").json()
            api_client.post(f"{API}sessions/{session['id']}/turns/", {"role": "user", "content": "我们的预算是五万元"},
                            format="json")
            ended = api_client.post(f"{API}sessions/{session['id']}/end/")
            assert ended.status_code == 202
    finally:
        app.conf.update(broker_url=redis_url)
        reset_broker_state(app)

    job_id = imported.json()["id"]
    run = ExtractionRun.objects.get(session_id=session["id"])
    assert ImportJob.objects.get(pk=job_id).status == "queued" and run.status == "pending"
    # Time passes; Redis is back; beat's sweeps dispatch what waited, to a real worker.
    earlier = timezone.now() - dt.timedelta(minutes=5)
    ImportJob.objects.filter(pk=job_id).update(created_at=earlier)
    ExtractionRun.objects.filter(pk=run.pk).update(created_at=earlier)
    from celery.contrib.testing.worker import start_worker

    app.control.purge()
    with start_worker(app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=30):
        assert retry_import_jobs.delay().get(timeout=120)["succeeded"] == [job_id]
        assert run.pk in extract_idle_sessions.delay().get(timeout=60)["runs"]
        deadline = timezone.now() + dt.timedelta(seconds=90)
        while ExtractionRun.objects.get(pk=run.pk).status != "succeeded" and timezone.now() < deadline:
            threading.Event().wait(0.3)
    assert ExtractionRun.objects.get(pk=run.pk).status == "succeeded"
    assert ImportJob.objects.get(pk=job_id).status == "succeeded"

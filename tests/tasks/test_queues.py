"""Queues per workload (TASK_QUEUES) on the real broker, a worker that reads only its queue, extraction runs of
one user never interleaving, and the backlog reported by health and the admin."""
from __future__ import annotations

import datetime as dt
import os
import time

import pytest
from django.utils import timezone

from agentmemory.exceptions import ExtractionBusy
from agentmemory.models import ExtractionRun
from agentmemory.tasks import extract_session, health_check, ingest_document
from agentmemory.tasks.dispatch import send
from agentmemory.working.extract import run_extraction
from agentmemory.working.sessions import append_turn, create_session, end_session
from tests.celery_helpers import reset_broker_state


def _queues() -> dict[str, str]:
    prefix = os.environ["CELERY_TASK_DEFAULT_QUEUE"]  # this run's own (tests/conftest.py)
    return {name: f"{prefix}-{name}" for name in ("ingest", "extraction", "maintenance")}


def _ended_session(user: str, text: str) -> ExtractionRun:
    session = create_session(user_id=user)
    append_turn(session, role="user", content=text, remember=False)
    return end_session(session)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_each_workload_goes_to_its_queue_and_a_worker_of_that_queue_runs_it(celery_app_with_broker, redis_url,
                                                                            settings, api_client):
    import redis
    from celery.contrib.testing.worker import start_worker

    app = celery_app_with_broker
    reset_broker_state(app)
    queues = _queues()
    settings.AGENTMEMORY = {"TASK_QUEUES": queues}
    broker = redis.Redis.from_url(redis_url)
    broker.delete(*queues.values())
    try:
        assert send(extract_session, 10**9) and send(ingest_document, 10**9) and send(health_check)
        assert {name: broker.llen(queue) for name, queue in queues.items()} == {
            "ingest": 1, "extraction": 1, "maintenance": 1}
        health = api_client.get("/api/agentmemory/health/?backlog=1").json()
        assert {health["backlog"]["queues"][q] for q in queues.values()} == {1}
        broker.delete(*queues.values())

        # A worker reading only the extraction queue takes a session's extraction from the REST end.
        sid = api_client.post("/api/agentmemory/sessions/", {"user_id": "q-user"}, format="json").json()["id"]
        api_client.post(f"/api/agentmemory/sessions/{sid}/turns/",
                        {"role": "user", "content": "我们公司是做跨境物流的。"}, format="json")
        with start_worker(app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=30,
                          queues=[queues["extraction"]]):
            assert api_client.post(f"/api/agentmemory/sessions/{sid}/end/").status_code == 202
            deadline = time.monotonic() + 60
            while ExtractionRun.objects.filter(session_id=sid).exclude(status="succeeded").exists():
                assert time.monotonic() < deadline, "the extraction worker did not take the run"
                time.sleep(0.3)
        assert broker.llen(queues["extraction"]) == 0
    finally:
        broker.delete(*queues.values())
        app.amqp.__dict__.pop("queues", None)


@pytest.mark.django_db
def test_without_task_queues_nothing_is_routed_and_bad_queues_fail_the_check(settings):
    from agentmemory.checks import check_settings
    from agentmemory.tasks.queues import queue_for

    assert queue_for("agentmemory.extract_session") is None  # the host's default queue or its task_routes
    settings.AGENTMEMORY = {"TASK_QUEUES": {"extraction": "x"}}
    assert queue_for("agentmemory.extract_session") == "x" and queue_for("agentmemory.purge_sessions") is None
    settings.AGENTMEMORY = {"TASK_QUEUES": {"imports": "x"}}
    assert [e.id for e in check_settings()] == ["agentmemory.E002"]


@pytest.mark.django_db
def test_runs_of_one_user_never_interleave():
    first = _ended_session("lease-user", "我们公司是做母婴用品的。")
    second = _ended_session("lease-user", "我们公司在杭州。")
    other = _ended_session("lease-other", "我在上海工作。")
    ExtractionRun.objects.filter(pk=first.pk).update(status="running", started_at=timezone.now())
    with pytest.raises(ExtractionBusy):
        run_extraction(second.pk)
    assert ExtractionRun.objects.get(pk=second.pk).status == "pending"  # untouched, for the retry or the sweep
    assert extract_session.delay(second.pk).get()["status"] == "pending"  # eagerly: left to the sweep
    assert run_extraction(other.pk).status == "succeeded"  # another user is not held
    # The running run finished (or its lease ran out): the waiting one goes.
    ExtractionRun.objects.filter(pk=first.pk).update(started_at=timezone.now() - dt.timedelta(seconds=601))
    assert run_extraction(second.pk).status == "succeeded"


@pytest.mark.django_db
def test_an_old_backlog_is_reported_by_health_and_the_admin(api_client, admin_client):
    run = _ended_session("backlog-user", "我们公司是做宠物食品的。")
    health = api_client.get("/api/agentmemory/health/?backlog=1").json()["backlog"]
    assert health["extraction"]["waiting"] == 1 and health["warnings"] == []
    ExtractionRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - dt.timedelta(minutes=20))
    health = api_client.get("/api/agentmemory/health/?backlog=1").json()["backlog"]
    assert health["extraction"]["oldest_seconds"] >= 1200 and "extraction: 1 waiting" in health["warnings"][0]
    assert "backlog" not in api_client.get("/api/agentmemory/health/").json()  # not on the polled default path
    page = admin_client.get("/admin/agentmemory/extractionrun/").content.decode()
    assert "Backlog: extraction: 1 waiting" in page
    assert health_check.delay().get()["backlog"]["warnings"]

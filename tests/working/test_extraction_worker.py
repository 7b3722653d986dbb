"""Extraction through the API with a real broker and worker: the seeds' scenario, duplicates, a killed worker."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from agentmemory.models import ExtractionRun, MemoryItem, Session
from agentmemory.tasks import extract_session
from agentmemory.working.extract import run_extraction
from agentmemory.working.sessions import append_turn, create_session, end_session
from tests.celery_helpers import reset_broker_state
from tests.live_helpers import stop_group

BASE = "/api/agentmemory/sessions/"
SEED = "我们公司是做母婴用品的品牌，主打安全环保，最近想做一次低成本联名活动。"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_broker_connections(celery_app_with_broker):
    """Drop connections and producers an earlier eager test may have made before the broker was set."""
    app = celery_app_with_broker
    reset_broker_state(app)
    yield


def _poll_extraction(api_client, sid, timeout=90.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = api_client.get(f"{BASE}{sid}/extraction/").json()
        if body["status"] in ("succeeded", "failed"):
            return body
        time.sleep(0.3)
    raise AssertionError(f"extraction did not finish: {body}")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_seed_scenario_end_to_end_with_a_real_worker(api_client, celery_worker):
    user = "seed-user"
    sid = api_client.post(BASE, {"user_id": user}, format="json").json()["id"]
    turn = api_client.post(f"{BASE}{sid}/turns/", {"role": "user", "content": SEED}, format="json").json()["turn"]
    api_client.post(f"{BASE}{sid}/turns/", {"role": "assistant", "content": "好的，我来帮您构思。"}, format="json")
    ended = api_client.post(f"{BASE}{sid}/end/")
    assert ended.status_code == 202
    assert ended.json()["extraction"]["status"] in ("pending", "running", "succeeded")
    report = _poll_extraction(api_client, sid)
    assert report["status"] == "succeeded", report
    created = {m["key"]: m for m in report["memories"]["created"]}
    assert created["company_industry"]["type"] == "fact" and "母婴用品" in created["company_industry"]["content"]
    assert created["budget"]["type"] == "preference" and "低成本" in created["budget"]["content"]

    items = {m.key: m for m in MemoryItem.objects.for_user(user).current()}
    for key in ("company_industry", "budget"):
        assert items[key].source == "user_stated"
        assert items[key].session_id == sid and items[key].turn_id == turn["id"]
        assert items[key].excerpt.startswith("我们公司是做母婴用品的品牌")

    # A new session: the memory search for the new request returns both.
    sid2 = api_client.post(BASE, {"user_id": user}, format="json").json()["id"]
    api_client.post(f"{BASE}{sid2}/turns/", {"role": "user", "content": "帮我想个联名方案，预算不多。"}, format="json")
    found = api_client.post(f"/api/agentmemory/users/{user}/memories/search/",
                            {"query": "帮我想个联名方案，预算不多。", "top_k": 5}, format="json").json()["results"]
    found_ids = {r["id"] for r in found}
    assert {items["company_industry"].pk, items["budget"].pk} <= found_ids

    # A duplicate delivery of the same extraction writes nothing twice.
    before = MemoryItem.objects.for_user(user).count()
    run_id = report["runs"][0]["id"]
    extract_session.delay(run_id).get(timeout=60)
    assert api_client.post(f"{BASE}{sid}/end/").json()["extraction"]["id"] == run_id
    assert MemoryItem.objects.for_user(user).count() == before
    assert len(ExtractionRun.objects.get(pk=run_id).results) == len(report["memories"]["created"])


TURNS = [
    ("user", "我叫林小雨，我们公司是做宠物食品的品牌。"),
    ("assistant", "你好林小雨！有什么可以帮你？"),
    ("user", "我们用的是Django和PostgreSQL，预算是20万元。"),
    ("user", "我不喜欢开长会，下次别再推荐线下路演了。"),
    ("user", "我们决定选了抖音做主渠道。"),
]


def _session_with_turns(user: str) -> Session:
    session = create_session(user_id=user)
    for role, content in TURNS:
        append_turn(session, role=role, content=content, remember=False)
    return session


def _memories(user: str) -> list[tuple]:
    return sorted((m.type, m.key, m.content, m.source, m.status)
                  for m in MemoryItem.objects.for_user(user).all())


def _start_worker(redis_url: str, pause_file: Path, log: Path, *, refuse_batches: bool = False) -> subprocess.Popen:
    """A real `celery worker` process on the test database; a short visibility timeout redelivers fast. With
    ``refuse_batches`` its embedder refuses a batch of passages (an extraction then embeds each memory as it writes
    it, so a pause lands inside one write)."""
    code = (
        "from project.celery import app\n"
        "app.conf.broker_transport_options = {'visibility_timeout': 2}\n"
        "app.conf.task_always_eager = False\n"
        "app.worker_main(['worker', '--pool=solo', '--concurrency=1', '--loglevel=INFO', '--without-heartbeat',"
        " '--without-gossip', '--without-mingle'])\n"
    )
    env = {**os.environ, "CELERY_BROKER_URL": redis_url, "CELERY_RESULT_BACKEND": redis_url,
           "AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"],
           "AGENTMEMORY_EMBEDDER": "tests.working.pausing_embedder.PausingEmbedder",
           "AGENTMEMORY_TEST_PAUSE_FILE": str(pause_file), "OMP_NUM_THREADS": "1",
           "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "project.settings"}
    if refuse_batches:
        env["AGENTMEMORY_TEST_REFUSE_BATCHES"] = "1"
    env.pop("DATABASE_URL", None)
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=log.open("ab"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def _wait(predicate, timeout: float, what: str, proc=None, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}\n{log.read_text()[-3000:] if log else ''}")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_killing_the_worker_mid_extraction_and_restarting_gives_the_memories_of_a_clean_run(
        celery_app_with_broker, redis_url, tmp_path):
    # The clean run, in this process.
    clean = _session_with_turns("clean-user")
    run_extraction(end_session(clean).pk)
    expected = _memories("clean-user")
    assert len(expected) >= 5

    # The same conversation, extracted by a worker process that is killed after its first write.
    session = _session_with_turns("killed-user")
    run = end_session(session)
    pause = tmp_path / "pause"
    pause.write_text("1")  # let one memory be written, then stall inside the second write
    log = tmp_path / "worker.log"
    celery_app_with_broker.control.purge()
    first = _start_worker(redis_url, pause, log, refuse_batches=True)
    try:
        extract_session.delay(run.pk)
        _wait(lambda: len(ExtractionRun.objects.get(pk=run.pk).results) == 1 and pause.read_text() == "0",
              120, "the first write", first, log)
        time.sleep(1.0)  # it is now stalled inside the second write
        assert len(ExtractionRun.objects.get(pk=run.pk).results) == 1
        os.killpg(first.pid, signal.SIGKILL)  # no warm shutdown: the message stays unacknowledged
        first.wait(30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    assert ExtractionRun.objects.get(pk=run.pk).status == "running"
    assert len(_memories("killed-user")) == 1

    pause.unlink()
    second = _start_worker(redis_url, pause, log, refuse_batches=True)  # redelivers the unacknowledged task on start
    try:
        _wait(lambda: ExtractionRun.objects.get(pk=run.pk).status == "succeeded", 180, "the redelivered run",
              second, log)
    finally:
        stop_group(second, timeout=30)
    done = ExtractionRun.objects.get(pk=run.pk)
    assert done.attempts == 2
    assert sorted(row["item"] for row in done.results) == list(range(len(done.items)))
    assert _memories("killed-user") == expected


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_structured_summary_is_folded_by_a_real_worker(api_client, celery_worker, settings):
    from tests.working.test_structured_summary import TRIP

    settings.AGENTMEMORY = {"WINDOW_TURNS": 4, "SUMMARY_TRIGGER_TURNS": 4}
    sid = api_client.post(BASE, {"user_id": "sum-user"}, format="json").json()["id"]
    for role, content in TRIP:
        assert api_client.post(f"{BASE}{sid}/turns/", {"role": role, "content": content},
                               format="json").status_code == 201
    body = _wait(lambda: (lambda b: b if b["covered_up_to"] >= 6 else None)(api_client.get(f"{BASE}{sid}/").json()),
                 60, "the worker's summary")
    fields = body["summary_fields"]
    assert "日本" in fields["goal"] and any("2万元" in line for line in fields["confirmed"])
    assert body["summary"].startswith("目标：")

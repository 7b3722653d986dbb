"""The production shape on loopback (`python -m project.serve --topology`): gunicorn with two web processes, one
Celery worker per workload queue and beat, each web process with its own local-memory cache. A correction
written through one process is read through every other at once; an extraction and an import are done by the
workers of their queues; the backlog reports those queues."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from agentmemory.api_keys import create_api_key
from tests.live_helpers import call, free_port, stop_group, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]


def _texts(body: dict) -> str:
    return "\n".join(i["text"] for name in ("profile", "long_term_memory") for i in body["sections"][name])


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_topology_reads_every_write_at_once_and_each_queue_has_its_worker(redis_url, tmp_path):
    _key, key = create_api_key("topology", scopes=["read", "write", "admin"])
    prefix = f"{os.environ['CELERY_TASK_DEFAULT_QUEUE']}-topo"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"], "OMP_NUM_THREADS": "1",
                "AGENTMEMORY_DATA_DIR": str(ROOT / ".agentmemory"), "AGENTMEMORY_LOG_LEVEL": "WARNING",
                "CELERY_BROKER_URL": redis_url, "AGENTMEMORY_QUEUE_PREFIX": prefix})
    log_path = tmp_path / "topology.log"
    proc = subprocess.Popen([sys.executable, "-m", "project.serve", "--topology", "--web-workers", "2",
                             "--port", str(port)], cwd=ROOT, env=env, stdout=log_path.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/api/agentmemory/"

    def log() -> str:
        return log_path.read_text(errors="replace")[-4000:]

    def until(predicate, what: str, timeout: float = 120):
        deadline = time.monotonic() + timeout
        while not (value := predicate()):
            assert time.monotonic() < deadline and proc.poll() is None, f"{what}\n{log()}"
            time.sleep(0.5)
        return value

    try:
        wait_until_healthy(base, key, proc, timeout=180, log=str(log_path))
        assert "gunicorn 2x8" in log() and f"{prefix}-extraction" in log()
        status, _, _ = call("POST", base + "users/topo/memories/", key, {
            "content": "用户在阿里巴巴工作", "type": "fact", "key": "employer", "source": "user_stated"})
        assert status == 201
        for _ in range(6):  # both web processes cache the profile
            assert "阿里巴巴" in _texts(call("POST", base + "context/", key,
                                          {"user_id": "topo", "query": "帮我写个自我介绍"})[1])
        status, body, _ = call("POST", base + "users/topo/memories/", key, {
            "content": "用户在腾讯工作", "type": "fact", "key": "employer", "source": "user_stated"})
        assert body["action"] == "superseded_previous"
        for _ in range(6):  # whichever process answers, the correction is there at once
            text = _texts(call("POST", base + "context/", key, {"user_id": "topo", "query": "帮我写个自我介绍"})[1])
            assert "腾讯" in text and "阿里巴巴" not in text

        # The extraction queue's worker extracts an ended session; the ingest queue's worker imports.
        _s, session, _ = call("POST", base + "sessions/", key, {"user_id": "topo"})
        call("POST", base + f"sessions/{session['id']}/turns/", key,
             {"role": "user", "content": "我们公司是做宠物食品的品牌。", "remember": False})
        assert call("POST", base + f"sessions/{session['id']}/end/", key)[0] == 202
        until(lambda: call("GET", base + f"sessions/{session['id']}/extraction/", key)[1]["status"] == "succeeded",
              "the extraction worker did not extract the session")
        assert call("POST", base + "knowledge-bases/", key, {"slug": "topo-kb", "name": "topo"})[0] == 201
        status, _job, _ = call("POST", base + "knowledge-bases/topo-kb/documents/", key, {
            "title": "X-200", "content": "# X-200\n## 参数\nX-200 的功率是 15W。"})
        assert status == 202
        until(lambda: call("POST", base + "search/", key, {"query": "X-200 功率"})[1]["hits"],
              "the ingest worker did not import the document")
        backlog = call("GET", base + "health/?backlog=1", key)[1]["backlog"]
        assert {f"{prefix}-{w}" for w in ("ingest", "extraction", "maintenance")} <= set(backlog["queues"])
        assert backlog["extraction"]["waiting"] == 0 and backlog["warnings"] == []
    finally:
        stop_group(proc, timeout=30)

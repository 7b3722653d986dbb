"""`make run`'s launcher: with no broker configured, a bundled Redis, a worker and beat run beside the web
server, so an ended session is extracted by the worker (not in the request) and an upload returns at once."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from agentmemory.api_keys import create_api_key
from agentmemory.models import ExtractionRun, ImportJob, KnowledgeBase
from tests.live_helpers import call, free_port, stop_group, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_make_run_serves_with_a_worker_and_beat(tmp_path):
    _key, key = create_api_key("serve-test")
    KnowledgeBase.objects.create(slug="big", name="Big")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL", "REDIS_URL")}
    env.update({"AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"], "OMP_NUM_THREADS": "1",
                "AGENTMEMORY_DATA_DIR": str(ROOT / ".agentmemory"), "AGENTMEMORY_LOG_LEVEL": "WARNING"})
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "project.serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/api/agentmemory/"
    try:
        wait_until_healthy(base, key, proc, timeout=120)

        _status, session, _ = call("POST", base + "sessions/", key, {"user_id": "served"})
        call("POST", base + f"sessions/{session['id']}/turns/", key,
              {"role": "user", "content": "我们公司是做母婴用品的品牌。", "remember": False})
        status, ended, _ = call("POST", base + f"sessions/{session['id']}/end/", key)
        assert status == 202 and ended["extraction"]["status"] == "pending"  # not extracted in the request
        deadline = time.monotonic() + 120
        while ExtractionRun.objects.get(pk=ended["extraction"]["id"]).status != "succeeded":
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-3000:]
            time.sleep(0.5)

        big = "# 手册\n" + "\n".join(f"## 第{i}节\n" + "仓库温湿度监控终端的说明。" * 30 for i in range(1, 1000))
        assert len(big.encode()) > 1_000_000
        started = time.monotonic()
        status, job, _ = call("POST", base + "knowledge-bases/big/documents/", key, {"title": "手册", "content": big})
        assert status == 202 and time.monotonic() - started < 3.0  # queued, not embedded in the request
        assert ImportJob.objects.get(pk=job["id"]).status in ("queued", "running")
        # Beat is up: with the DatabaseScheduler it has put the jobs in the database.
        from django_celery_beat.models import PeriodicTask

        deadline = time.monotonic() + 60
        while not PeriodicTask.objects.filter(name="agentmemory-decay-memories").exists():
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-3000:]
            time.sleep(0.5)
    finally:
        stop_group(proc, timeout=60)
        log.close()

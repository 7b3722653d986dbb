"""PostgreSQL restarted under load: requests fail cleanly (503 JSON) while it is down, then recover
without restarting the web process. A PostgreSQL of its own (embedded) and a real server process."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agentmemory.embedded import (
    database_url,
    embedded_database,
    restart_embedded_postgres,
    stop_embedded_postgres,
)
from tests.live_helpers import call, free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def own_postgres():
    data_dir = ROOT / ".agentmemory" / f"restart-test-{os.getpid()}"
    settings = embedded_database("restart", data_dir=data_dir)
    yield data_dir, database_url(settings)
    stop_embedded_postgres(data_dir)
    shutil.rmtree(data_dir, ignore_errors=True)


def test_requests_fail_cleanly_while_postgres_is_down_and_recover(own_postgres):
    data_dir, url = own_postgres
    env = {**os.environ, "DATABASE_URL": url, "OMP_NUM_THREADS": "1", "DJANGO_SETTINGS_MODULE": "project.settings",
           "DEBUG": "false", "AGENTMEMORY_LOG_LEVEL": "CRITICAL"}
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300)
    created = subprocess.run([*manage, "agentmemory_create_api_key", "restart"], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True, timeout=120)
    key = created.stdout.strip().splitlines()[-1]
    port = free_port()
    server = subprocess.Popen([*manage, "runserver", f"127.0.0.1:{port}", "--noreload"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}/api/agentmemory/"
    try:
        wait_until_healthy(base, key, server, timeout=60)

        results: list[tuple[int, dict | None, str]] = []
        stop = threading.Event()

        def load(worker: int) -> None:
            n = 0
            while not stop.is_set():
                n += 1
                if n % 2:
                    results.append(call("POST", base + f"users/u{worker}/memories/", key,
                                         {"content": f"第 {n} 条：公司在杭州", "type": "event", "source": "system_log"}))
                else:
                    results.append(call("GET", base + f"users/u{worker}/memories/", key))

        threads = [threading.Thread(target=load, args=(i,)) for i in range(3)]
        for thread in threads:
            thread.start()
        time.sleep(2)
        stop_embedded_postgres(data_dir)  # PostgreSQL goes away under load
        time.sleep(3)
        down = call("GET", base + "health/", key)
        restart_embedded_postgres(data_dir)  # ...and comes back
        time.sleep(2)
        stop.set()
        for thread in threads:
            thread.join(60)

        assert down[0] == 503 and down[1]["error"] == "database_unavailable"
        statuses = {status for status, _body, _ctype in results}
        assert statuses <= {200, 201, 503}, statuses
        assert 503 in statuses and statuses & {200, 201}
        for status, body, ctype in results:
            assert ctype.startswith("application/json") and body is not None
            if status == 503:
                assert body["error"] in ("database_unavailable", "database_error"), body
        # The same process serves again once the database is back.
        assert call("GET", base + "health/", key)[0] == 200
        assert call("POST", base + "users/u9/memories/", key,
                     {"content": "恢复之后写入", "type": "fact", "source": "user_stated"})[0] == 201
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(30)

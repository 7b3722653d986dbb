"""Cached profiles and top memories are correct across processes, whatever the cache backend: a second web
process (its own local-memory cache, as Django's default gives each gunicorn worker) caches a user's profile,
this process writes a correction and a new summary, and the other process shows them at its next read."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from agentmemory.api_keys import create_api_key
from tests.live_helpers import call, free_port, stop_group, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
API = "/api/agentmemory/"


def shown(body: dict) -> str:
    return "\n".join([body.get("summary") or "", *(f["content"] for f in body["facts"])])


@pytest.mark.django_db(transaction=True)
def test_a_write_in_one_process_is_read_at_once_by_another_with_a_per_process_cache(api_client, tmp_path):
    _key, key = create_api_key("cache-processes", scopes=["read", "write", "admin"])
    wrote = api_client.post(f"{API}users/cp/memories/", {"content": "用户在阿里巴巴工作", "type": "fact",
                                                          "key": "employer", "value": "阿里巴巴",
                                                          "source": "user_stated"}, format="json")
    assert wrote.status_code == 201
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL", "REDIS_URL")}
    env.update({"AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"], "OMP_NUM_THREADS": "1",
                "AGENTMEMORY_DATA_DIR": str(ROOT / ".agentmemory"), "AGENTMEMORY_LOG_LEVEL": "WARNING"})
    log = (tmp_path / "web.log").open("wb")
    # The bundled project without REDIS_URL: Django's local-memory cache, this process's own.
    proc = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    other = f"http://127.0.0.1:{port}{API}"
    try:
        wait_until_healthy(other, key, proc, timeout=120, log=str(tmp_path / "web.log"))
        for _ in range(2):  # cached in the other process
            status, body, _ = call("GET", other + "users/cp/profile/", key)
            assert status == 200 and "阿里巴巴" in shown(body)
        corrected = api_client.post(f"{API}users/cp/memories/", {"content": "用户在腾讯工作", "type": "fact",
                                                                  "key": "employer", "value": "腾讯",
                                                                  "source": "user_stated"}, format="json")
        assert corrected.json()["action"] == "superseded_previous"
        status, body, _ = call("GET", other + "users/cp/profile/", key)
        assert "腾讯" in shown(body) and "阿里巴巴" not in shown(body)
        status, context, _ = call("POST", other + "context/", key, {"user_id": "cp", "query": "帮我写个自我介绍"})
        text = "\n".join(i["text"] for name in ("profile", "long_term_memory") for i in context["sections"][name])
        assert "腾讯" in text and "阿里巴巴" not in text
        # A summary written here (as the distillation job in a worker does) is read there at once.
        assert api_client.put(f"{API}users/cp/profile/summary/", {"summary": "在腾讯做产品。"},
                              format="json").status_code == 200
        status, body, _ = call("GET", other + "users/cp/profile/", key)
        assert body["summary"] == "在腾讯做产品。"
    finally:
        stop_group(proc, timeout=30)
        log.close()

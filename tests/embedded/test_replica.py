"""A read replica for retrieval, against a real streaming standby (project/replica.py): the bundled project with
DATABASE_REPLICA_URL reads contexts from the replica; a user who just wrote reads their write at once (the
primary answers until the replica has replayed it), while the replica's lag is visible to reads nobody waited
for; a replica that stops sends reads to the primary."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from agentmemory.api_keys import create_api_key
from agentmemory.embedded import database_url
from agentmemory.memory.write import write_memory
from agentmemory.types import MemoryDraft
from project.replica import replica_unavailable_reason, sql, start_replica
from tests.live_helpers import call, free_port, stop_group, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
API = "/api/agentmemory/"


def _memory_text(body: dict) -> str:
    return "\n".join(i["text"] for name in ("profile", "long_term_memory") for i in body["sections"][name])


@pytest.mark.django_db(transaction=True)
def test_contexts_read_the_replica_and_a_user_reads_their_own_writes(tmp_path):
    reason = replica_unavailable_reason(connection.settings_dict)
    if reason:
        pytest.skip(f"no streaming replica here: {reason}")
    _key, key = create_api_key("replica", scopes=["read", "write", "admin"])
    replica = start_replica(connection.settings_dict)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL", "REDIS_URL")}
    env.update({"AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"], "OMP_NUM_THREADS": "1",
                "AGENTMEMORY_DATA_DIR": str(ROOT / ".agentmemory"), "AGENTMEMORY_LOG_LEVEL": "WARNING",
                "DATABASE_REPLICA_URL": database_url(replica.settings)})
    log = tmp_path / "web.log"
    proc = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                            cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}{API}"

    def context(user: str) -> dict:
        status, body, _ = call("POST", base + "context/", key, {"user_id": user, "query": "帮我写个自我介绍"})
        assert status == 200, body
        return body

    def until(predicate, what: str, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while not (value := predicate()):
            assert time.monotonic() < deadline, f"{what}\n{log.read_text()[-3000:]}"
            time.sleep(0.2)
        return value

    try:
        wait_until_healthy(base, key, proc, timeout=120, log=str(log))
        for user in ("ann", "bob"):
            call("POST", base + f"users/{user}/memories/", key, {"content": "用户在阿里巴巴工作", "type": "fact",
                                                                "key": "employer", "source": "user_stated"})
        # Streaming catches up in moments: then contexts are read from the replica.
        until(lambda: context("bob")["trace"]["reads"] == "replica", "contexts never read the replica")
        assert "阿里巴巴" in _memory_text(context("bob"))

        # The replica stops replaying: what it serves now lags behind the primary.
        sql(replica, "SELECT pg_wal_replay_pause()")
        until(lambda: sql(replica, "SELECT pg_get_wal_replay_pause_state()") == "paused", "replay did not pause")
        _status, body, _ = call("POST", base + "users/ann/memories/", key, {
            "content": "用户在腾讯工作", "type": "fact", "key": "employer", "source": "user_stated"})
        assert body["action"] == "superseded_previous"
        ann = context("ann")  # the writer reads their write at once: the primary answers
        assert ann["trace"]["reads"] == "default"
        assert "腾讯" in _memory_text(ann) and "阿里巴巴" not in _memory_text(ann)
        # A write this web process did not make (another process, no shared cache here): bob's context still
        # comes from the lagging replica, which does not have it yet.
        write_memory("bob", MemoryDraft(content="用户在字节跳动工作", type="fact", key="employer",
                                        source="user_stated"))
        bob = context("bob")
        assert bob["trace"]["reads"] == "replica" and "字节跳动" not in _memory_text(bob)

        sql(replica, "SELECT pg_wal_replay_resume()")
        until(lambda: "字节跳动" in _memory_text(context("bob")), "the replica did not catch up")
        until(lambda: context("ann")["trace"]["reads"] == "replica", "ann's reads did not return to the replica")
        assert "腾讯" in _memory_text(context("ann"))

        # The replica goes away: reads go to the primary, nothing fails.
        replica.stop()
        after = context("ann")
        assert after["trace"]["reads"] == "default" and "腾讯" in _memory_text(after)
    finally:
        stop_group(proc, timeout=30)
        replica.stop()

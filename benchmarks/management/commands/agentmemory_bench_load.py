"""Load benchmark: concurrent clients on loopback against gunicorn and a real Celery worker.

Each client has its own end user and session and, for the whole run, appends turns and in between
writes a memory, searches its memories or builds a context. The table gives per endpoint the count,
errors and p50/p95/p99; then every acknowledged turn is read back: present, once, in order. It prints
what it measured and asserts nothing (tests/api/test_load_smoke.py runs a short version).

    python manage.py agentmemory_bench_load --clients 50 --seconds 60
    python manage.py agentmemory_bench_load --topology [--replica]   # the production shape (project.serve)

``--topology`` runs against ``python -m project.serve --topology``: gunicorn with several processes, one Celery
worker per workload queue, beat, and one Redis cache shared by all; ``--replica`` adds a streaming standby of the
embedded PostgreSQL as the read replica, and the table says where the contexts read.
"""
from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from django.core.management.base import CommandError
from django.db import connection

from benchmarks.command import BenchCommand

ENDPOINTS = ("session", "turn", "memory_write", "memory_search", "context")
QUERIES = ["我们的预算是多少？", "上次说的项目进展如何？", "What did I say about the deadline?", "我喜欢什么样的回答？"]


@dataclass
class ClientLog:
    user_id: str
    session_id: str = ""
    acknowledged: list[tuple[int, str]] = field(default_factory=list)  # (seq, content) of 201 turns
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    reads: Counter = field(default_factory=Counter)  # where each context read (its trace's "reads")


@dataclass
class LoadResult:
    clients: int
    seconds: float
    logs: list[ClientLog]
    lost_turns: int
    misordered_sessions: int
    duplicated_turns: int

    def count(self, endpoint: str) -> int:
        return sum(len(log.latencies[endpoint]) for log in self.logs)

    def errors(self, endpoint: str | None = None) -> int:
        names = [endpoint] if endpoint else ENDPOINTS
        return sum(len(log.errors[name]) for log in self.logs for name in names)

    def reads(self) -> Counter:
        return sum((log.reads for log in self.logs), Counter())

    def percentile(self, endpoint: str, q: float) -> float:
        values = sorted(v for log in self.logs for v in log.latencies[endpoint])
        if not values:
            return float("nan")
        return values[min(len(values) - 1, int(q * len(values)))]


class _Http:
    """A new connection per request: a retried POST could write twice, so nothing is retried."""

    def __init__(self, base_url: str, key: str):
        parts = urlsplit(base_url)
        self.host, self.port, self.prefix = parts.hostname, parts.port, parts.path.rstrip("/")
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                        "Connection": "close"}

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        data = json.dumps(body).encode() if body is not None else None
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            conn.request(method, self.prefix + path, body=data, headers=self.headers)
            response = conn.getresponse()
            raw = response.read()
            return response.status, (json.loads(raw) if raw else None)
        finally:
            conn.close()


def _client(base_url: str, key: str, log: ClientLog, until: float) -> None:
    http_ = _Http(base_url, key)

    def timed(name: str, method: str, path: str, body: dict | None, ok: tuple[int, ...]):
        start = time.perf_counter()
        try:
            status, payload = http_.request(method, path, body)
        except Exception as exc:
            log.errors[name].append(f"{type(exc).__name__}: {exc}")
            return None
        log.latencies[name].append((time.perf_counter() - start) * 1000)
        if status not in ok:
            log.errors[name].append(f"{status}: {json.dumps(payload, ensure_ascii=False)[:200]}")
            return None
        return payload

    created = timed("session", "POST", "/sessions/", {"user_id": log.user_id}, (201,))
    if created is None:
        return
    log.session_id = created["id"]
    n = 0
    while time.monotonic() < until:
        n += 1
        content = f"第 {n} 轮：我们的项目预算是 {n * 1000} 元，截止日期是周五。" if n % 3 else f"turn {n}: ok, thanks"
        turn = timed("turn", "POST", f"/sessions/{log.session_id}/turns/", {"role": "user", "content": content},
                     (201,))
        if turn is not None:
            log.acknowledged.append((turn["turn"]["seq"], content))
        step = n % 4
        if step == 0:
            timed("memory_write", "POST", f"/users/{log.user_id}/memories/",
                  {"content": f"用户的第 {n} 个偏好：回答要简短", "type": "preference", "source": "user_stated"},
                  (200, 201))
        elif step == 1:
            timed("memory_search", "POST", f"/users/{log.user_id}/memories/search/",
                  {"query": QUERIES[n % len(QUERIES)]}, (200,))
        elif step == 2:
            context = timed("context", "POST", "/context/", {"user_id": log.user_id, "session_id": log.session_id,
                                                              "query": QUERIES[n % len(QUERIES)]}, (200,))
            if context is not None:
                log.reads[str(context.get("trace", {}).get("reads", "?"))] += 1


def _verify_turns(base_url: str, key: str, log: ClientLog) -> tuple[int, bool, int]:
    """(lost, misordered, duplicated) for one client's acknowledged turns, read back through the API."""
    if not log.session_id:
        return 0, False, 0
    http_ = _Http(base_url, key)
    stored: list[tuple[int, str]] = []
    after = 0
    while True:
        status, page = http_.request("GET", f"/sessions/{log.session_id}/turns/?after={after}&limit=500")
        if status != 200:
            raise CommandError(f"reading turns back failed: {status} {page}")
        rows = page["results"]
        stored += [(row["seq"], row["content"]) for row in rows]
        if len(rows) < 500:
            break
        after = rows[-1]["seq"]
    seqs = [seq for seq, _ in stored]
    duplicated = len(seqs) - len(set(seqs))
    present = set(stored)
    lost = sum(1 for turn in log.acknowledged if turn not in present)
    order = [seq for seq, _ in log.acknowledged]
    return lost, order != sorted(order) or seqs != sorted(seqs), duplicated


def run_load(base_url: str, key: str, *, clients: int, seconds: float) -> LoadResult:
    """Run ``clients`` concurrent clients for ``seconds`` against ``base_url`` (the app's API root)."""
    run_id = uuid.uuid4().hex[:8]
    logs = [ClientLog(user_id=f"load-{run_id}-{i}") for i in range(clients)]
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=_client, args=(base_url, key, log, until), daemon=True) for log in logs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 300)
    lost = misordered = duplicated = 0
    for log in logs:
        log_lost, log_misordered, log_duplicated = _verify_turns(base_url, key, log)
        lost += log_lost
        misordered += int(log_misordered)
        duplicated += log_duplicated
    return LoadResult(clients, seconds, logs, lost, misordered, duplicated)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Command(BenchCommand):
    help = "Concurrent clients against gunicorn and a real Celery worker: latency per endpoint, errors, lost turns."

    def add_arguments(self, parser):
        parser.add_argument("--clients", type=int, default=50)
        parser.add_argument("--seconds", type=float, default=60.0)
        parser.add_argument("--url", help="API root of a server already running (with --key); default: start "
                                          "gunicorn and a worker on this database")
        parser.add_argument("--key", help="API key for --url")
        parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
        parser.add_argument("--threads", type=int, default=16, help="threads per gunicorn worker (default 16)")
        parser.add_argument("--topology", action="store_true",
                            help="start python -m project.serve --topology (queues per workload, beat, shared cache)")
        parser.add_argument("--replica", action="store_true",
                            help="with --topology: a streaming standby of the embedded PostgreSQL as read replica")

    def handle(self, *args, clients: int, seconds: float, url: str | None, key: str | None, workers: int,
               threads: int, topology: bool, replica: bool, **options):
        if url:
            if not key:
                raise CommandError("--url needs --key")
            self._report(run_load(url, key, clients=clients, seconds=seconds), "given server")
            return
        from agentmemory.api_keys import create_api_key

        if replica and not topology:
            raise CommandError("--replica needs --topology")
        _key, raw = create_api_key(f"bench-load-{uuid.uuid4().hex[:8]}")
        processes = self._start_topology(workers, threads, replica) if topology else self._start(workers, threads)
        try:
            base = f"http://127.0.0.1:{processes['port']}/api/agentmemory"
            self._wait_ready(base, raw, processes)
            result = run_load(base, raw, clients=clients, seconds=seconds)
        finally:
            for proc in processes["procs"]:
                proc.terminate()
            for proc in processes["procs"]:
                try:
                    proc.wait(60)
                except subprocess.TimeoutExpired:
                    proc.kill()
        where = (f"project.serve --topology: gunicorn {workers}x{threads} (gthread), a Celery worker per queue, "
                 f"beat, one Redis cache{', a streaming read replica' if replica else ''}" if topology else
                 f"gunicorn {workers}x{threads} (gthread) + 1 Celery worker")
        self._report(result, where)

    def _environment(self) -> tuple[Path, dict, object]:
        from django.conf import settings

        root = Path(settings.BASE_DIR) if hasattr(settings, "BASE_DIR") else Path.cwd()
        broker = os.environ.get("CELERY_BROKER_URL") or self._broker()
        db = connection.settings_dict
        from agentmemory.embedded import database_url

        # The database exactly as this process reaches it: the given DATABASE_URL, else every part of its
        # settings (password and options included).
        env = {**os.environ, "DATABASE_URL": os.environ.get("DATABASE_URL") or database_url(db),
               "CELERY_BROKER_URL": broker, "OMP_NUM_THREADS": "1", "DEBUG": "false",
               "CONN_MAX_AGE": "60", "AGENTMEMORY_LOG_LEVEL": "WARNING"}
        (root / ".agentmemory").mkdir(exist_ok=True)
        return root, env, open(root / ".agentmemory" / "bench_load.log", "ab")

    def _start_topology(self, workers: int, threads: int, replica: bool) -> dict:
        root, env, log = self._environment()
        broker = env["CELERY_BROKER_URL"]
        if not os.environ.get("REDIS_URL") and broker.startswith("redis://"):
            # One cache for every process, as the topology needs for read-your-writes across processes: the
            # broker's Redis, the database after the broker's.
            server, _, db = broker.rpartition("/")
            env["REDIS_URL"] = f"{server}/{(int(db) + 1) % 16 if db.isdigit() else 1}"
        port = _free_port()
        prefix = os.environ.get("AGENTMEMORY_QUEUE_PREFIX", "bench-load")
        command = [sys.executable, "-m", "project.serve", "--topology", "--port", str(port), "--web-workers",
                   str(workers), "--web-threads", str(threads), "--no-access-log", "--queue-prefix", prefix,
                   *(["--replica"] if replica else [])]
        serve = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        return {"port": port, "procs": [serve]}

    def _start(self, workers: int, threads: int) -> dict:
        root, env, log = self._environment()
        gunicorn = Path(sys.executable).parent / "gunicorn"
        if not gunicorn.exists():
            raise CommandError("gunicorn is not installed: pip install 'agentmemory[dev]'.")
        port = _free_port()
        web = subprocess.Popen([str(gunicorn), "project.wsgi:application", "-b", f"127.0.0.1:{port}",
                                "-w", str(workers), "-k", "gthread", "--threads", str(threads), "--timeout", "300"],
                               cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        worker = subprocess.Popen([str(Path(sys.executable).parent / "celery"), "-A", "project", "worker",
                                   "--pool=solo", "-c", "1", "-l", "WARNING"], cwd=root, env=env, stdout=log,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        return {"port": port, "procs": [web, worker]}

    def _broker(self) -> str:
        from agentmemory.embedded import embedded_redis_url, redis_listening

        return "redis://127.0.0.1:6379/14" if redis_listening() else embedded_redis_url()

    def _wait_ready(self, base: str, key: str, processes: dict) -> None:
        deadline = time.monotonic() + 120
        http_ = _Http(base, key)
        while time.monotonic() < deadline:
            try:
                if http_.request("GET", "/health/")[0] == 200:
                    return
            except OSError:
                pass
            if any(p.poll() is not None for p in processes["procs"]):
                raise CommandError("gunicorn or the worker exited; see .agentmemory/bench_load.log")
            time.sleep(0.5)
        raise CommandError("the server did not answer in 120 s")

    def _report(self, result: LoadResult, where: str) -> None:
        out = self.stdout
        out.write(f"{result.clients} clients for {result.seconds:.0f} s against {where}")
        out.write(f"{'endpoint':<15} {'requests':>9} {'errors':>7} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9}")
        for name in ENDPOINTS:
            out.write(f"{name:<15} {result.count(name):>9} {result.errors(name):>7} "
                      f"{result.percentile(name, 0.50):>9.1f} {result.percentile(name, 0.95):>9.1f} "
                      f"{result.percentile(name, 0.99):>9.1f}")
        total = sum(result.count(n) for n in ENDPOINTS)
        out.write(f"total: {total} requests, {total / result.seconds:.1f}/s, {result.errors()} errors; "
                  f"acknowledged turns {sum(len(log.acknowledged) for log in result.logs)}, lost "
                  f"{result.lost_turns}, duplicated {result.duplicated_turns}, sessions out of order "
                  f"{result.misordered_sessions}")
        reads = result.reads()
        if reads:
            out.write("contexts read from: " + ", ".join(f"{where} {n}" for where, n in reads.most_common()))
        shown = [e for log in result.logs for name in ENDPOINTS for e in log.errors[name]][:5]
        for error in shown:
            out.write(f"  error: {error}")

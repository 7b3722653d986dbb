"""Connection pooling: the bundled project served through Django's psycopg pool, and through PgBouncer in
transaction mode (a server connection per transaction, no session state kept between them). The same mix of
work runs through REST from concurrent clients: memory writes and corrections, contexts, a document import and
search, sessions with turns and extraction, feedback; no request fails and every write is there."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection

from agentmemory.api_keys import create_api_key
from agentmemory.models import MemoryItem, Turn
from tests.live_helpers import call, free_port, stop_group, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
API = "/api/agentmemory/"
PGBOUNCER = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None)


def _pgbouncer(tmp_path: Path) -> tuple[subprocess.Popen, int]:
    """PgBouncer in transaction mode in front of the test database (its Unix socket)."""
    settings = connection.settings_dict
    port = free_port()
    # Its own directory under /tmp (pytest's tmp_path is private to this user; PgBouncer may run as another).
    work = Path(tempfile.mkdtemp(prefix="am-pgbouncer-"))
    work.chmod(0o777)
    (work / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"{settings['NAME']} = host={settings['HOST'] or '127.0.0.1'} port={settings['PORT'] or 5432} "
        f"dbname={settings['NAME']} user={settings['USER']}"
        + (f" password={settings['PASSWORD']}" if settings["PASSWORD"] else "") + "\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        "auth_type = any\npool_mode = transaction\ndefault_pool_size = 4\nmax_client_conn = 200\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
        f"logfile = {work / 'pgbouncer.log'}\npidfile = {work / 'pgbouncer.pid'}\n")
    command = [PGBOUNCER, str(work / "pgbouncer.ini")]
    if os.getuid() == 0:  # PgBouncer refuses to run as root: run it as the database's owner
        owner = Path(settings["HOST"]).owner() if settings["HOST"].startswith("/") else "postgres"
        command[1:1] = ["-u", owner]
    proc = subprocess.Popen(command, stdout=(work / "stdout.log").open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 20
    import socket

    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            log = "".join(p.read_text() for p in (work / "pgbouncer.log", work / "stdout.log") if p.exists())
            assert proc.poll() is None and time.monotonic() < deadline, f"pgbouncer did not start\n{log}"
            time.sleep(0.2)


def _serve(tmp_path: Path, extra: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL", "REDIS_URL")}
    env.update({"AGENTMEMORY_EMBEDDED_DB_NAME": connection.settings_dict["NAME"], "OMP_NUM_THREADS": "1",
                "AGENTMEMORY_DATA_DIR": str(ROOT / ".agentmemory"), "AGENTMEMORY_LOG_LEVEL": "WARNING", **extra})
    log = tmp_path / "web.log"
    proc = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                            cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    return proc, f"http://127.0.0.1:{port}{API}"


def _work(base: str, key: str, client: int) -> list[tuple[str, int]]:
    """One client's share: what a user and an operator do, each answer's status kept."""
    user = f"pool-user-{client}"
    out = []

    def do(name, method, path, body=None):
        status, answer, _ = call(method, base + path, key, body)
        out.append((name, status))
        return answer

    do("write", "POST", f"users/{user}/memories/", {"content": "用户在阿里巴巴工作", "type": "fact",
                                                    "key": "employer", "source": "user_stated"})
    do("correct", "POST", f"users/{user}/memories/", {"content": "用户在腾讯工作", "type": "fact",
                                                      "key": "employer", "source": "user_stated"})
    context = do("context", "POST", "context/", {"user_id": user, "query": "我在哪家公司工作？"})
    if context and context.get("context_id"):
        do("feedback", "POST", f"contexts/{context['context_id']}/feedback/", {"rating": 1})
    session = do("session", "POST", "sessions/", {"user_id": user})
    if session:
        for text in ("我们公司是做跨境物流的。", "预算是二十万元。"):
            do("turn", "POST", f"sessions/{session['id']}/turns/", {"role": "user", "content": text})
        do("end", "POST", f"sessions/{session['id']}/end/")
    do("search", "POST", "search/", {"query": "X-200 功率"})
    do("recall", "POST", f"users/{user}/memories/search/", {"query": "公司", "top_k": 3})
    return out


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["psycopg_pool", "pgbouncer_transaction"])
def test_the_product_works_through_a_connection_pool(mode, tmp_path):
    if mode == "pgbouncer_transaction" and PGBOUNCER is None:
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer; make test installs it)")
    if mode == "psycopg_pool":
        pytest.importorskip("psycopg_pool", reason="psycopg-pool is not installed (pip install agentmemory[pool])")
    _key, key = create_api_key(f"pool-{mode}", scopes=["read", "write", "admin"])
    bouncer = None
    if mode == "pgbouncer_transaction":
        bouncer, port = _pgbouncer(tmp_path)
        user = connection.settings_dict["USER"]
        extra = {"DATABASE_URL": f"postgres://{user}@127.0.0.1:{port}/{connection.settings_dict['NAME']}",
                 "DATABASE_PGBOUNCER": "1"}
    else:
        extra = {"DATABASE_POOL": "4"}
    proc, base = _serve(tmp_path, extra)
    try:
        wait_until_healthy(base, key, proc, timeout=120, log=str(tmp_path / "web.log"))
        status, job, _ = call("POST", base + "knowledge-bases/", key, {"slug": "pool-kb", "name": "pool"})
        assert status == 201, job
        status, job, _ = call("POST", base + "knowledge-bases/pool-kb/documents/", key, {
            "title": "X-200", "content": "# X-200\n## 参数\nX-200 的功率是 15W，电压 220V。"})
        assert status in (200, 201, 202), job
        deadline = time.monotonic() + 60  # the import runs in the background without a broker
        while not call("POST", base + "search/", key, {"query": "X-200 功率"})[1]["hits"]:
            assert time.monotonic() < deadline, "the document was not imported"
            time.sleep(0.5)
        with ThreadPoolExecutor(max_workers=6) as pool:
            results = [r for part in pool.map(lambda c: _work(base, key, c), range(12)) for r in part]
        failed = [r for r in results if r[1] >= 400]
        assert not failed, (failed, (tmp_path / "web.log").read_text()[-3000:])
        assert len(results) >= 12 * 9
        # Every write is there, once: the corrections won, every turn was kept.
        for client in range(12):
            current = MemoryItem.objects.for_user(f"pool-user-{client}").current().filter(key="employer")
            assert [m.content for m in current] == ["用户在腾讯工作"]
        assert Turn.objects.filter(session__user_id__startswith="pool-user-").count() == 24
        status, hits, _ = call("POST", base + "search/", key, {"query": "X-200 的功率是多少"})
        assert status == 200 and "15W" in hits["hits"][0]["text"]
        if bouncer is not None:  # the web process did go through PgBouncer
            bouncer_log = (Path(bouncer.args[-1]).parent / "pgbouncer.log").read_text()
            assert f"login attempt: db={connection.settings_dict['NAME']}" in bouncer_log
    finally:
        stop_group(proc, timeout=30)
        if bouncer is not None:
            stop_group(bouncer, timeout=10)
            shutil.rmtree(bouncer.args[-1].rsplit("/", 1)[0], ignore_errors=True)

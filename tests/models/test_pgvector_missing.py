"""Against a real PostgreSQL without pgvector (the machine's own server), check and migrate say so."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OTHER_PG = os.environ.get("AGENTMEMORY_PLAIN_PG_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def _reachable(host: str = "127.0.0.1", port: int = 5432) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _manage(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": OTHER_PG}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not _reachable(), reason="no plain PostgreSQL on 127.0.0.1:5432")
def test_check_names_missing_pgvector_with_a_hint():
    import psycopg

    with psycopg.connect(OTHER_PG.replace("postgres://", "postgresql://")) as conn:
        has_vector = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is not None
    result = _manage("check", "--database", "default")
    if has_vector:
        assert "agentmemory.E006" not in result.stdout + result.stderr
    else:
        assert result.returncode != 0
        assert "agentmemory.E006" in result.stderr
        assert "pgvector is not installed" in result.stderr
        assert "Traceback" not in result.stderr

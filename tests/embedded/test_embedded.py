"""The embedded PostgreSQL helper survives a handle file left empty by a process killed mid-write."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_an_empty_handle_file_does_not_stop_the_next_process():
    from project.embedded import DEFAULT_DATA_DIR

    handles = DEFAULT_DATA_DIR / "pgdata" / ".handle_pids.json"
    assert handles.exists()
    saved = handles.read_text()
    try:
        handles.write_text("")  # as a process killed in the middle of rewriting it leaves it
        code = "import django; django.setup(); from django.db import connection; connection.ensure_connection(); print('ok')"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "project.settings"}
        env.pop("DATABASE_URL", None)
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
    finally:
        if not handles.read_text().strip():
            handles.write_text(saved or "[]")

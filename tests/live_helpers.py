"""HTTP helpers for the tests that start a real server process."""
from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(method: str, url: str, key: str, body: dict | None = None) -> tuple[int, dict | None, str]:
    """(status, JSON body or None, content type) of one request with an API key; HTTP errors included."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers["Content-Type"]
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw), exc.headers["Content-Type"]
        except ValueError:
            return exc.code, None, exc.headers["Content-Type"]


def wait_until_healthy(base: str, key: str, process: subprocess.Popen, *, timeout: float = 120.0,
                       log: str = "") -> None:
    """Poll ``base``/health/ until it answers 200; fail early when the server process exits."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if call("GET", base + "health/", key)[0] == 200:
                return
        except OSError:
            pass
        assert process.poll() is None and time.monotonic() < deadline, f"the server did not start\n{log}"
        time.sleep(0.3)


def stop_group(process: subprocess.Popen, *, timeout: float = 30.0) -> None:
    """Stop a process started in its own group (start_new_session): SIGTERM, then SIGKILL after ``timeout``."""
    import os
    import signal

    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)

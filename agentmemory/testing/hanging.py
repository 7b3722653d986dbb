"""A local TCP server that accepts connections and never answers: a hung backend, for fault tests."""
from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def hanging_server() -> Iterator[str]:
    """Yield ``http://127.0.0.1:PORT``; every connection is accepted, read from, and never answered."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _addr = server.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=accept, name="agentmemory-hanging-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()

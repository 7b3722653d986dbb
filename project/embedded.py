"""The bundled project's embedded servers: agentmemory.embedded, with data in the checkout's .agentmemory/."""
from __future__ import annotations

import os
from pathlib import Path

from agentmemory.embedded import embedded_database as _embedded_database
from agentmemory.embedded import embedded_redis_url as _embedded_redis_url
from agentmemory.embedded import redis_listening  # noqa: F401  (used by the tests' conftest)
from agentmemory.embedded import stop_embedded_postgres as _stop_embedded_postgres

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = Path(os.environ.get("AGENTMEMORY_DATA_DIR") or BASE_DIR / ".agentmemory")


def embedded_database(name: str = "agentmemory", data_dir: Path | None = None) -> dict:
    return _embedded_database(name, data_dir or DEFAULT_DATA_DIR)


def stop_embedded_postgres(data_dir: Path | None = None) -> None:
    _stop_embedded_postgres(data_dir or DEFAULT_DATA_DIR)


def embedded_redis_url(data_dir: Path | None = None) -> str:
    return _embedded_redis_url(data_dir or DEFAULT_DATA_DIR)

"""Pluggable backends (embedders, extractors, summarizers, rerankers), resolved from settings on use.

All network code in agentmemory lives under this package.
"""
from __future__ import annotations

import os
import threading
from typing import Any

from django.utils.module_loading import import_string

from ..conf import app_settings
from ..exceptions import ConfigurationError

_instances: dict[str, Any] = {}
_lock = threading.Lock()


def load_backend(setting: str) -> Any | None:
    """Instantiate (once per process) the backend class named by AGENTMEMORY[setting]; None if empty."""
    path = getattr(app_settings, setting)
    if not path:
        return None
    key = f"{setting}:{path}"
    inst = _instances.get(key)
    if inst is not None:
        return inst
    with _lock:
        inst = _instances.get(key)
        if inst is None:
            try:
                cls = import_string(path)
            except ImportError as exc:
                raise ConfigurationError(
                    f"AGENTMEMORY[{setting!r}] = {path!r} cannot be imported: {exc}"
                ) from exc
            inst = cls()
            _instances[key] = inst
    return inst


def reset_backends() -> None:
    """Forget cached backend instances (on setting_changed, and in tests)."""
    with _lock:
        _instances.clear()


# A forked child (gunicorn --preload, Celery prefork) inherits the parent's backend objects but not
# their threads: the bundled model's engine thread, for one, would never answer. Start afresh.
def _reset_after_fork() -> None:
    global _instances, _lock
    _instances, _lock = {}, threading.Lock()  # a lock held by a parent thread would never be released


os.register_at_fork(after_in_child=_reset_after_fork)


def get_embedder():
    """The configured embedder (see agentmemory.backends.embeddings.base.Embedder)."""
    return load_backend("EMBEDDER")

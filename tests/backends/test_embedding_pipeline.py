"""The bulk embedding pipeline embeds one batch ahead of the caller and reports a refused batch in place."""
from __future__ import annotations

import threading
import time

import numpy as np

from agentmemory.backends.embeddings.pipeline import embed_batches
from agentmemory.exceptions import EmbeddingError


def test_the_next_batch_embeds_while_the_caller_stores_the_current_one():
    events: list[str] = []
    lock = threading.Lock()

    def embed(texts):
        with lock:
            events.append(f"embed {texts[0]} start")
        time.sleep(0.05)
        with lock:
            events.append(f"embed {texts[0]} end")
        return np.zeros((len(texts), 2), dtype=np.float32)

    def batches():
        for name in ("a", "b", "c"):
            with lock:
                events.append(f"prepare {name}")
            yield name, [name]

    for key, vectors in embed_batches(batches(), embed):
        assert vectors.shape == (1, 2)
        with lock:
            events.append(f"store {key}")
        time.sleep(0.05)
    # b was prepared and submitted before a was stored; c before b was stored
    assert events.index("prepare b") < events.index("store a")
    assert events.index("prepare c") < events.index("store b")
    assert [e for e in events if e.startswith("store")] == ["store a", "store b", "store c"]


def test_a_refused_batch_is_yielded_as_its_error_and_later_batches_still_run():
    def embed(texts):
        if texts == ["bad"]:
            raise EmbeddingError("server said 503")
        return np.ones((len(texts), 2), dtype=np.float32)

    out = list(embed_batches(((t, [t]) for t in ("ok1", "bad", "ok2")), embed))
    assert [k for k, _v in out] == ["ok1", "bad", "ok2"]
    assert isinstance(out[1][1], EmbeddingError) and out[2][1].shape == (1, 2)

"""A prefetched question goes straight to the bundled model's own thread, with the query cache's guarantees:
the same vector as embed_query (unit length, read-only), one computation for concurrent callers, and a
failure remembered for the layers of one request. The real bundled model; a wrapper counts its calls."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from agentmemory.backends import get_embedder
from agentmemory.exceptions import EmbeddingError


@pytest.fixture
def embedder():
    embedder = get_embedder()
    embedder.clear_query_cache()
    yield embedder
    embedder.clear_query_cache()


class _Counting:
    """The model, counting its calls (and failing on purpose when told to)."""

    def __init__(self, model) -> None:
        self.model, self.calls, self.fail, self.gate = model, [], False, None

    def encode(self, texts, is_query):
        self.calls.append((tuple(texts), is_query))
        if self.gate is not None:
            self.gate.wait(5)
        if self.fail:
            raise RuntimeError("engine down")
        return self.model.encode(texts, is_query)

    def __getattr__(self, name):
        return getattr(self.model, name)


@pytest.fixture
def counting(embedder, monkeypatch):
    wrapper = _Counting(embedder._model)
    monkeypatch.setattr(embedder, "_model", wrapper)
    return wrapper


def test_a_prefetched_question_is_embed_querys_vector_on_the_models_own_thread(embedder, counting):
    assert embedder._query_submitter() is not None
    future = embedder.prefetch_query("公司所在的行业是什么？")
    vector = future.result(timeout=30)
    assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-5
    assert not vector.flags.writeable
    assert embedder.embed_query("公司所在的行业是什么？") is vector  # cached: no second computation
    assert counting.calls == [(("公司所在的行业是什么？",), True)]
    embedder.clear_query_cache()
    again = embedder.embed_queries(["公司所在的行业是什么？"])[0]
    assert float(np.dot(again, vector)) > 0.99999


def test_concurrent_callers_of_one_question_share_one_computation(embedder, counting):
    counting.gate = threading.Event()
    future = embedder.prefetch_query("X-200 的功率")
    results = []
    threads = [threading.Thread(target=lambda: results.append(embedder.embed_query("X-200 的功率")))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    second = embedder.prefetch_query("X-200 的功率")  # in flight: waits for the first, computes nothing
    counting.gate.set()
    for thread in threads:
        thread.join(10)
    first = future.result(timeout=30)
    assert second.result(timeout=30) is first
    assert len(results) == 3 and all(r is first for r in results)
    assert counting.calls == [(("X-200 的功率",), True)]


def test_a_failed_prefetch_is_an_embedding_error_remembered_for_a_moment(embedder, counting):
    counting.fail = True
    future = embedder.prefetch_query("会失败的问题")
    with pytest.raises(EmbeddingError, match="engine down"):
        future.result(timeout=30)
    with pytest.raises(EmbeddingError):  # the same failure, without asking the model again
        embedder.embed_query("会失败的问题")
    with pytest.raises(EmbeddingError):
        embedder.prefetch_query("会失败的问题").result(timeout=5)
    assert len(counting.calls) == 1
    counting.fail = False
    embedder.clear_query_cache()  # forgets the failure too
    assert embedder.prefetch_query("会失败的问题").result(timeout=30).shape == (384,)

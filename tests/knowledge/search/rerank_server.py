"""A local rerank server speaking the real /rerank protocols (Jina/Cohere and TEI) for tests.

Scores are a pure function of the texts: the fraction of the query's characters found in the
passage, minus ``offset``, so a test knows which passage must come first.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer

from agentmemory.testing.openai_server import JSONHandler


def overlap(query: str, passage: str) -> float:
    chars = {c for c in query if not c.isspace()}
    return sum(1 for c in chars if c in passage) / max(len(chars), 1)


class RerankServer:
    def __init__(self, *, style: str = "cohere", offset: float = 0.0, delay: float = 0.0, status: int = 200):
        self.style, self.offset, self.delay, self.status = style, offset, delay, status
        self.requests: list[dict] = []
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> RerankServer:
        server = self

        class Handler(JSONHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                server.requests.append({"path": self.path, "body": body})
                if server.delay:
                    time.sleep(server.delay)
                if not self.path.rstrip("/").endswith("/rerank") or server.status != 200:
                    code = 404 if server.status == 200 else server.status
                    return self._send(code, {"error": "scripted failure"})
                if server.style == "tei":
                    texts = body["texts"]
                    scores = [overlap(body["query"], t) - server.offset for t in texts]
                    return self._send(200, sorted(({"index": i, "score": s} for i, s in enumerate(scores)),
                                                  key=lambda r: -r["score"]))
                docs = body["documents"]
                scores = [overlap(body["query"], d) - server.offset for d in docs]
                results = sorted(({"index": i, "relevance_score": s} for i, s in enumerate(scores)),
                                 key=lambda r: -r["relevance_score"])[: body.get("top_n") or len(docs)]
                return self._send(200, {"results": results, "model": body.get("model", "")})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

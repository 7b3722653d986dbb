"""A local OpenAI-compatible chat server for tests: real HTTP, real /v1/chat/completions protocol.

Answers come from a script: a list of strings (or callables taking the request body) consumed in
order; every request body is recorded so tests can check what was sent.

    with OpenAIChatServer(["{\"items\": []}"]) as server:
        settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "test-model"}
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = str | Callable[[dict[str, Any]], str] | int


class JSONHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers JSON (the base of the local protocol servers for tests)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, code: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class OpenAIChatServer:
    def __init__(self, answers: list[Answer] | None = None, *, delay: float = 0.0):
        self.answers: list[Answer] = list(answers or [])
        self.requests: list[dict[str, Any]] = []
        self.usages: list[dict[str, int]] = []
        self.delay = delay
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _next_answer(self, body: dict[str, Any]) -> Answer:
        with self._lock:
            self.requests.append(body)
            if not self.answers:
                return 500
            return self.answers.pop(0)

    def __enter__(self) -> OpenAIChatServer:
        server = self

        class Handler(JSONHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    return self._send(400, {"error": {"message": "invalid JSON"}})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "unknown route"}})
                answer = server._next_answer(body)
                if server.delay:
                    time.sleep(server.delay)
                if isinstance(answer, int):
                    return self._send(answer, {"error": {"message": f"scripted HTTP {answer}"}})
                content = answer(body) if callable(answer) else answer
                # A real server counts tokens with its tokenizer; this one counts characters / 2, and keeps
                # what it reported (``usages``) for tests of the accounting.
                prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages") or []) // 2 + 1
                usage = {"prompt_tokens": prompt, "completion_tokens": len(content) // 2 + 1}
                usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
                server.usages.append(usage)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": usage,
                })

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

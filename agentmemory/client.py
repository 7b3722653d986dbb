"""Python client of the agentmemory REST API, sync (``AgentMemory``) and async (``AsyncAgentMemory``).

Needs only httpx (no Django): it runs wherever the agent runs.

    from agentmemory.client import AgentMemory
    m = AgentMemory("http://127.0.0.1:8000/api/agentmemory", "am_...")
    m.add([{"role": "user", "content": "我们公司是做母婴用品的"}], user_id="u1")
    m.search("帮我写一封营销邮件", user_id="u1")

The mem0 verbs (``add``, ``search``, ``get_all``, ``get``, ``update``, ``delete``, ``delete_all``,
``history``) come first; every other endpoint has a method named for it. Connection errors, 429 and
503 are retried (``Retry-After`` honoured, else exponential backoff); every other error raises one of
the exceptions below, carrying the API's error body.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

RETRY_STATUSES = (429, 503)


# --- errors --------------------------------------------------------------------------------------

class AgentMemoryClientError(Exception):
    """Root of the client's errors: ``status`` (None for network errors), ``error``, ``detail``, ``body``."""

    def __init__(self, message: str, *, status: int | None = None, body: dict | None = None):
        super().__init__(message)
        self.status = status
        self.body = body or {}
        self.error = self.body.get("error", "")
        self.detail = self.body.get("detail", message)
        self.field = self.body.get("field")


class APIConnectionError(AgentMemoryClientError):
    """The server could not be reached (after the retries)."""


class BadRequestError(AgentMemoryClientError):
    """400: invalid input; ``field`` names it."""


class AuthenticationError(AgentMemoryClientError):
    """401: no key, or an invalid, revoked or expired one."""


class PermissionDeniedError(AgentMemoryClientError):
    """403: the key lacks the scope, or may not act for that user or agent."""


class NotFoundError(AgentMemoryClientError):
    """404."""


class ConflictError(AgentMemoryClientError):
    """409 (e.g. an embedding model mismatch)."""


class PayloadTooLargeError(AgentMemoryClientError):
    """413."""


class RateLimitError(AgentMemoryClientError):
    """429 (after the retries)."""


class ServerError(AgentMemoryClientError):
    """5xx (503 after the retries)."""


_BY_STATUS = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
              409: ConflictError, 413: PayloadTooLargeError, 429: RateLimitError}


def _error_for(response: httpx.Response) -> AgentMemoryClientError:
    try:
        body = response.json()
    except ValueError:
        body = {"error": "http_error", "detail": response.text[:500]}
    if not isinstance(body, dict):
        body = {"error": "http_error", "detail": str(body)[:500]}
    cls = _BY_STATUS.get(response.status_code, ServerError if response.status_code >= 500 else AgentMemoryClientError)
    return cls(f"{response.status_code} {body.get('error', '')}: {body.get('detail', '')}",
               status=response.status_code, body=body)


# --- typed results -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Memory:
    """One memory as the mem0-style verbs return it."""

    id: int
    memory: str
    user_id: str
    type: str = ""
    key: str = ""
    source: str = ""
    confidence: float = 0.0
    status: str = ""
    agent_id: str | None = None
    metadata: dict = field(default_factory=dict)
    value: Any = None
    score: float | None = None
    event: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    supersedes: int | None = None
    provenance: dict = field(default_factory=dict)

    @classmethod
    def from_api(cls, data: dict) -> Memory:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Context:
    """The assembled context: the prompt to send, its sections, the trace."""

    prompt: str
    route: str
    sections: dict
    trace: dict
    token_counts: dict
    raw: dict

    @classmethod
    def from_api(cls, data: dict) -> Context:
        return cls(prompt=data.get("prompt", ""), route=data.get("route", ""), sections=data.get("sections", {}),
                   trace=data.get("trace", {}), token_counts=data.get("token_counts", {}), raw=data)


# --- the shared request plumbing -------------------------------------------------------------------

class _Base:
    def __init__(self, url: str, key: str | None = None, *, timeout: float = 30.0, max_retries: int = 3,
                 backoff: float = 0.5, headers: dict | None = None):
        self.url = url.rstrip("/") + "/"
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        self.headers = {"Accept": "application/json", **(headers or {})}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None:
            retry_after = response.headers.get("Retry-After", "")
            if retry_after.strip().isdigit():
                return min(float(retry_after), 60.0)
        return self.backoff * (2 ** attempt)

    @staticmethod
    def _result(response: httpx.Response) -> Any:
        if response.status_code >= 400:
            raise _error_for(response)
        if not response.content:
            return None
        return response.json()

    # Every endpoint, once: (method, path, json, params) for the sync and async clients to send.
    @staticmethod
    def _clean(params: dict | None) -> dict | None:
        return {k: v for k, v in params.items() if v is not None} if params else None


def _memory_list(data: Any) -> list[Memory]:
    return [Memory.from_api(item) for item in (data or {}).get("results", [])]


class AgentMemory(_Base):
    """Synchronous client."""

    def __init__(self, url: str, key: str | None = None, *, transport: httpx.BaseTransport | None = None, **kw):
        super().__init__(url, key, **kw)
        self._http = httpx.Client(base_url=self.url, headers=self.headers, timeout=self.timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> AgentMemory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def request(self, method: str, path: str, *, json: Any = None, params: dict | None = None,
                files: dict | None = None, data: dict | None = None) -> Any:
        """Send one request (path relative to the API root), retrying connection errors, 429 and 503."""
        attempt = 0
        while True:
            response = None
            try:
                response = self._http.request(method, path.lstrip("/"), json=json, params=self._clean(params),
                                              files=files, data=data)
            except httpx.TransportError as exc:
                if attempt >= self.max_retries:
                    raise APIConnectionError(f"{method} {path}: {exc}") from exc
            else:
                if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
                    return self._result(response)
            time.sleep(self._delay(attempt, response))
            attempt += 1

    # mem0 verbs
    def add(self, messages: list[dict] | str, *, user_id: str, agent_id: str | None = None,
            metadata: dict | None = None, infer: bool = True, async_mode: bool = False) -> dict:
        """Remember what ``messages`` say (extracted like a conversation with ``infer``, else stored as given)."""
        return _add_post(self.request("POST", "v1/memories/", json={
            "messages": messages, "user_id": user_id, "agent_id": agent_id or "", "metadata": metadata,
            "infer": infer, "async_mode": async_mode}))

    def search(self, query: str, *, user_id: str, agent_id: str | None = None, filters: dict | None = None,
               top_k: int = 10) -> list[Memory]:
        return _memory_list(self.request("POST", "v1/memories/search/", json={
            "query": query, "user_id": user_id, "agent_id": agent_id, "filters": filters or {}, "top_k": top_k}))

    def get_all(self, *, user_id: str, filters: dict | None = None) -> list[Memory]:
        return _memory_list(self.request("GET", "v1/memories/", params={"user_id": user_id, **(filters or {})}))

    def get(self, memory_id: int) -> Memory:
        return Memory.from_api(self.request("GET", f"v1/memories/{memory_id}/"))

    def update(self, memory_id: int, text: str) -> Memory:
        """Correct a memory: a new version supersedes it (the returned memory has the new id)."""
        return Memory.from_api(self.request("PUT", f"v1/memories/{memory_id}/", json={"text": text}))

    def delete(self, memory_id: int) -> dict:
        return self.request("DELETE", f"v1/memories/{memory_id}/")

    def delete_all(self, *, user_id: str) -> dict:
        return self.request("DELETE", "v1/memories/", params={"user_id": user_id})

    def history(self, memory_id: int) -> list[dict]:
        return self.request("GET", f"v1/memories/{memory_id}/history/")

    # the rest of the API
    def whoami(self) -> dict:
        return self.request("GET", "whoami/")

    def health(self) -> dict:
        return self.request("GET", "health/")

    def list_memories(self, user_id: str, **filters) -> dict:
        return self.request("GET", f"users/{user_id}/memories/", params=filters)

    def write_memory(self, user_id: str, content: str, *, type: str = "fact", source: str = "user_stated",
                     **fields) -> dict:
        return self.request("POST", f"users/{user_id}/memories/",
                            json={"content": content, "type": type, "source": source, **fields})

    def get_memory(self, user_id: str, memory_id: int) -> dict:
        return self.request("GET", f"users/{user_id}/memories/{memory_id}/")

    def correct_memory(self, user_id: str, memory_id: int, **changes) -> dict:
        return self.request("PATCH", f"users/{user_id}/memories/{memory_id}/", json=changes)

    def delete_memory(self, user_id: str, memory_id: int, *, reason: str = "") -> dict:
        return self.request("DELETE", f"users/{user_id}/memories/{memory_id}/", params={"reason": reason or None})

    def memory_history(self, user_id: str, memory_id: int) -> dict:
        return self.request("GET", f"users/{user_id}/memories/{memory_id}/history/")

    def search_memories(self, user_id: str, query: str, **options) -> dict:
        return self.request("POST", f"users/{user_id}/memories/search/", json={"query": query, **options})

    def profile(self, user_id: str, *, agent_id: str | None = None) -> dict:
        return self.request("GET", f"users/{user_id}/profile/", params={"agent_id": agent_id})

    def forget_user(self, user_id: str, *, reason: str = "") -> dict:
        return self.request("DELETE", f"users/{user_id}/", params={"reason": reason or None})

    def create_session(self, user_id: str, *, agent_id: str = "", metadata: dict | None = None) -> dict:
        return self.request("POST", "sessions/", json={"user_id": user_id, "agent_id": agent_id,
                                                       "metadata": metadata or {}})

    def list_sessions(self, user_id: str, *, status: str | None = None) -> dict:
        return self.request("GET", "sessions/", params={"user_id": user_id, "status": status})

    def get_session(self, session_id: str) -> dict:
        return self.request("GET", f"sessions/{session_id}/")

    def set_task_state(self, session_id: str, task_state: dict, *, replace: bool = False) -> dict:
        return self.request("PATCH", f"sessions/{session_id}/", json={"task_state": task_state, "replace": replace})

    def add_turn(self, session_id: str, role: str, content: str, *, metadata: dict | None = None) -> dict:
        return self.request("POST", f"sessions/{session_id}/turns/",
                            json={"role": role, "content": content, "metadata": metadata or {}})

    def turns(self, session_id: str, *, after: int = 0, limit: int = 100) -> dict:
        return self.request("GET", f"sessions/{session_id}/turns/", params={"after": after, "limit": limit})

    def end_session(self, session_id: str) -> dict:
        return self.request("POST", f"sessions/{session_id}/end/")

    def extraction(self, session_id: str) -> dict:
        return self.request("GET", f"sessions/{session_id}/extraction/")

    def context(self, user_id: str, query: str, **options) -> Context:
        return Context.from_api(self.request("POST", "context/", json={"user_id": user_id, "query": query,
                                                                       **options}))

    def answer(self, user_id: str, query: str, **options) -> dict:
        return self.request("POST", "context/answer/", json={"user_id": user_id, "query": query, **options})

    def knowledge_bases(self) -> list[dict]:
        return self.request("GET", "knowledge-bases/")

    def create_knowledge_base(self, slug: str, name: str, **fields) -> dict:
        return self.request("POST", "knowledge-bases/", json={"slug": slug, "name": name, **fields})

    def knowledge_base(self, slug: str) -> dict:
        return self.request("GET", f"knowledge-bases/{slug}/")

    def update_knowledge_base(self, slug: str, **fields) -> dict:
        return self.request("PATCH", f"knowledge-bases/{slug}/", json=fields)

    def reembed(self, slug: str) -> dict:
        return self.request("POST", f"knowledge-bases/{slug}/reembed/")

    def documents(self, slug: str, **params) -> list[dict]:
        return self.request("GET", f"knowledge-bases/{slug}/documents/", params=params)

    def import_text(self, slug: str, content: str, *, title: str = "", format: str = "markdown", **fields) -> dict:
        return self.request("POST", f"knowledge-bases/{slug}/documents/",
                            json={"content": content, "title": title, "format": format, **fields})

    def upload(self, slug: str, path: str, *, title: str = "", **fields) -> dict:
        with open(path, "rb") as handle:
            return self.request("POST", f"knowledge-bases/{slug}/documents/",
                                files={"file": (path.rsplit("/", 1)[-1], handle)},
                                data={"title": title, **fields})

    def document(self, slug: str, document_id: int) -> dict:
        return self.request("GET", f"knowledge-bases/{slug}/documents/{document_id}/")

    def chunks(self, slug: str, document_id: int, *, version: int | None = None) -> list[dict]:
        return self.request("GET", f"knowledge-bases/{slug}/documents/{document_id}/chunks/",
                            params={"version": version})

    def rollback(self, slug: str, document_id: int, version: int) -> dict:
        return self.request("POST", f"knowledge-bases/{slug}/documents/{document_id}/rollback/",
                            json={"version": version})

    def delete_document(self, slug: str, document_id: int, *, purge: bool = False) -> dict:
        return self.request("DELETE", f"knowledge-bases/{slug}/documents/{document_id}/",
                            params={"purge": "true" if purge else None})

    def import_job(self, job_id: int) -> dict:
        return self.request("GET", f"import-jobs/{job_id}/")

    def search_knowledge(self, query: str, *, knowledge_bases: list[str] | None = None, **options) -> dict:
        if knowledge_bases and len(knowledge_bases) == 1:
            return self.request("POST", f"knowledge-bases/{knowledge_bases[0]}/search/", json={"query": query,
                                                                                              **options})
        return self.request("POST", "search/", json={"query": query, "knowledge_bases": knowledge_bases, **options})

    def evaluation_cases(self, slug: str) -> list[dict]:
        return self.request("GET", f"knowledge-bases/{slug}/evaluation-cases/")

    def add_evaluation_case(self, slug: str, query: str, **expected) -> dict:
        return self.request("POST", f"knowledge-bases/{slug}/evaluation-cases/", json={"query": query, **expected})

    def evaluations(self, slug: str) -> list[dict]:
        return self.request("GET", f"knowledge-bases/{slug}/evaluations/")

    def evaluate(self, slug: str) -> dict:
        return self.request("POST", f"knowledge-bases/{slug}/evaluations/")

    def tools(self) -> list[dict]:
        """The tools in OpenAI's function-calling format."""
        return self.request("GET", "tools/")["tools"]

    def call_tool(self, tool_call: dict) -> dict:
        """Run a model's tool call (``{"name", "arguments"}`` or an OpenAI ``tool_calls`` item)."""
        return self.request("POST", "tools/call/", json=tool_call)


class AsyncAgentMemory(_Base):
    """Asynchronous client: the same methods as ``AgentMemory``, awaited."""

    def __init__(self, url: str, key: str | None = None, *, transport: httpx.AsyncBaseTransport | None = None,
                 **kw):
        super().__init__(url, key, **kw)
        self._http = httpx.AsyncClient(base_url=self.url, headers=self.headers, timeout=self.timeout,
                                       transport=transport)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncAgentMemory:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def request(self, method: str, path: str, *, json: Any = None, params: dict | None = None,
                      files: dict | None = None, data: dict | None = None) -> Any:
        attempt = 0
        while True:
            response = None
            try:
                response = await self._http.request(method, path.lstrip("/"), json=json, params=self._clean(params),
                                                    files=files, data=data)
            except httpx.TransportError as exc:
                if attempt >= self.max_retries:
                    raise APIConnectionError(f"{method} {path}: {exc}") from exc
            else:
                if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
                    return self._result(response)
            await asyncio.sleep(self._delay(attempt, response))
            attempt += 1


# The async methods are generated from the sync ones: a sync method is run against a recorder that
# captures the one request it makes; that request is sent asynchronously and the same post-processing
# (_POST_PROCESS, which the sync methods use too) applied to its answer.
class _Recorder:
    """Stands in for a client: captures the request a sync method makes."""

    class _Pending(Exception):
        pass

    def __init__(self):
        self.call: tuple = ()

    def request(self, method, path, **kwargs):
        self.call = ((method, path), kwargs)
        raise self._Pending


def _async_method(name: str):
    sync = getattr(AgentMemory, name)
    post = _POST_PROCESS.get(name)

    async def method(self, *args, **kwargs):
        recorder = _Recorder()
        try:
            sync(recorder, *args, **kwargs)
        except _Recorder._Pending:
            pass
        result = await self.request(*recorder.call[0], **recorder.call[1])
        return post(result) if post else result

    method.__name__ = name
    method.__doc__ = sync.__doc__
    return method


def _add_post(data):
    return {**data, "results": _memory_list(data)} if isinstance(data, dict) and "results" in data else data


_POST_PROCESS = {
    "add": _add_post, "search": _memory_list, "get_all": _memory_list, "get": Memory.from_api,
    "update": Memory.from_api, "context": Context.from_api, "tools": lambda data: data["tools"],
}

for _name in [n for n, v in vars(AgentMemory).items()
              if callable(v) and not n.startswith("_") and n not in ("request", "close", "upload")]:
    setattr(AsyncAgentMemory, _name, _async_method(_name))


async def _async_upload(self, slug: str, path: str, *, title: str = "", **fields) -> dict:
    with open(path, "rb") as handle:
        content = handle.read()
    return await self.request("POST", f"knowledge-bases/{slug}/documents/",
                              files={"file": (path.rsplit("/", 1)[-1], content)}, data={"title": title, **fields})


AsyncAgentMemory.upload = _async_upload

"""The synchronous client: the mem0 verbs first, then a method named for every other endpoint."""
from __future__ import annotations

import time
from typing import Any

import httpx

from .base import AGAIN, BaseClient
from .results import Context, Memory, add_result, memory_list


class AgentMemory(BaseClient):
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
            response = error = None
            try:
                response = self._http.request(method, path.lstrip("/"), json=json, params=self._clean(params),
                                              files=files, data=data)
            except httpx.TransportError as exc:
                error = exc
            answer = self._settle(method, path, attempt, response, error)
            if answer is not AGAIN:
                return answer
            time.sleep(self._delay(attempt, response))
            attempt += 1

    # mem0 verbs
    def add(self, messages: list[dict] | str, *, user_id: str, agent_id: str | None = None,
            metadata: dict | None = None, infer: bool = True, async_mode: bool = False) -> dict:
        """Remember what ``messages`` say (extracted like a conversation with ``infer``, else stored as given)."""
        return add_result(self.request("POST", "v1/memories/", json={
            "messages": messages, "user_id": user_id, "agent_id": agent_id or "", "metadata": metadata,
            "infer": infer, "async_mode": async_mode}))

    def search(self, query: str, *, user_id: str, agent_id: str | None = None, filters: dict | None = None,
               top_k: int = 10) -> list[Memory]:
        return memory_list(self.request("POST", "v1/memories/search/", json={
            "query": query, "user_id": user_id, "agent_id": agent_id, "filters": filters or {}, "top_k": top_k}))

    def get_all(self, *, user_id: str, filters: dict | None = None) -> list[Memory]:
        return memory_list(self.request("GET", "v1/memories/", params={"user_id": user_id, **(filters or {})}))

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

    def contexts(self, user_id: str, **params) -> list[dict]:
        """The context ledger of a user, newest first (``agent_id``, ``since``, ``limit``, ``offset``)."""
        return self.request("GET", "contexts/", params={"user_id": user_id, **params})

    def context_record(self, context_id: int) -> dict:
        """One recorded context with the feedback given on it."""
        return self.request("GET", f"contexts/{context_id}/")

    def feedback(self, context_id: int, rating: int, items: list[str] | None = None, *, comment: str = "",
                 correction: str = "") -> dict:
        """Rate a recorded context or its items (markers such as "M2", "K1"); see docs/context.md."""
        return self.request("POST", f"contexts/{context_id}/feedback/", json={
            "rating": rating, "items": items or [], "comment": comment, "correction": correction})

    def token_usage(self, user_id: str, since: str | None = None) -> list[dict]:
        """A user's contexts and tokens per day, with the LLM tokens their jobs spent."""
        return self.request("GET", "contexts/usage/", params={"user_id": user_id, "since": since})

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

    def held_versions(self, slug: str) -> list[dict]:
        """The publish gate's review queue of a knowledge base."""
        return self.request("GET", f"knowledge-bases/{slug}/held-versions/")

    def publish_version(self, slug: str, document_id: int, version: int | None = None) -> dict:
        """Publish a version the publish gate held (default: the document's latest held one)."""
        return self.request("POST", f"knowledge-bases/{slug}/documents/{document_id}/publish/",
                            json={} if version is None else {"version": version})

    def discard_version(self, slug: str, document_id: int, version: int | None = None) -> dict:
        """Discard a version the publish gate held."""
        return self.request("POST", f"knowledge-bases/{slug}/documents/{document_id}/discard/",
                            json={} if version is None else {"version": version})

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

    def evaluation_cases(self, slug: str, *, status: str | None = None) -> list[dict]:
        return self.request("GET", f"knowledge-bases/{slug}/evaluation-cases/", params={"status": status})

    def propose_evaluation_cases(self, slug: str, document_ids: list[int] | None = None) -> list[dict]:
        """Cases proposed from the base's documents (offline), to accept or delete."""
        return self.request("POST", f"knowledge-bases/{slug}/evaluation-cases/propose/",
                            json={} if document_ids is None else {"document_ids": document_ids})

    def accept_evaluation_case(self, slug: str, case_id: int, **expected) -> dict:
        """Accept a proposed case; a feedback case needs ``expected_chunk_ids`` or ``expected_document_ids``."""
        return self.request("POST", f"knowledge-bases/{slug}/evaluation-cases/{case_id}/accept/", json=expected)

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

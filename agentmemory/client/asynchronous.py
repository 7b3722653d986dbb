"""The asynchronous client: the same methods as the sync one, awaited (generated from the sync methods)."""
from __future__ import annotations

import asyncio
from typing import Any

import httpx

from .base import AGAIN, BaseClient
from .results import Context, Memory, add_result, memory_list
from .sync import AgentMemory


class AsyncAgentMemory(BaseClient):
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
            response = error = None
            try:
                response = await self._http.request(method, path.lstrip("/"), json=json,
                                                    params=self._clean(params), files=files, data=data)
            except httpx.TransportError as exc:
                error = exc
            answer = self._settle(method, path, attempt, response, error)
            if answer is not AGAIN:
                return answer
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


_POST_PROCESS = {
    "add": add_result, "search": memory_list, "get_all": memory_list, "get": Memory.from_api,
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

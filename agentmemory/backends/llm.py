"""OpenAI-compatible chat completions client (DeepSeek, Qwen, Ollama, vLLM, OpenAI).

Used by the LLM extractor, summarizer, query rewriter, route classifier and answer endpoint.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..conf import app_settings
from ..exceptions import ConfigurationError, LLMError
from .http import join_url, post_json

_FENCE_RE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


@dataclass
class UsageTally:
    """Calls and tokens of the chat completions made inside ``counting_usage`` (the servers' ``usage``)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""

    def add(self, usage: Any, model: str) -> None:
        self.calls += 1
        self.model = self.model or model
        if isinstance(usage, dict):
            for name in ("prompt_tokens", "completion_tokens"):
                value = usage.get(name)
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    setattr(self, name, getattr(self, name) + value)


_tally: ContextVar[UsageTally | None] = ContextVar("agentmemory_llm_usage", default=None)


@contextmanager
def counting_usage() -> Iterator[UsageTally]:
    """Count the chat completions made in this block (this thread or task only); see agentmemory/usage.py."""
    tally = UsageTally()
    token = _tally.set(tally)
    try:
        yield tally
    finally:
        _tally.reset(token)


class ChatClient:
    """A configured chat model: ``complete(messages)`` returns text, ``complete_json`` a dict."""

    def __init__(self, url: str | None = None, model: str | None = None, api_key: str | None = None,
                 timeout: float | None = None):
        self.url = url if url is not None else app_settings.LLM_URL
        self.model = model if model is not None else app_settings.LLM_MODEL
        self.api_key = api_key if api_key is not None else app_settings.LLM_API_KEY
        self.timeout = float(timeout if timeout is not None else app_settings.LLM_TIMEOUT)
        if not self.url or not self.model:
            raise ConfigurationError(
                "An LLM backend needs AGENTMEMORY['LLM_URL'] and AGENTMEMORY['LLM_MODEL'] "
                "(environment: AGENTMEMORY_LLM_URL, AGENTMEMORY_LLM_MODEL)."
            )

    def complete(self, messages: list[dict[str, str]], *, temperature: float = 0.0,
                 json_mode: bool = False, max_tokens: int | None = None) -> str:
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if json_mode:
            payload["response_format"] = {"type": "json_object"}
        if max_tokens:
            payload["max_tokens"] = max_tokens
        answer = post_json(join_url(self.url, "/chat/completions"), payload, api_key=self.api_key,
                           timeout=self.timeout, error_class=LLMError)
        tally = _tally.get()
        if tally is not None:
            tally.add(answer.get("usage") if isinstance(answer, dict) else None, self.model)
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"{self.url} answered without choices[0].message.content") from exc
        if not isinstance(content, str):
            raise LLMError(f"{self.url} answered with non-text content")
        return content

    def complete_json(self, messages: list[dict[str, str]], *, attempts: int = 2, **kwargs) -> dict[str, Any]:
        """Ask for a JSON object; repair fenced or padded JSON, re-ask once, then raise LLMError."""
        last_error = ""
        msgs = list(messages)
        for _ in range(max(1, attempts)):
            text = self.complete(msgs, json_mode=True, **kwargs)
            parsed = parse_json_object(text)
            if parsed is not None:
                return parsed
            last_error = text[:200]
            msgs = [*messages, {"role": "assistant", "content": text},
                    {"role": "user", "content": "That was not valid JSON. Answer with one JSON object only."}]
        raise LLMError(f"The model did not return valid JSON after {attempts} attempts: {last_error!r}")


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in ``text``, tolerating code fences and prose around it; None if there is none."""
    cleaned = _FENCE_RE.sub("", text.strip())
    for candidate in (cleaned, cleaned[cleaned.find("{") : cleaned.rfind("}") + 1]):
        if not candidate:
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None

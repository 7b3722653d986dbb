"""A local OpenAI-compatible chat server that answers the LLM extractor from recorded answers.

The benchmark of the LLM path (``agentmemory_bench_remember --llm-recordings FILE``) needs a model; the
machine has none, so a model's answers are recorded once and replayed over the real protocol. A request
is keyed by its conversation and the contents of the existing memories it shows (their ids change from
run to run): a recorded answer's ``existing_id`` is mapped back, through the content it named, to the id
the same memory has now. A request with no recording is answered ``{"items": []}`` and written to
``FILE.pending.jsonl`` (its prompt, for a model to answer); ``merge_answers`` adds the answers
(``{"key", "answer"}`` lines) to the recordings. A conversation of n sessions needs n rounds, since a
session's request shows what the earlier sessions' answers stored.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path
from typing import Any

from agentmemory.testing.openai_server import OpenAIChatServer

_SHOWN_RE = re.compile(r"Existing memories of this user:\n(.*?)\n\nConversation:\n(.*)", re.S)


def request_key(user_message: str) -> tuple[str, list[dict]]:
    """The request's key and the existing memories it shows."""
    match = _SHOWN_RE.search(user_message)
    if match is None:
        return hashlib.sha256(user_message.encode()).hexdigest()[:24], []
    shown = json.loads(match.group(1))
    basis = match.group(2) + "\n" + "\n".join(sorted(m["content"] for m in shown))
    return hashlib.sha256(basis.encode()).hexdigest()[:24], shown


class RecordedChatServer(OpenAIChatServer):
    def __init__(self, recordings: Path):
        super().__init__()
        self.recordings = recordings
        self.pending = recordings.with_suffix(".pending.jsonl")
        self.known: dict[str, dict[str, Any]] = {}
        if recordings.exists():
            for line in recordings.open(encoding="utf-8"):
                if line.strip():
                    row = json.loads(line)
                    self.known[row["key"]] = row
        self.missing = 0
        self._write_lock = threading.Lock()

    def _next_answer(self, body: dict[str, Any]):
        self.requests.append(body)
        return self._answer

    def _answer(self, body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        key, shown = request_key(user)
        row = self.known.get(key)
        if row is None:
            with self._write_lock:
                self.missing += 1
                with self.pending.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({"key": key, "existing": shown, "system": body["messages"][0]["content"],
                                          "user": user}, ensure_ascii=False) + "\n")
            return json.dumps({"items": []})
        return json.dumps(_remapped(row, shown), ensure_ascii=False)


def _remapped(row: dict[str, Any], shown: list[dict]) -> dict[str, Any]:
    """The recorded answer with its existing ids moved to the ids the same memories have in this run."""
    answer = row["answer"] if isinstance(row["answer"], dict) else json.loads(row["answer"])
    then = {m["id"]: m["content"] for m in row.get("existing") or []}
    now = {m["content"]: m["id"] for m in shown}
    for item in answer.get("items") or []:
        if isinstance(item, dict) and item.get("existing_id") is not None:
            item["existing_id"] = now.get(then.get(item["existing_id"], ""), None)
    return answer


def merge_answers(recordings: Path, answers: Path) -> int:
    """Add the answers (``{"key", "answer"}`` lines) to the pending requests' recordings; the count added."""
    pending = {}
    for line in recordings.with_suffix(".pending.jsonl").open(encoding="utf-8"):
        if line.strip():
            row = json.loads(line)
            pending[row["key"]] = row
    added = 0
    with recordings.open("a", encoding="utf-8") as out:
        for line in answers.open(encoding="utf-8"):
            if not line.strip():
                continue
            row = json.loads(line)
            asked = pending.get(row["key"])
            if asked is None:
                continue
            out.write(json.dumps({"key": row["key"], "existing": asked["existing"], "answer": row["answer"]},
                                 ensure_ascii=False) + "\n")
            added += 1
    return added

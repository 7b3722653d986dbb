"""LLMSummarizer: an OpenAI-compatible chat model folds new turns into the previous summary."""
from __future__ import annotations

import json
from collections.abc import Sequence

from ...exceptions import LLMError
from ..extractors.base import TurnText
from ..llm import ChatClient
from .base import Summarizer, SummaryFields

SYSTEM_PROMPT = (
    "You maintain the running summary of a conversation between a user and an assistant. "
    "Update the previous summary with the new turns; do not rewrite it from scratch, and do not drop "
    "what it already says unless a new turn corrects it. Keep every number, amount, date, proper noun, "
    "person or company name, stated preference, constraint and decision exactly as said. Write in the "
    "language of the conversation (Chinese stays Chinese). Answer with the updated summary only."
)


FIELDS_PROMPT = (
    "You maintain the structured running summary of a conversation between a user and an assistant. "
    "Update the previous summary with the new turns; do not rewrite it from scratch, and do not drop what it "
    "already says unless a new turn corrects or settles it. Answer with one JSON object: "
    '{"goal": "what the user is trying to get done in this session", '
    '"confirmed": ["decisions and facts established, one per item"], '
    '"open": ["questions not yet answered and to-dos, one per item"]}. '
    "Keep every number, amount, date, proper noun, person or company name exactly as said; move an open item "
    "to confirmed when a turn settles it. Write in the language of the conversation (Chinese stays Chinese)."
)


def _strings(value) -> list[str]:
    return [" ".join(str(x).split()) for x in value if str(x).strip()] if isinstance(value, list) else []


class LLMSummarizer(Summarizer):
    """Rolling summary by a chat model (DeepSeek, Qwen, Ollama, vLLM, OpenAI)."""

    name = "llm"

    def __init__(self, client: ChatClient | None = None):
        self.client = client or ChatClient()

    def summarize(self, previous: str, turns: Sequence[TurnText], *, max_chars: int = 4000) -> str:
        lines = "\n".join(f"[{t.seq}] {t.role}: {t.content}" for t in turns if t.role in ("user", "assistant"))
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Previous summary:\n{previous or '(empty)'}\n\nNew turns:\n{lines}\n\n"
                                        f"Updated summary (at most {max_chars} characters):"},
        ]
        text = self.client.complete(messages).strip()
        if not text:
            raise LLMError("The summarizer model returned an empty summary.")
        return text[:max_chars]

    def summarize_fields(self, previous: SummaryFields, turns: Sequence[TurnText], *,
                         max_chars: int = 4000) -> SummaryFields:
        lines = "\n".join(f"[{t.seq}] {t.role}: {t.content}" for t in turns if t.role in ("user", "assistant"))
        reply = self.client.complete_json([
            {"role": "system", "content": FIELDS_PROMPT},
            {"role": "user", "content": f"Previous summary (JSON):\n{json.dumps(previous.as_dict(), ensure_ascii=False)}"
                                        f"\n\nNew turns:\n{lines}\n\nUpdated summary as JSON (at most {max_chars} "
                                        "characters in all):"}])
        goal = reply.get("goal")
        fields = SummaryFields(goal=" ".join(goal.split())[:300] if isinstance(goal, str) else previous.goal,
                               confirmed=_strings(reply.get("confirmed")), open=_strings(reply.get("open")))
        if not (fields.goal or fields.confirmed or fields.open):
            raise LLMError("The summarizer model returned an empty summary.")
        while len(fields.render()) > max_chars and fields.confirmed:
            fields.confirmed.pop(0)  # the oldest established points go first
        return fields

"""LLMSummarizer: an OpenAI-compatible chat model folds new turns into the previous summary."""
from __future__ import annotations

from collections.abc import Sequence

from ...exceptions import LLMError
from ..extractors.base import TurnText
from ..llm import ChatClient
from .base import Summarizer

SYSTEM_PROMPT = (
    "You maintain the running summary of a conversation between a user and an assistant. "
    "Update the previous summary with the new turns; do not rewrite it from scratch, and do not drop "
    "what it already says unless a new turn corrects it. Keep every number, amount, date, proper noun, "
    "person or company name, stated preference, constraint and decision exactly as said. Write in the "
    "language of the conversation (Chinese stays Chinese). Answer with the updated summary only."
)


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

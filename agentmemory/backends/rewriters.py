"""Query rewriting: an OpenAI-compatible chat model turns a colloquial question into search form."""
from __future__ import annotations

from ..exceptions import LLMError
from .llm import ChatClient

PROMPT_ZH = (
    "你是检索查询改写器。把用户的口语化问题改写成适合在知识库中检索的查询：补全省略的主语，"
    "把口语换成标准术语，保留并突出关键实体（产品名、型号、代码原样保留）。"
    "不要回答问题。只输出 JSON：{\"query\": \"改写后的查询\"}。"
)


class QueryRewriter:
    """Base: ``rewrite(query, history=None) -> str`` (the original query when nothing better)."""

    name = ""

    def rewrite(self, query: str, *, history: list[dict[str, str]] | None = None) -> str:  # pragma: no cover
        raise NotImplementedError


class LLMQueryRewriter(QueryRewriter):
    """Rewrites with the chat model of AGENTMEMORY['LLM_URL'] / ['LLM_MODEL'] (JSON answer)."""

    name = "llm"

    def __init__(self, client: ChatClient | None = None):
        self.client = client or ChatClient()
        self.name = f"llm:{self.client.model}"

    def rewrite(self, query: str, *, history: list[dict[str, str]] | None = None) -> str:
        messages = [{"role": "system", "content": PROMPT_ZH}]
        for turn in (history or [])[-6:]:
            messages.append({"role": turn.get("role", "user"), "content": str(turn.get("content", ""))[:1000]})
        messages.append({"role": "user", "content": query})
        answer = self.client.complete_json(messages, max_tokens=200)
        rewritten = answer.get("query")
        if not isinstance(rewritten, str) or not rewritten.strip():
            raise LLMError("The query rewriter answered without a non-empty \"query\" string")
        return rewritten.strip()[:2000]


def get_query_rewriter() -> QueryRewriter | None:
    """The rewriter named by AGENTMEMORY['QUERY_REWRITER'] (dotted class path), or None when unset."""
    from . import load_backend

    return load_backend("QUERY_REWRITER")

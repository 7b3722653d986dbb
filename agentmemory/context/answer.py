"""Optional last stage, answer: ask the configured chat model to answer from the assembled context.

The model gets the rendered prompt and must reply with JSON {"answer", "citations"}; citations are
the [K#] knowledge and [M#] memory markers of the prompt, checked against what the prompt really
held (a marker the model made up is dropped and reported) and expanded to chunk and memory ids.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import ConfigurationError, LLMError
from ..types import ContextBundle, ContextItem
from ..usage import llm_usage
from .assemble import assemble_context
from .ledger import record_answer

_MARKER_RE = re.compile(r"\[([KM]\d+)\]")

SYSTEM = {
    "zh": ("你根据给定材料回答用户的问题。只用 JSON 回答：{\"answer\": \"回答正文\", \"citations\": [\"K1\", \"M1\"]}。"
           "回答中引用知识库内容时在句末标注编号，如 [K1]；citations 列出你实际用到的知识库条目 [K#] 和用户记忆 [M#] 的编号。"
           "如果知识库中没有答案，请在 answer 中直接说明知识库中没有相关信息，不要编造。"),
    "en": ("Answer the user's message from the material given. Reply with JSON only: "
           "{\"answer\": \"the answer\", \"citations\": [\"K1\", \"M1\"]}. Mark statements taken from the "
           "knowledge base with their marker, e.g. [K1]; list in citations the knowledge [K#] and user "
           "memory [M#] markers you actually used. If the knowledge base has no answer, say so plainly "
           "in the answer; do not invent one."),
}


@dataclass(frozen=True)
class AnswerResult:
    """The model's answer, the citations it used (resolved to rows), and the context it was given."""

    answer: str
    citations: list[dict[str, Any]]
    bundle: ContextBundle
    model: str = ""
    dropped_citations: list[str] = field(default_factory=list)


def citation_of(item: ContextItem) -> dict[str, Any]:
    """What a marker points at: a knowledge chunk with its citation, or a memory with its source."""
    if item.layer == "knowledge":
        return {"marker": item.label, "type": "knowledge", "chunk_id": item.ref.get("chunk_id"),
                "document_id": item.ref.get("document_id"), "document_title": item.ref.get("document_title"),
                "version": item.ref.get("version"), "heading_path": item.ref.get("heading_path"),
                "citation": item.ref.get("citation") or item.source}
    return {"marker": item.label, "type": "memory", "memory_id": item.ref.get("memory_id"),
            "layer": item.layer, "text": item.text, "source": item.ref.get("source", "")}


def answer_question(*, user_id: str, query: str, agent_id: str | None = None, session_id: Any = None,
                    knowledge_bases: list[str] | None = None, token_budget: int | None = None,
                    route: str | None = None, language: str | None = None, record: bool = True) -> AnswerResult:
    """Assemble the context, then ask the chat model (AGENTMEMORY['LLM_URL'/'LLM_MODEL']) to answer.

    Raises what assemble_context raises, and LLMError (a 503 in the API) when no chat model is
    configured or it fails to give a usable answer.
    """
    from ..backends.llm import ChatClient

    bundle = assemble_context(user_id=user_id, query=query, agent_id=agent_id, session_id=session_id,
                              knowledge_bases=knowledge_bases, token_budget=token_budget, route=route,
                              language=language, record=record, via="answer")
    try:
        client = ChatClient()
    except ConfigurationError as exc:
        raise LLMError(f"No answer model is configured: {exc}") from exc
    language = bundle.trace.get("language", "zh")  # the context's: asked for, the query's, or LANGUAGE
    with llm_usage("answer", user_id=user_id, job=f"context:{bundle.context_id or ''}"):
        reply = client.complete_json([{"role": "system", "content": SYSTEM[language]},
                                      {"role": "user", "content": bundle.prompt}])
    answer = reply.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        raise LLMError("The answer model replied without an 'answer' text")
    markers = reply.get("citations") or []
    if not isinstance(markers, list):
        markers = []
    wanted = [str(m).strip().strip("[]") for m in markers] + _MARKER_RE.findall(answer)
    by_label = {it.label: it for items in bundle.sections.values() for it in items if it.label}
    citations, dropped = [], []
    for marker in dict.fromkeys(wanted):
        if marker in by_label:
            citations.append(citation_of(by_label[marker]))
        elif marker:
            dropped.append(marker)
    record_answer(bundle.context_id, answer.strip())
    return AnswerResult(answer=answer.strip(), citations=citations, bundle=bundle, model=client.model,
                        dropped_citations=dropped)

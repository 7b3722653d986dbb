"""Stage 5, render: labelled prompt sections in the seeds' order, in Chinese or English.

Pure. Order: instructions, user memory (profile, then long-term memory), knowledge (each chunk
with a [K#] citation marker), conversation history (summary, task state, recent turns in time
order), and the current message last. The instructions always tell the model to say plainly when
the knowledge base has no answer instead of inventing one; an empty knowledge section says so.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from ..text import count_tokens
from ..types import ContextItem

SECTION_ORDER = ("profile", "long_term_memory", "knowledge", "working_memory", "current_message")

LABELS = {
    "zh": {
        "memory": "【用户记忆】",
        "knowledge": "【知识库检索结果】",
        "history": "【对话历史】",
        "current": "【当前问题】",
        "no_knowledge": "（知识库中没有找到与当前问题相关的内容。）",
        "summary": "用户概况：",
        "session_summary": "此前对话摘要：",
        "task_state": "当前任务状态：",
        "roles": {"user": "用户", "assistant": "助手", "system": "系统", "tool": "工具"},
        "sources": {"user_stated": "用户陈述", "model_inferred": "模型推断", "system_log": "系统记录"},
        "version": "版本",
        "sep": "，",
        "instructions": (
            "你是一个了解用户、并能引用知识库的助手。请依据下面的材料回答【当前问题】：\n"
            "- 【用户记忆】是关于这位用户的已知信息（[M#]），用来让回答贴合用户；\n"
            "- 【知识库检索结果】是可引用的资料，引用时注明编号，如 [K1]；\n"
            "- 【对话历史】是本次会话最近的内容；\n"
            "- 如果知识库中没有能回答问题的内容，请直接说明“知识库中没有相关信息”，不要编造。"
        ),
    },
    "en": {
        "memory": "[User memory]",
        "knowledge": "[Knowledge base results]",
        "history": "[Conversation history]",
        "current": "[Current message]",
        "no_knowledge": "(The knowledge base has nothing relevant to the current message.)",
        "summary": "User summary: ",
        "session_summary": "Earlier in this conversation: ",
        "task_state": "Current task state: ",
        "roles": {"user": "User", "assistant": "Assistant", "system": "System", "tool": "Tool"},
        "sources": {"user_stated": "stated by the user", "model_inferred": "inferred", "system_log": "system log"},
        "version": "v",
        "sep": ", ",
        "instructions": (
            "You are an assistant who knows the user and cites a knowledge base. Answer the "
            "[Current message] using the material below:\n"
            "- [User memory] is what is known about this user ([M#]); use it to fit the answer to them;\n"
            "- [Knowledge base results] are citable sources; cite them by marker, e.g. [K1];\n"
            "- [Conversation history] is the recent part of this conversation;\n"
            "- If the knowledge base does not answer the question, say plainly that the knowledge base "
            "has no information on it; do not invent an answer."
        ),
    },
}


def labels(language: str) -> dict:
    return LABELS.get((language or "zh")[:2].lower(), LABELS["zh"])


# Text from users, documents and the model is data, never structure: it must not close its section,
# open another or forge a citation. Chinese headers are the only 【】 in a prompt, so the brackets are
# swapped for look-alikes; English headers and citation markers are defused where they appear verbatim.
_BRACKETS = str.maketrans({"【": "〖", "】": "〗"})
_EN_HEADERS = re.compile(
    "|".join(re.escape(LABELS["en"][k]) for k in ("memory", "knowledge", "history", "current")), re.IGNORECASE)
_CITATION = re.compile(r"\[([KM]\d{1,4})\]")


def escape_untrusted(text: str) -> str:
    """``text`` with section headers and citation markers defused (see above); otherwise unchanged."""
    if not text:
        return text
    text = text.translate(_BRACKETS)
    text = _EN_HEADERS.sub(lambda m: "(" + m.group(0)[1:-1] + ")", text)
    return _CITATION.sub(r"(\1)", text)


@dataclass(frozen=True)
class RenderedPrompt:
    text: str
    token_counts: dict[str, int] = field(default_factory=dict)


def item_line(item: ContextItem, language: str) -> str:
    """The text one item takes in the prompt (also what it is charged in the budget)."""
    lab = labels(language)
    marker = f"[{item.label}] " if item.label else ""
    item = replace(item, text=escape_untrusted(item.text), source=escape_untrusted(item.source))
    if item.kind == "summary" and item.layer == "profile":
        return f"{lab['summary']}{item.text}"
    if item.layer in ("profile", "long_term_memory"):
        meta = [m for m in (lab["sources"].get(item.ref.get("source", ""), ""),
                            item.timestamp.date().isoformat() if item.timestamp else "") if m]
        suffix = f"（{lab['sep'].join(meta)}）" if meta and language.startswith("zh") else (
            f" ({lab['sep'].join(meta)})" if meta else "")
        return f"{marker}{item.text}{suffix}"
    if item.layer == "knowledge":
        head = item.source or escape_untrusted(item.ref.get("document_title", ""))
        return f"{marker}{head}\n{item.text}"
    if item.kind == "summary":
        return f"{lab['session_summary']}{item.text}"
    if item.kind == "task_state":
        return f"{lab['task_state']}{item.text}"
    if item.kind == "turn":
        role = lab["roles"].get(item.ref.get("role", ""), item.ref.get("role", ""))
        return f"{role}：{item.text}" if language.startswith("zh") else f"{role}: {item.text}"
    return f"{marker}{item.text}"


def needs_marker(item: ContextItem) -> bool:
    """Knowledge chunks and memories get a citation marker ([K#], [M#]); the rest do not."""
    return item.layer == "knowledge" or (item.layer in ("profile", "long_term_memory") and item.kind != "summary")


def item_tokens(item: ContextItem, language: str) -> int:
    """Tokens charged for an item: its line with a two-digit marker, whatever marker it gets later."""
    if needs_marker(item):
        item = replace(item, label=("K" if item.layer == "knowledge" else "M") + "10")
    return count_tokens(item_line(item, language))


def task_state_text(state: object) -> str:
    """Task state as compact JSON (keys in the order given), Chinese kept readable."""
    if isinstance(state, str):
        return state
    return json.dumps(state, ensure_ascii=False, separators=(",", ":"), default=str)


def fixed_tokens(current_message: str, *, language: str, with_knowledge: bool, with_history: bool) -> dict[str, int]:
    """Costs that do not depend on which items are kept: instructions, headers, the current message."""
    lab = labels(language)
    counts = {
        "instructions": count_tokens(lab["instructions"]),
        "memory_header": count_tokens(lab["memory"]),
        "knowledge_header": count_tokens(lab["knowledge"]) + count_tokens(lab["no_knowledge"]) if with_knowledge else 0,
        "history_header": count_tokens(lab["history"]) if with_history else 0,
        "current_message": count_tokens(lab["current"]) + count_tokens(escape_untrusted(current_message)),
    }
    return counts


def _cost(item: ContextItem, language: str) -> int:
    """The tokens the budget charged the item (counted once, in assemble), or its line's count."""
    return item.tokens if item.tokens > 0 else count_tokens(item_line(item, language))


def render_prompt(sections: dict[str, list[ContextItem]], current_message: str, *, language: str = "zh",
                  knowledge_searched: bool = True) -> RenderedPrompt:
    """The prompt text and its token count per section (items charged as in the budget)."""
    lab = labels(language)
    blocks = [lab["instructions"]]
    counts = {name: 0 for name in SECTION_ORDER}
    memory = [*sections.get("profile", []), *sections.get("long_term_memory", [])]
    if memory:
        lines = [item_line(it, language) for it in memory]
        blocks.append("\n".join([lab["memory"], *lines]))
        for it in memory:
            counts[it.layer] += _cost(it, language)
    if knowledge_searched:
        chunks = sections.get("knowledge", [])
        lines = [item_line(it, language) for it in chunks] or [lab["no_knowledge"]]
        blocks.append("\n".join([lab["knowledge"], *lines]))
        counts["knowledge"] = sum(_cost(it, language) for it in chunks)
    history = sections.get("working_memory", [])
    if history:
        lines = [item_line(it, language) for it in history]
        blocks.append("\n".join([lab["history"], *lines]))
        counts["working_memory"] = sum(_cost(it, language) for it in history)
    blocks.append(f"{lab['current']}\n{escape_untrusted(current_message)}")
    counts["current_message"] = count_tokens(escape_untrusted(current_message))
    text = "\n\n".join(blocks)
    counts["memory_section"] = count_tokens(lab["memory"]) + counts["profile"] + counts["long_term_memory"] \
        if memory else 0
    counts["total"] = count_tokens(text)
    return RenderedPrompt(text=text, token_counts=counts)

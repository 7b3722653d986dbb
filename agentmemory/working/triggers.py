"""Trigger detection on a turn: an explicit remember intent (write at once) and high priority (keep verbatim)."""
from __future__ import annotations

import re

from ..backends.extractors.rules import remember_intent, strip_remember_prefix

_IMPORTANT_RE = re.compile(r"记住|重要|关键|务必|一定要|\bremember\b|\bimportant\b|\bcritical\b|\bkey point\b", re.I)
_NUMBER_RE = re.compile(r"[0-9０-９]|[一二三四五六七八九十两百千万亿]+(?:元|块|万|千|百|人|天|年|个月|月|号|岁|家|%|％)")
_NAME_RE = re.compile(
    r"我叫|名字|姓[\u4e00-\u9fff]|[\u4e00-\u9fff](?:先生|女士|小姐|老师|总|经理)|"
    r"\bmy name is\b|\bcall me\b|(?<=[a-z,] )[A-Z][a-z]+(?: [A-Z][a-z]+)*"
)


def detect_remember_intent(text: str) -> bool:
    """True for 记住 / 以后都按这个来 / 下次别再推荐 / remember that / from now on ... (write at once)."""
    return remember_intent(text)


def remembered_statement(text: str) -> str:
    """What to remember: the text without its leading remember marker."""
    return strip_remember_prefix(text)


def is_high_priority(text: str, role: str = "user") -> bool:
    """Turns kept verbatim after they are folded into the summary: 记住/重要/关键, remember, numbers, names."""
    if role not in ("user", "assistant") or not text:
        return False
    if _IMPORTANT_RE.search(text) or remember_intent(text):
        return True
    # Numbers and names matter in what the user says; an assistant's numbers are usually restatements.
    return role == "user" and bool(_NUMBER_RE.search(text) or _NAME_RE.search(text))

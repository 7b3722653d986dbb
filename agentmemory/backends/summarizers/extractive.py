"""ExtractiveSummarizer: the offline default; keeps the sentences that carry numbers, names and preferences.

Each kept sentence becomes one line ``[seq] role: sentence``; a new fold appends lines to the
previous summary, and when the summary outgrows its budget the least informative lines go first
(oldest first among equals), so the numbers and names of early turns survive.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ...text import split_sentences
from ..extractors.base import TurnText
from ..extractors.rules import RuleBasedExtractor, remember_intent
from .base import Summarizer

# Digits, or Chinese numerals with a unit of money, time, people or places ("一个" alone is not a number).
_NUMBER_RE = re.compile(r"[0-9０-９]|[一二三四五六七八九十两百千万亿]+(?:元|块|万|千|百|人|天|年|个月|月|号|岁|家|%|％)")
_IMPORTANT_RE = re.compile(r"重要|关键|务必|一定要|必须|\bimportant\b|\bmust\b|\bcritical\b|\bdeadline\b", re.I)
# Latin proper nouns or identifiers (PostgreSQL, Alice, X-200) anywhere in a sentence, except a lone "I".
_LATIN_NAME_RE = re.compile(r"(?<![A-Za-z])(?!I\b)[A-Z][A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*|[A-Za-z]+[0-9][A-Za-z0-9-]*")
_ZH_NAME_RE = re.compile(r"我叫|名字|姓[\u4e00-\u9fff]|[\u4e00-\u9fff](?:先生|女士|小姐|老师|总|经理)|《[^》]+》|「[^」]+」|“[^”]+”")
_CHITCHAT_RE = re.compile(
    r"^(?:好的|好|嗯+|哦+|谢谢|多谢|感谢|收到|明白了?|知道了|可以|行|没问题|ok(?:ay)?|thanks?(?: you)?|thx|sure|"
    r"yes|no|got it|great|cool|hi|hello|hey|你好|再见|bye)[\s，,。.!！~～]*$", re.I)
_ROLES = {"user": "user", "assistant": "assistant"}
_LINE_RE = re.compile(r"^\[(?P<seq>\d+)\] (?P<role>\w+): (?P<text>.*)$")


def score_sentence(sentence: str, role: str = "user") -> int:
    """How much a sentence is worth keeping: numbers, names, remember/important, preferences."""
    text = sentence.strip()
    if not text or _CHITCHAT_RE.match(text):
        return 0
    score = 0
    if remember_intent(text) or _IMPORTANT_RE.search(text):
        score += 3
    if _NUMBER_RE.search(text):
        score += 2
    if _ZH_NAME_RE.search(text) or _LATIN_NAME_RE.search(text[1:] if text[:1].isupper() else text):
        score += 2
    if role == "user" and _extractor.extract_text(text, remember=False):
        score += 2
    if role == "user":
        score += 1
    return score


_extractor = RuleBasedExtractor()


class ExtractiveSummarizer(Summarizer):
    """Offline, deterministic: keeps informative sentences verbatim, drops chit-chat."""

    name = "extractive"
    min_score = 2

    def summarize(self, previous: str, turns: Sequence[TurnText], *, max_chars: int = 4000) -> str:
        lines = [line for line in (previous or "").splitlines() if line.strip()]
        for turn in turns:
            role = _ROLES.get(turn.role)
            if role is None:
                continue  # system and tool messages are not the conversation
            for start, end in split_sentences(turn.content or ""):
                sentence = " ".join(turn.content[start:end].split())
                if score_sentence(sentence, role) >= self.min_score:
                    lines.append(f"[{turn.seq}] {role}: {sentence[:400]}")
        return self._fit(lines, max_chars)

    def _fit(self, lines: list[str], max_chars: int) -> str:
        total = sum(len(line) + 1 for line in lines)
        if total <= max_chars:
            return "\n".join(lines)
        # Drop the least informative lines first, oldest first among equals, keeping order.
        scored = []
        for index, line in enumerate(lines):
            match = _LINE_RE.match(line)
            role, text = (match.group("role"), match.group("text")) if match else ("user", line)
            scored.append((score_sentence(text, role), index))
        dropped: set[int] = set()
        for _score, index in sorted(scored):
            if total <= max_chars:
                break
            dropped.add(index)
            total -= len(lines[index]) + 1
        return "\n".join(line for i, line in enumerate(lines) if i not in dropped)

"""ExtractiveSummarizer: the offline default; keeps the sentences that carry numbers, names and preferences.

Each kept sentence becomes one line ``[seq] role: sentence``; a new fold appends lines to the
previous summary, and when the summary outgrows its budget the least informative lines go first
(oldest first among equals), so the numbers and names of early turns survive.

The structured form (``summarize_fields``) sorts the same sentences by rules, in Chinese and English:

- **goal**: the user's first request ("帮我规划…", "I need to…", "Can you help me…"); a later request
  that switches topic ("另外…", "new topic", "now I want…") replaces it;
- **open**: to-dos and undecided points ("还没定", "下一步", "still need to", "TBD"), and a question nobody
  answered within the folded turns; an open item is closed when a later sentence says it is settled
  ("定了", "done", "decided") and shares its words;
- **confirmed**: the informative sentences (score_sentence), decisions first among equals; a short user
  answer to the assistant's question keeps the question beside it ("2万 (← 预算大概多少？)").
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ...text import split_sentences
from ...text.tokenize import keyword_tokens
from ..extractors.base import TurnText
from ..extractors.rules import RuleBasedExtractor, remember_intent
from .base import Summarizer, SummaryFields

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
_GOAL_RE = re.compile(
    r"帮我|帮忙|请你?帮|我想(?:要|让|请|找|做|写|买|订|学|了解|规划|安排)|我(?:要|需要|打算|计划)(?!的)|能不能|能否|可以帮|麻烦你|"
    r"\b(?:help me|can you|could you|would you|I want to|I'd like to|I need (?:to|a|an|some|help)|"
    r"I'm (?:trying|looking|planning) to|I am (?:trying|looking|planning) to|please)\b", re.I)
_SWITCH_RE = re.compile(r"另外|换个话题|新的问题|接下来我想|再帮我|还有一件事|\b(?:new topic|another thing|"
                        r"something else|let's switch|now I (?:want|need)|next,? I)\b", re.I)
_TODO_RE = re.compile(
    r"待办|待确认|待定|还需要|还要(?:再|确认|问|查)|之后再|回头再|稍后|下一步|还没(?:有)?(?:定|决定|确定|想好|订|买)|"
    r"不确定|没想好|\bTODO\b|\bTBD\b|\bto-?do\b|\bnext step|\bstill need|\bneed to (?:decide|check|confirm)|"
    r"\bhaven't (?:decided|booked|chosen)|\bnot sure yet|\bfollow up|\bundecided\b", re.I)
_DONE_RE = re.compile(r"定了|决定了|确定了|搞定|解决了|完成了|订好了|买好了|就这么定|就选|就用|\b(?:done|decided|"
                      r"settled|booked|resolved|fixed|finished|confirmed|let's go with|we'll go with)\b", re.I)
_DECISION_RE = re.compile(r"决定|确定|定了|就用|就选|选了|同意|\b(?:decided|let's go with|we'll use|agreed|"
                          r"confirmed|chose|go with)\b", re.I)
_QUESTION_RE = re.compile(r"[?？]\s*$|^(?:请问|是否)|吗[。.]?$")
MAX_OPEN = 10
GOAL_CHARS = 300
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

    def summarize_fields(self, previous: SummaryFields, turns: Sequence[TurnText], *,
                         max_chars: int = 4000) -> SummaryFields:
        out = SummaryFields(goal=previous.goal, confirmed=list(previous.confirmed), open=list(previous.open))
        talk = [(turn, _ROLES[turn.role]) for turn in turns if turn.role in _ROLES]
        asked = ""  # the assistant's question the next user turn may answer
        for index, (turn, role) in enumerate(talk):
            answered = any(other != role for _t, other in talk[index + 1:])
            sentences = [" ".join(turn.content[a:b].split()) for a, b in split_sentences(turn.content or "")]
            for sentence in filter(None, sentences):
                self._place(out, sentence, turn.seq, role, answered=answered, asked=asked)
            questions = [s for s in sentences if _QUESTION_RE.search(s)]
            asked = questions[-1] if role == "assistant" and questions else ""
        out.open = out.open[-MAX_OPEN:]
        room = max_chars - len(out.goal) - sum(len(line) + 3 for line in out.open) - 40
        out.confirmed = self._fit(out.confirmed, max(0, room)).splitlines()
        return out

    def _place(self, out: SummaryFields, sentence: str, seq: int, role: str, *, answered: bool, asked: str) -> None:
        line = f"[{seq}] {role}: {sentence[:400]}"
        if role == "user" and _GOAL_RE.search(sentence) and (not out.goal or _SWITCH_RE.search(sentence)):
            out.goal = sentence[:GOAL_CHARS]
            return
        if _DONE_RE.search(sentence):
            words = set(keyword_tokens(sentence))
            out.open = [item for item in out.open if not _shares_words(item, words)]
        if _TODO_RE.search(sentence) or (_QUESTION_RE.search(sentence) and not answered):
            if line not in out.open:
                out.open.append(line)
            return
        if _QUESTION_RE.search(sentence) and not remember_intent(sentence):
            return  # answered: the answer carries what was established
        score = score_sentence(sentence, role) + (2 if _DECISION_RE.search(sentence) else 0)
        if score >= self.min_score:
            if role == "user" and asked and len(sentence) <= 30:
                line = f"{line} (← {asked[:120]})"
            out.confirmed.append(line)

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


def _shares_words(item: str, words: set[str]) -> bool:
    """An open item is settled by a sentence sharing one of its content words (2+ characters, not a to-do or
    settled marker such as "没定" or "need")."""
    match = _LINE_RE.match(item)
    own = {w for w in keyword_tokens(match.group("text") if match else item)
           if len(w) >= (3 if w.isascii() else 2) and not _TODO_RE.search(w) and not _DONE_RE.search(w)
           and w not in _GENERIC}
    return bool(own & words)


_GENERIC = {"还没", "没定", "确认", "需要", "still", "need", "pick", "sure", "yet", "看看", "一下", "decide"}

"""Noise gate of the write path: small talk, meta statements and questions are not memories."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..conf import app_settings
from ..text import keyword_tokens

_PUNCT_RE = re.compile(r"[\s\.,!?;:~，。！？；：、…“”\"'（）()【】\[\]~～—-]+")

# Whole-message small talk (after punctuation is stripped), Chinese and English.
_SMALL_TALK = re.compile(
    r"^(?:你好|您好|嗨|哈+|呵+|嘿嘿|好的?|好吧|嗯+|哦+|噢|ok(?:ay)?|谢谢(?:你|您)?|多谢|感谢|不客气|再见|拜拜|晚安|早上好|"
    r"早安|午安|收到|明白了?|知道了|没问题|可以|行|对|是的?|不是|hi|hello|hey|thanks?(?: you)?|thx|bye|"
    r"good (?:morning|night|evening)|yes|no|sure|cool|nice|great|lol|haha)+$",
    re.IGNORECASE,
)
# Statements about the conversation rather than about the user ("用户问了 X").
_META_RE = re.compile(
    r"^(?:用户|客户|对方)(?:问了|询问|提问|问|想知道|咨询了?|请求|要求(?:助手)?|让助手)|"
    r"^(?:the )?user (?:asked|asks|wants to know|inquired|requested|said hello|greeted)|"
    r"^(?:助手|assistant)",
    re.IGNORECASE,
)
# Passing remarks about the weather or the moment.
# English words whole: "training for a half marathon" holds "raining".
_EPHEMERAL_RE = re.compile(r"天气|下雨|好热|真热|好冷|真冷|\b(?:weather|raining|so hot|so cold)\b", re.IGNORECASE)
_NOW_RE = re.compile(r"今天|现在|刚才|刚刚|此刻|\b(?:today|right now|just now)\b", re.IGNORECASE)
# Markers of something durable about the user: identity, preference, decision, plan, constraint.
_DURABLE_RE = re.compile(
    r"喜欢|偏好|更爱|讨厌|不喜欢|习惯|希望|想要|需要|预算|公司|行业|团队|项目|使用|在用|用的是|迁到|迁移|决定|计划|打算|"
    r"负责|住在|来自|职位|工作|是一名|不要|必须|我养|养了|我家|过敏|always|never|prefer|like|love|hate|use|using|work|budget|"
    r"company|team|project|decid|plan|live|my |our |we ",
    re.IGNORECASE,
)
_QUESTION_RE = re.compile(r"[?？]\s*$|吗[?？。]?\s*$|^(?:what|how|why|when|where|who|which|can|could|is|are|do|does)\b",
                          re.IGNORECASE)


@dataclass(frozen=True)
class QualityVerdict:
    """Score in 0..1, whether it passes the configured threshold, and why not."""

    score: float
    passed: bool
    reason: str = ""


def score_quality(content: str, *, given: float | None = None) -> tuple[float, str]:
    """Rule-based score of how worth remembering ``content`` is, and the main reason it is low."""
    text = content.strip()
    bare = _PUNCT_RE.sub(" ", text).strip().lower()
    durable = bool(_DURABLE_RE.search(text))
    score, reason = 0.7, ""
    if not bare or _SMALL_TALK.match(bare.replace(" ", "")) or _SMALL_TALK.match(bare):
        score, reason = 0.05, "small talk"
    elif _META_RE.search(text):
        score, reason = 0.1, "describes the conversation, not the user (e.g. '用户问了 X')"
    elif _EPHEMERAL_RE.search(text) and not durable:
        score, reason = 0.2, "passing remark (weather or the moment), not durable"
    elif _QUESTION_RE.search(text) and not durable:
        score, reason = 0.3, "a question, not a statement about the user"
    else:
        tokens = keyword_tokens(text)
        if len(tokens) < 2 and len(bare) < 6:
            score, reason = 0.3, "too short to mean anything on its own"
        elif _NOW_RE.search(text) and not durable:
            score, reason = 0.45, "about the moment, not durable"
        elif durable:
            score = 0.85
    if given is not None:
        given = max(0.0, min(1.0, float(given)))
        if given < score:
            score, reason = given, reason or "the extractor scored it low"
    return score, reason


def assess_quality(content: str, *, given: float | None = None) -> QualityVerdict:
    """The gate: pass when the score reaches AGENTMEMORY['MEMORY_QUALITY_THRESHOLD'] (0.5)."""
    score, reason = score_quality(content, given=given)
    threshold = app_settings.MEMORY_QUALITY_THRESHOLD
    if score >= threshold:
        return QualityVerdict(score=round(score, 3), passed=True)
    return QualityVerdict(score=round(score, 3), passed=False,
                          reason=f"{reason or 'low quality'} (score {score:.2f} < {threshold:.2f})")

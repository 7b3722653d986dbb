"""Which language a text is written in, for what a person reads: Chinese or English.

A text is Chinese when its Chinese words (characters / 1.5) outnumber its Latin words (a "MacBook" or "API"
in a Chinese sentence keeps it Chinese), English when the Latin words lead, and otherwise (no letters, a tie)
the caller's default, the configured ``LANGUAGE``.
"""
from __future__ import annotations

import re

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN_WORD_RE = re.compile(r"[A-Za-z]{2,}")


def language_of(text: str, default: str = "zh") -> str:
    """"zh" or "en" for ``text``; ``default`` when it says neither."""
    words_zh = len(_CJK_RE.findall(text or "")) / 1.5  # a Chinese word is about one and a half characters
    words_en = len(_LATIN_WORD_RE.findall(text or ""))
    if words_zh > words_en:
        return "zh"
    if words_en > words_zh:
        return "en"
    return default


def configured_language() -> str:
    """The configured ``LANGUAGE`` as "zh" or "en" (what a text in neither language, or a caller asking for
    no language, falls back to)."""
    from ..conf import app_settings

    return "en" if (app_settings.LANGUAGE or "zh").startswith("en") else "zh"

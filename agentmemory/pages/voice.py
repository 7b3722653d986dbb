"""The user's page speaks to the user: "用户在腾讯工作" reads "你在腾讯工作", "The user works at Stripe" reads
"You work at Stripe". Only how a memory is shown changes; what is stored (and edited) stays as written."""
from __future__ import annotations

import re

_ZH_RE = re.compile(r"(^|[，。；！？、\s：:（(「“])用户(?:本人)?")
_EN_BE = {"is": "are", "was": "were", "has": "have", "does": "do", "doesn't": "don't", "isn't": "aren't",
          "wasn't": "weren't", "hasn't": "haven't"}
_EN_RE = re.compile(r"\b[Tt]he user('s)?(?:\s+(\w+'?\w*))?")


def _verb(word: str) -> str:
    """A third-person verb as the second person says it: works → work, watches → watch, goes → go."""
    lower = word.lower()
    if lower in _EN_BE:
        return _EN_BE[lower]
    if lower.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return word[:-2]
    if lower.endswith("ies") and len(lower) > 4:
        return word[:-3] + "y"
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def second_person(text: str) -> str:
    """``text`` addressed to the user it is about."""
    if not text:
        return text
    text = _ZH_RE.sub(lambda m: f"{m.group(1)}你", text)

    def english(match: re.Match) -> str:
        start = match.start() == 0 or match.string[match.start() - 2:match.start()].strip() in (".", "!", "?", "")
        if match.group(1):  # "the user's"
            you = "Your" if start else "your"
            return f"{you} {match.group(2)}" if match.group(2) else you
        you = "You" if start else "you"
        return f"{you} {_verb(match.group(2))}" if match.group(2) else you

    return _EN_RE.sub(english, text)

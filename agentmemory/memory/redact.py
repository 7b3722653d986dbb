"""PII redaction applied before anything is stored: phones, Chinese ID numbers, bank cards, e-mails."""
from __future__ import annotations

import re
from typing import Any

from ..conf import app_settings

# Digits may be written full-width (１３８…); they are matched as digits too.
_D = r"[0-9\uff10-\uff19]"
# Mainland mobile numbers: 1[3-9]x, 11 digits, optionally +86 / 0086 and separated by spaces or dashes.
_MOBILE_RE = re.compile(
    rf"(?<![0-9\uff10-\uff19])(?:(?:\+|00)86[\s-]?)?([1\uff11][3-9\uff13-\uff19]{_D}(?:[\s-]?{_D}){{8}})(?![0-9\uff10-\uff19])"
)
# 18-character resident ID (17 digits + digit or X) and the old 15-digit form.
_CN_ID_RE = re.compile(
    rf"(?<![0-9A-Za-z\uff10-\uff19])({_D}{{6}}(?:19|20){_D}{{2}}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]){_D}{{3}}[0-9Xx]"
    rf"|{_D}{{15}})(?![0-9A-Za-z\uff10-\uff19])"
)
# Bank cards: 13-19 digits, optionally grouped by spaces or dashes, passing the Luhn check.
_CARD_RE = re.compile(rf"(?<![0-9\uff10-\uff19])({_D}(?:[\s-]?{_D}){{12,18}})(?![0-9\uff10-\uff19])")
_EMAIL_RE = re.compile(r"([A-Za-z0-9._%+-]+)@([A-Za-z0-9.-]+\.[A-Za-z]{2,})")


def _ascii_digits(text: str) -> str:
    return "".join(chr(ord(c) - 0xFEE0) if "\uff10" <= c <= "\uff19" else c for c in text if c.isdigit())


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _mask_mobile(match: re.Match) -> str:
    digits = _ascii_digits(match.group(1))
    return f"{digits[:3]}****{digits[-4:]}"


def _mask_id(match: re.Match) -> str:
    raw = match.group(1)
    return raw[:3] + "*" * (len(raw) - 7) + raw[-4:] if len(raw) == 18 else raw[:3] + "*" * (len(raw) - 3)


def _mask_card(match: re.Match) -> str:
    digits = _ascii_digits(match.group(1))
    if not 13 <= len(digits) <= 19 or not _luhn(digits):
        return match.group(0)
    return "*" * (len(digits) - 4) + digits[-4:]


def _mask_email(match: re.Match) -> str:
    local = match.group(1)
    return f"{local[:1]}***@{match.group(2)}"


def redact_text(text: str) -> str:
    """``text`` with PII masked: mobile 138****5678, ID 110***********1234, card ****1234, e-mail a***@x.com.

    Order matters: ID numbers first (18 digits would otherwise look like a card), then phones, then
    cards, so each number is masked once by its most specific rule.
    """
    if not text:
        return text
    text = _EMAIL_RE.sub(_mask_email, text)
    text = _CN_ID_RE.sub(_mask_id, text)
    text = _MOBILE_RE.sub(_mask_mobile, text)
    return _CARD_RE.sub(_mask_card, text)


def redact_value(value: Any) -> Any:
    """Redact every string inside a JSON value."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    return value


def redact(text: str) -> str:
    """``redact_text`` when AGENTMEMORY['PII_REDACTION'] is on (the default), else ``text`` unchanged."""
    return redact_text(text) if app_settings.PII_REDACTION else text


def redact_json(value: Any) -> Any:
    return redact_value(value) if app_settings.PII_REDACTION else value

"""PII redaction applied before anything is stored: e-mails, Chinese ID numbers, mobile phones, landlines,
international and North-American phone numbers (not businesses' 400/800 and toll-free hotlines), bank cards
(Luhn), US social security numbers, and street addresses (coarsened to the city or district). Runs on memories, turns (before they are stored), rolling summaries, extraction
payloads and audit details.

Per deployment: AGENTMEMORY['PII_RULES'] lists the rules that run (a host may turn one off) and
AGENTMEMORY['PII_EXTRA_RULES'] adds its own (dotted paths of ``callable(text) -> text``).
"""
from __future__ import annotations

import re
from typing import Any

from django.utils.module_loading import import_string

from .conf import app_settings

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
_EMAIL_RE = re.compile(r"(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-]+)@([A-Za-z0-9.-]+\.[A-Za-z]{2,})")
# Chinese landlines: an area code 0xx / 0xxx, a dash, space or bracket, then 7-8 digits (and an extension).
_LANDLINE_RE = re.compile(
    rf"(?<![0-9\uff10-\uff19])(?<![0-9\uff10-\uff19][\s-])[(（]?(0[1-9\uff11-\uff19]{_D}{{1,2}})[)）]?[\s-]?({_D}{{3,4}})[\s-]?({_D}{{4}})"
    rf"(?:[\s-]?(?:转|ext\.?|x)\s*{_D}{{1,5}})?(?![\s-]?[0-9\uff10-\uff19])"
)
# International numbers: +CC then 6-14 more digits in groups (after +86 mobiles, which keep their own mask).
_INTL_RE = re.compile(r"(?<![\w+])\+([1-9]\d{0,2})[\s.-]?((?:\(?\d{1,4}\)?[\s.-]?){2,5}\d{2,4})(?!\d)")
# North-American numbers without a country code: (415) 555-0132, 415-555-0132, 415.555.0132.
_NANP_RE = re.compile(r"(?<![\d+])(?<!\d[\s.-])(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\s.-]?\d)")
# US social security numbers: 123-45-6789 (area 000, 666 and 9xx are never issued).
_SSN_RE = re.compile(r"(?<![\d-])(?!000|666|9\d\d)(\d{3})-(?!00)(\d{2})-(?!0000)(\d{4})(?![\d-])")
# Chinese street addresses: "...路/街/大道 90 号 (3 栋 2 单元 501 室)" or "...小区 5 栋 301 室", starting right
# after the division that precedes it (省/市/区/县/镇...), which stays, or after 住在 / 在 / 于 / 地址.
_CN_ADMIN = "省市区县镇乡旗"
_CN_UNIT = rf"(?:\s*(?:{_D}+|[A-Za-z]+)\s*(?:栋|幢|座|号楼|单元|层|楼|室|号))"
_CN_STREET_RE = re.compile(
    rf"(?<=[{_CN_ADMIN}\s，,。:：在于址])[^\s，,。:：{_CN_ADMIN}在于]{{1,10}}?"
    rf"(?:(?:路|街|大道|大街|巷|弄|胡同)(?:[东西南北中]段|[一二三四五六七八九十]段)?\s*{_D}+\s*(?:号|號){_CN_UNIT}*"
    rf"|(?:小区|花园|公寓|大厦){_CN_UNIT}+)"
)
# Chinese landmarks standing for an address: "南山区科技园南区腾讯大厦", "成都市环球中心", "海淀区中关村大厦 5 层":
# a building or park name right after the last division before it (not 社区/小区/园区/景区/校区...), which
# stays ("南山区科技园南区" stays, "腾讯大厦" goes). A bare "科技园" or "市中心" (nothing before the landmark
# word) is already coarse and stays, as does a landmark word that names an area ("张江高科技园区").
_CN_LANDMARK_RE = re.compile(
    rf"(?:(?<=[省市县])|(?<=[^社小园景校营厂商学病军]区))[^\s，,。:：；;！!？?、在于的{_CN_ADMIN}]{{1,16}}?"
    rf"(?:大厦|大楼|写字楼|中心|广场|科技园|产业园|工业园|软件园|创业园|商场|商城|花园|公寓|小区)(?![区路街]){_CN_UNIT}*"
)
# English street lines: "90 Wensan Road, Apt 5" (the city and region that follow stay).
_EN_STREET_RE = re.compile(
    r"\b\d{1,6}[A-Za-z]?\s+(?:[A-Z][A-Za-z'.-]*\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|"
    r"Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Highway|Hwy|Parkway|Pkwy|Circle|Cir|Square|Sq|Plaza|Row|Close)\b\.?(?:,?\s*(?:Apt|Apartment|Suite|Ste|Unit|#)\.?\s*[\w-]+)?"
)


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


def _mask_landline(match: re.Match) -> str:
    return f"{_ascii_digits(match.group(1))}-****{_ascii_digits(match.group(3))}"


def _mask_intl(match: re.Match) -> str:
    digits = _ascii_digits(match.group(2))
    if not 6 <= len(digits) <= 14:
        return match.group(0)
    return f"+{match.group(1)} ****{digits[-4:]}"


#: Business lines, not a person's: China's 400/800 service hotlines and North America's toll-free codes.
_HOTLINE_CODES = frozenset({"400", "800", "888", "877", "866", "855", "844", "833"})


def _mask_nanp(match: re.Match) -> str:
    digits = _ascii_digits(match.group(0))
    if digits[:3] in _HOTLINE_CODES:
        return match.group(0)  # "400-800-1234", "1-800-555-0199": a company's hotline stays readable
    return f"***-***-{digits[-4:]}"


def _mask_ssn(match: re.Match) -> str:
    return f"***-**-{match.group(3)}"


def _drop_cn_street(match: re.Match) -> str:
    # After a division (杭州市西湖区) the division is the coarse address that stays; otherwise a marker.
    before = match.string[match.start() - 1] if match.start() else ""
    return "" if before in _CN_ADMIN else "[地址]"


def _drop_en_street(match: re.Match) -> str:
    return "[street address]"


#: The rules by name, in the order they run (the most specific number first, so each is masked once).
RULES: dict[str, tuple[re.Pattern, Any]] = {
    "email": (_EMAIL_RE, _mask_email),
    "cn_id": (_CN_ID_RE, _mask_id),
    "mobile": (_MOBILE_RE, _mask_mobile),
    "card": (_CARD_RE, _mask_card),
    "intl_phone": (_INTL_RE, _mask_intl),
    "landline": (_LANDLINE_RE, _mask_landline),
    "nanp_phone": (_NANP_RE, _mask_nanp),
    "us_ssn": (_SSN_RE, _mask_ssn),
    "address": (None, None),
}


def _coarsen_address(text: str) -> str:
    text = _CN_STREET_RE.sub(_drop_cn_street, text)
    text = _CN_LANDMARK_RE.sub("", text)
    return _EN_STREET_RE.sub(_drop_en_street, text)


def redact_text(text: str, rules: list[str] | tuple[str, ...] | None = None) -> str:
    """``text`` with PII masked: mobile 138****5678, landline 0571-****6666, +1 ****0132, ID
    110***********1234, card ****1234, e-mail a***@x.com, street address dropped after the district.

    Order matters: e-mail, then ID numbers (18 digits would otherwise look like a card), phones, cards,
    addresses last (a house number is not a phone), so each item is masked once by its most specific rule.
    """
    if not text:
        return text
    enabled = RULES.keys() if rules is None else rules
    for name, (pattern, mask) in RULES.items():
        if name not in enabled:
            continue
        text = _coarsen_address(text) if name == "address" else pattern.sub(mask, text)
    return text


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
    """The configured redaction (PII_RULES, then PII_EXTRA_RULES) when AGENTMEMORY['PII_REDACTION'] is on."""
    if not app_settings.PII_REDACTION or not isinstance(text, str) or not text:
        return text
    text = redact_text(text, app_settings.PII_RULES)
    for path in app_settings.PII_EXTRA_RULES:
        text = import_string(path)(text)
    return text


def _is_identifier(key: Any) -> bool:
    # Ids are not PII and must survive intact: a UUID's digit groups can look like a card or a phone.
    return isinstance(key, str) and (key in ("id", "key", "tags_key") or key.endswith(("_id", "_ids")))


def redact_json(value: Any) -> Any:
    """``redact`` on every string inside a JSON value, except the values of identifier keys (``id``,
    ``*_id``, ``*_ids``, ``key``)."""
    if not app_settings.PII_REDACTION:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_json(v) for v in value]
    if isinstance(value, dict):
        return {k: v if _is_identifier(k) else redact_json(v) for k, v in value.items()}
    return value

"""Priors of recall: what a question says about where its answer is, beyond its words.

* **Speaker.** A dialogue-log turn is stored as "Name: words" ("张三：……" in Chinese). When the
  question names exactly one of the speakers among the candidates ("When did Caroline …?",
  "张三什么时候……"), that speaker's turns are the likelier evidence: their relevance is multiplied by
  ``1 + MEMORY_SPEAKER_PRIOR``. A question naming both, or none, changes nothing.
* **Date.** A question naming a month and/or a year ("in May 2023", "2023年5月", "last June") favours
  memories valid then (``valid_from``, else when they were stored): ``1 + MEMORY_DATE_PRIOR``.

Both are multiplicative on the fused relevance, so they reorder close candidates and never lift
a memory the channels did not find.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH_RE = re.compile(r"\b(" + "|".join(MONTHS) + r")\b", re.IGNORECASE)
_ZH_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
              "十一": 11, "十二": 12}
_ZH_MONTH_RE = re.compile(r"(?<![\d十])(1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月")
_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
# "Name: words" / "Name：words": a short name before the first colon, no sentence punctuation in it.
_SPEAKER_RE = re.compile(r"^\s*([^\s:：,，.。!?！？][^:：\n,，.。!?！？]{0,38}?)\s*[:：]")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def speaker_of(text: str) -> str:
    """The speaker prefix of a dialogue-log turn ("Caroline: Hi!" -> "caroline"), or ""."""
    match = _SPEAKER_RE.match(text or "")
    return match.group(1).strip().casefold() if match else ""


def named_speaker(question: str, speakers: Iterable[str]) -> str:
    """The one speaker of ``speakers`` the question names, or "" (none or several)."""
    folded = question.casefold()
    named = set()
    for name in set(speakers):
        if len(name) < 2:
            continue
        if _CJK_RE.search(name):
            found = name in folded
        else:
            found = re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", folded) is not None
        if found:
            named.add(name)
    return named.pop() if len(named) == 1 else ""


def named_period(question: str) -> tuple[set[int], set[int]]:
    """The months (1-12) and years the question names."""
    months = set()
    for match in _MONTH_RE.finditer(question):
        word = match.group(1)
        # "may" and "march" are also a verb: only "May"/"March" written as a name, not opening the question.
        if word.lower() in ("may", "march") and (not word[0].isupper() or not question[:match.start()].strip()):
            continue
        months.add(MONTHS.index(word.lower()) + 1)
    for match in _ZH_MONTH_RE.finditer(question):
        raw = match.group(1)
        months.add(int(raw) if raw.isdigit() else _ZH_DIGITS[raw])
    years = {int(y) for y in _YEAR_RE.findall(question)}
    return months, years


def in_period(when: dt.datetime | None, months: set[int], years: set[int]) -> bool:
    """Whether ``when`` falls in one of the named months (of one of the named years, when any)."""
    if when is None or not (months or years):
        return False
    return (not months or when.month in months) and (not years or when.year in years)

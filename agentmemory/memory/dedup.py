"""Dedup of memories: when a new statement restates an item the user already has (the same slot and value,
a near-identical text, or a paraphrase with the same names, numbers and polarity)."""
from __future__ import annotations

import json
import re
from typing import Any

from ..conf import app_settings
from ..models import MemoryItem
from ..models.fields import exact_cosine_distance
from ..text import keyword_tokens
from ..types import MemoryDraft
from .rows import normalise_content

_DISTINCT_RE = re.compile(r"[a-z0-9]", re.IGNORECASE)
#: Share of keyword tokens two statements must have in common to be merged as duplicates.
_MIN_TOKEN_OVERLAP = 0.6


def _distinct_terms(tokens: set[str]) -> set[str]:
    """Names and numbers (MySQL, 5000): two statements differing in these are not duplicates."""
    return {t for t in tokens if _DISTINCT_RE.search(t)}


# A negation on one side only turns a near-copy into its contradiction ("喜欢咖啡" / "不再喜欢咖啡").
_NEGATION_RE = re.compile(r"不再|不|没有|别|\bno longer\b|\bnot\b|n't\b|\bnever\b|\bno\b", re.IGNORECASE)


def near_identical(a: str, b: str) -> bool:
    """Same names and numbers, the same polarity, and most keyword tokens shared (embeddings alone call
    paraphrases with another value, "行业是母婴用品" / "行业改为跨境电商", or a negation, near-identical)."""
    if bool(_NEGATION_RE.search(a)) != bool(_NEGATION_RE.search(b)):
        return False
    ta, tb = set(keyword_tokens(a)), set(keyword_tokens(b))
    if _distinct_terms(ta) != _distinct_terms(tb):
        return False
    if not ta or not tb:
        return normalise_content(a) == normalise_content(b)
    if ta - tb and tb - ta and len(ta | tb) <= 8:
        # In a short statement a word swapped for another is a new value ("回答简洁" / "回答详细"),
        # not a restatement; only a paraphrase close enough (MEMORY_PARAPHRASE_THRESHOLD) merges then.
        return False
    return len(ta & tb) / len(ta | tb) >= _MIN_TOKEN_OVERLAP


def noisy_or(a: float, b: float) -> float:
    return round(min(1.0, 1.0 - (1.0 - a) * (1.0 - b)), 4)


def norm_value(value: Any) -> str:
    """A slot value compared loosely: "PostgreSQL" = "postgresql", "8万元" = "8万", " 80,000 yuan" = "80000"."""
    text = normalise_content(json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str)
                             else value)
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return re.sub(r"\s+|元|块|人民币|rmb|yuan|dollars?|usd|[\"'“”。.!！]", "", text)


_NAME_OR_NUMBER_RE = re.compile(r"(?<![\w.])(?:[A-Z][\w.+#-]*|\d[\d,.]*)")
_LATIN_WORD_RE = re.compile(r"[A-Za-z][\w.+#-]*|\d[\d,.]*")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def names_and_numbers(text: str) -> set[str]:
    """Proper names and numbers: capitalised words after the first and digits in English, every Latin word
    and number in Chinese text ("MySQL", "5000", "Stripe")."""
    if _CJK_RE.search(text):
        return {w.lower().rstrip(".,") for w in _LATIN_WORD_RE.findall(text)}
    words = _NAME_OR_NUMBER_RE.findall(text.strip()[1:])  # the sentence's first word is capitalised anyway
    return {w.lower().rstrip(".,") for w in words}


def same_facts(a: str, b: str) -> bool:
    """Same polarity and the same names and numbers: the precondition of a paraphrase merge."""
    if bool(_NEGATION_RE.search(a)) != bool(_NEGATION_RE.search(b)):
        return False
    return names_and_numbers(a) == names_and_numbers(b)


def another_value(draft: MemoryDraft, value: Any, candidate: MemoryItem) -> bool:
    """Same slot with another value is a conflict, not a duplicate ("MySQL" vs "PostgreSQL"); two keys of a
    multi-valued slot are two values ("dislikes:芹菜" / "dislikes:香菜")."""
    if not draft.key:
        return False
    if candidate.key == draft.key:
        return value is not None and candidate.value not in (None, value)
    return bool(candidate.key)


def find_duplicate(user_id: str, draft: MemoryDraft, content: str, value: Any, tags_key: str,
                    vector: list[float] | None, model_name: str) -> MemoryItem | None:
    """The active (or cold: a restatement brings it back) item that ``draft`` restates, if any.

    A restatement is: the same slot with the same value (compared loosely); or a near-identical text
    (cosine >= MEMORY_DEDUP_THRESHOLD with most keyword tokens shared); or a paraphrase (cosine >=
    MEMORY_PARAPHRASE_THRESHOLD, other words allowed). All of them need the same names, numbers and
    polarity, and a slot holding another value is a conflict, never a duplicate.
    """
    scope = (MemoryItem.objects.for_user(user_id)
             .filter(status__in=[MemoryItem.Status.ACTIVE, MemoryItem.Status.COLD])
             .filter(type=draft.type, tags_key=tags_key, agent_id=draft.agent_id))
    if draft.key and value is not None:  # the same value, however written, in the same slot
        wanted = norm_value(value)
        for candidate in scope.filter(key=draft.key).exclude(value=None).order_by("-id")[:20]:
            if norm_value(candidate.value) == wanted:
                return candidate
    if vector is None:  # embedder down: compare text with the recent items of the same type
        for candidate in scope.order_by("-id")[:50]:
            if another_value(draft, value, candidate):
                continue
            if near_identical(candidate.content, content):
                return candidate
        return None
    threshold = app_settings.MEMORY_DEDUP_THRESHOLD
    paraphrase = app_settings.MEMORY_PARAPHRASE_THRESHOLD
    candidates = (scope.filter(embedding_model=model_name)
                  .annotate(distance=exact_cosine_distance("embedding", vector))
                  .filter(distance__lte=1.0 - min(threshold, paraphrase)).order_by("distance")[:5])
    for candidate in candidates:
        if another_value(draft, value, candidate):
            continue
        similarity = 1.0 - float(candidate.distance)
        if similarity >= threshold and near_identical(candidate.content, content):
            return candidate
        if similarity >= paraphrase and same_facts(candidate.content, content):
            return candidate
    return None

"""Context tags: a statement about one named project or product ("java-billing项目", "the Atlas app").

A name is an identifier (with a capital, digit, - _ or .) or quoted, so "the new project" names nothing.
"""
from __future__ import annotations

import re

from .base import is_chinese

_NAME = r"[A-Za-z0-9][\w.\-]{1,40}"
_ZH_CONTEXT_RE = re.compile(
    rf"(?P<n>{_NAME})\s*(?P<k>项目|工程|产品|系统)|[「“\"《](?P<q>[^」”\"》]{{1,30}})[」”\"》]\s*(?P<k2>项目|产品|系统)")
_EN_CONTEXT_RE = re.compile(
    rf"\b(?:the|our|my|on|for|in)\s+(?P<n>{_NAME})\s+(?P<k>project|product|app|service|repo)\b|"
    rf"\b(?P<k2>project|product)\s+(?P<m>{_NAME})\b")
_CONTEXT_KIND = {"项目": "project", "工程": "project", "系统": "project", "产品": "product", "project": "project",
                 "repo": "project", "service": "project", "product": "product", "app": "product"}


def context_tags(sentence: str) -> dict[str, str]:
    """``{"project": name}`` or ``{"product": name}`` when the sentence is about one named project/product."""
    pattern = _ZH_CONTEXT_RE if is_chinese(sentence) else _EN_CONTEXT_RE
    for match in pattern.finditer(sentence):
        name = match.group("n") or match.groupdict().get("q") or match.groupdict().get("m") or ""
        kind = match.group("k") or match.group("k2") or ""
        quoted = bool(match.groupdict().get("q"))  # "project Atlas" is no quote: "product analyst" names nothing
        if not quoted and not is_chinese(sentence) and not re.search(r"[A-Z0-9_.\-]", name):
            continue  # "the billing project": an ordinary word, not a name
        if name.lower() in {"this", "that", "the", "our", "my", "new", "old", "same", "whole"}:
            continue
        return {_CONTEXT_KIND[kind.lower()]: name.strip()}
    return {}

"""Stage 4, budget: at most CONTEXT_MEMORY_MAX_ITEMS memories, then fill the token budget by score, with a
cap on memory.

Pure. The current message, the instructions and the section headers are fixed costs; what remains
is filled in two passes. Memory (profile and long-term memory) goes first but only up to its cap
(AGENTMEMORY['CONTEXT_MEMORY_SHARE'] of the budget, a quarter by default), so the knowledge never
crowds out the profile and the profile never crowds out the facts; memory is taken strictly in score
order (the first memory that does not fit closes the section, so what is kept is always the
highest-scoring). Knowledge and working memory then share the rest in score order, a long item that
does not fit letting shorter, lower-scored ones through.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..text import keyword_tokens, query_terms
from ..types import ContextItem
from ..working.corrections import SLOT_TOPICS, clauses, topics
from ..working.grounding import about_another_person
from .combine import MEMORY_LAYERS

#: A query about how the user wants answers ("How does the user like answers formatted?", "用户希望怎么回复？").
_ANSWERS_RE = re.compile(r"回答|回复|格式|语言|\b(?:answers?|repl(?:y|ies)|responses?|format\w*|language)\b", re.IGNORECASE)


#: Topics the secondary places read beside the correction vocabulary's (working/corrections.py), which is kept narrow
#: for guessing what a correction replaces: a question's words ("用户有什么健康问题？", "What health condition …") and a
#: statement's ("医生说我贫血", "I'm deckhand on the Inis Mór ferry", "we stay in Empangeni").
_MORE_TOPICS = {
    "health": re.compile(r"健康|身体|[疾毛]病|病史|过敏|不耐受|贫血|痛风|血压|血糖|糖尿|哮喘|胃病|关节炎|腰间盘|医生说我|"
                         r"\b(?:health|medical|conditions?|allerg\w*|intoleran\w*|diabet\w*|coeliac|celiac|asthma|"
                         r"arthritis|migraines?|injur\w*|blood pressure|gout|an(?:a)?emi\w*)\b", re.IGNORECASE),
    "work": re.compile(r"工作|上班|职业|做什么的|干什么的|[在于][^\s，,。！？]{1,10}?(?:做|当|干)(?!饭|菜|作业|家务)|"
                       r"\b(?:job|jobs|occupation|profession|employ\w*|career)\b|\b(?:i|we) work\b|\bmy work\b|"
                       r"\bwork(?:s|ing)? (?:at|for|as)\b|\bfor work\b|"
                       r"\b(?:i'm|im|i am) (?:an? )?(?!(?:looking|going|waiting|staying|off|out|up|here|back|just|still|"
                       r"heading|shopping|saving|bit|little|lot|big|huge|so|really|very|totally|kinda|pretty|super|literally|stuck|lost|"
                       r"getting|having|obsessed)\b)(?:[\w-]+ ){1,3}(?:(?:at|on|for) the\b(?! (?:moment|weekend|end|gym)\b)|"
                       r"at an? (?:practice|clinic|firm|school|hospital|shop|restaurant|bar|hotel|factory|plant|mill|farm|garage|"
                       r"salon|bakery|cafe|warehouse|depot|pharmacy|lab|agency|startup)\b)|"
                       r"\bi (?:do|run) (?:[\w-]+ ){0,2}(?:at|for) the\b", re.IGNORECASE),
    "car": re.compile(r"(?<![火动购单马])车(?!站|间|票|厘子|位)|我(?:家)?那(?:台|辆)(?!电脑|手机)|\b(?:car|truck|van|ute|bakkie|suv|pickup|drives?|driving)\b",
                      re.IGNORECASE),
    "home": re.compile(r"(?<![记忍禁挡])住(?!院|酒店|宾馆)|家在|老家|(?:边上|旁边)(?=$|[\s，,。])|"
                       r"\b(?:live|lives|living|stay in|based in|suburb|hometown)\b|\b(?:my|our) home\b", re.IGNORECASE),
}


#: Topics of a query that say little of what it asks ("What is the name of …", "When …").
_NOT_ASKED = frozenset({"name", "schedule", "date"})


def _topics_of(text: str) -> set[str]:
    """The topics ``text`` speaks of, for the secondary places."""
    return topics(text) | {name for name, pattern in _MORE_TOPICS.items() if pattern.search(text)}


#: Someone else said to be or do something ("he's a sous chef", "她在医院上班").
_SOMEONE_ELSE_IS_RE = re.compile(r"\b(?:he|she|they)(?:'s|'re| is| are| works?| worked)\b|[他她](?:是|在|做|当)|"
                                 r"\b(?:my|our) (?:partner|wife|husband|boyfriend|girlfriend|fianc\w*|mum|mom|dad|brother|"
                                 r"sister|son|daughter|friend|mate)(?: [a-z]+)?(?: is| works|'s)\b|"
                                 r"(?:老公|老婆|男朋友|女朋友|对象|爸|妈|哥|姐|弟|妹|朋友)(?:[\u4e00-\u9fff]{1,2})?(?:是|在)", re.IGNORECASE)


@dataclass(frozen=True)
class BudgetResult:
    kept: list[ContextItem]
    dropped: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)


#: Profile facts that open the memory section ("3 core + 2 secondary").
CORE_FACTS = 3
def select_memories(items: list[ContextItem], *, max_items: int,
                    query: str = "") -> tuple[list[ContextItem], list[dict[str, Any]]]:
    """``items`` (best first) with at most ``max_items`` memories, the profile summary aside: up to three core
    facts (the profile's, best first), then a further profile fact of what the query asks about, then what recall
    found, then the profile's other facts. A model-inferred memory comes only
    when it covers the query (shares a content word with it) and no stated memory does ("用户可能喜欢安静的环境"
    stays out of "帮我写一封邮件").
    Returns the items kept (others untouched, order kept) and the memories left out, each with its reason."""
    memories = [it for it in items if it.layer in MEMORY_LAYERS and it.kind != "summary"]
    dropped: list[dict[str, Any]] = []
    terms = set(query_terms(query))

    def covers(item: ContextItem) -> bool:
        return bool(terms & set(keyword_tokens(item.text)))

    stated_covers = any(it.ref.get("source") != "model_inferred" and covers(it) for it in memories)
    eligible = []
    for item in memories:
        if item.ref.get("source") == "model_inferred" and (stated_covers or not covers(item)):
            why = "a stated memory covers the query" if stated_covers else "inferred, and not about the query"
            dropped.append(_drop(item, why, reason="inferred"))
        else:
            eligible.append(item)
    core = [it for it in eligible if it.layer == "profile"][:CORE_FACTS]
    # The secondary places: a further profile fact of what the query asks about (its slot's topic, and a word of the
    # query beside "user": "The user's partner: wife Colleen" for "What is the user's wife's name?", not for "How old
    # is the user's daughter?"), then what recall found for the query, then the profile's other facts, which are
    # loaded whatever the query asks ("The user wants answers: bullet points" beside "the names of the user's twins").
    asked = topics(query) if query else set()
    words = terms - {"user", "users", "用户"}

    def asked_about(item: ContextItem) -> bool:
        slot = str(item.ref.get("key") or "").split(":")[0]
        return (bool(asked & SLOT_TOPICS.get(slot, frozenset())) or (slot == "reply_style" and bool(_ANSWERS_RE.search(query)))) \
            and bool(words & set(keyword_tokens(item.text)))

    further = [it for it in eligible if it not in core and it.layer == "profile"]
    # Of what recall found, what speaks of the topic asked comes first, best first ("我家猫酸笋就托给邻居" for "用户的猫叫什么
    # 名字？" before a closer-worded message about the trip).
    # Read clause by clause, not what someone else is said to be ("my partner femi is a nurse", "he's a sous chef" for
    # "What is the user's job?").
    recalled = [it for it in eligible if it not in core and it.layer != "profile"]
    asked_more = (_topics_of(query) - _NOT_ASKED) if query else set()
    topical = {id(it) for it in recalled if any(asked_more & _topics_of(c) and not about_another_person(c)
                                                 and not _SOMEONE_ELSE_IS_RE.search(c) for c in clauses(it.text))}
    recalled = [it for it in recalled if id(it) in topical] + [it for it in recalled if id(it) not in topical]
    rest = [it for it in further if asked_about(it)] + recalled + [it for it in further if not asked_about(it)]
    chosen = {id(it) for it in (core + rest)[:max(0, max_items)]}
    for item in rest[max(0, max_items - len(core)):]:
        if id(item) not in chosen:
            dropped.append(_drop(item, f"memory section holds {max_items} items", reason="memory_items"))
    left_out = {id(it) for it in memories if id(it) not in chosen}
    return [it for it in items if id(it) not in left_out], dropped


def memory_cap(budget: int, share: float) -> int:
    """Tokens memory may use in a budget (header included)."""
    return max(0, math.floor(budget * max(0.0, min(1.0, share))))


def fill_budget(items: Iterable[ContextItem], *, budget: int, fixed_tokens: int, memory_share: float,
                memory_header_tokens: int = 0) -> BudgetResult:
    """Keep the items that fit, best first; ``items`` carry their own rendered cost in ``tokens``.

    ``fixed_tokens`` (instructions, headers, current message) must already fit in ``budget``; the
    caller rejects the request otherwise. ``memory_header_tokens`` is the memory section's header,
    counted against the memory cap so the whole rendered section stays within it.
    """
    ranked = sorted(items, key=lambda it: -it.score)
    free = budget - fixed_tokens
    cap = memory_cap(budget, memory_share)
    memory_free = max(0, min(cap - memory_header_tokens, free))
    kept: list[ContextItem] = []
    dropped: list[dict[str, Any]] = []
    memory_used = 0
    memory_closed = False
    for item in ranked:
        if item.layer not in MEMORY_LAYERS:
            continue
        if not memory_closed and item.tokens <= memory_free - memory_used:
            kept.append(item)
            memory_used += item.tokens
            continue
        memory_closed = True
        dropped.append(_drop(item, f"memory cap: {memory_free - memory_used} of {cap} tokens left, "
                                   f"needs {item.tokens}"))
    free -= memory_used
    other_used = 0
    for item in ranked:
        if item.layer in MEMORY_LAYERS:
            continue
        if item.tokens <= free - other_used:
            kept.append(item)
            other_used += item.tokens
        else:
            dropped.append(_drop(item, f"budget: {free - other_used} tokens left, needs {item.tokens}"))
    kept.sort(key=lambda it: -it.score)
    usage = {"budget": budget, "fixed": fixed_tokens, "memory_cap": cap, "memory": memory_used,
             "other": other_used, "unused": budget - fixed_tokens - memory_used - other_used}
    return BudgetResult(kept=kept, dropped=dropped, usage=usage)


def _drop(item: ContextItem, detail: str, *, reason: str = "budget") -> dict[str, Any]:
    return {"key": item.key, "layer": item.layer, "kind": item.kind, "score": item.score,
            "tokens": item.tokens, "reason": reason, "detail": detail}

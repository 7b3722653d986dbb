"""An amount said anew for a budget the user already gave, in words no budget pattern reads.

"预算1500" then, a session later, "钱那边也压一压 … 控制在1000块"; "budget is 25k CAD" then "after the roof surprise
we've got 18k for the kitchen now"; "预算6000" then "接了两单大活 能放到9000了". The second message names no budget, so no
slot pattern reads it; but said by a user who has a budget, with a word of change beside an amount of money, it is the
budget's new value. The draft this module adds is the budget slot's, so the rest of the write side treats it as any
budget said again: the old budget fact and the episodes that said its value are replaced (working/episodes.py).
"""
from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ..backends.extractors.base import TurnText, is_chinese
from ..backends.extractors.patterns import slot_of
from ..models import MemoryItem
from ..types import MemoryDraft

_I = re.IGNORECASE

#: An amount of money as said: a currency sign or word, or a multiplier ("18k", "2m naira", "1000块", "1.5万", "$900").
_MONEY_RE = re.compile(
    r"(?P<v>(?:[$£€¥₦₹]|(?-i:R|Rs\.?|A\$|NZ\$|C\$|US\$|S\$)\s?)\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|grand)\b)?"
    r"|\d[\d,]*(?:\.\d+)?\s?(?:k|m|grand|lakhs?|crores?)?\s?(?:naira|rupees|rand|shillings|cedis|pesos|dollars|bucks|"
    r"quid|pounds|euros?|usd|cad|aud|nzd|sgd|gbp|eur|zar|ngn|kes|inr|php|rmb)\b"
    r"|\d[\d,]*(?:\.\d+)?\s?(?:k|grand|lakhs?|crores?)\b"
    r"|(?:[0-9][0-9,.]*|[一二两三四五六七八九十]+)\s*(?:万|千)(?:[1-9一二两三四五六七八九](?![0-9个天人晚岁年月位号]))?(?:元|块钱?)?"
    r"|[0-9][0-9,.]*\s*(?:元|块钱?))", _I)
#: A bare number right after a word that sets a limit ("能放到9000了", "控制在1000"): a value of the same kind as before.
_SET_TO_RE = re.compile(r"(?:放到|控制在|压到|压在|加到|提到|涨到|降到|砍到|减到|调到|上限|顶多|最多|撑死)\s*(?P<v>\d{3,}(?:\.\d+)?)"
                        r"(?![\d.]*\s*(?:岁|年|月|日|号|点|分|秒|天|周|个|次|楼|层|斤|公斤|kg|km|公里|米|%|小时|题|人|G|寸|平))", _I)
#: Words that say the amount is new ("现在", "now", "working with", "控制在", "went up to").
_NEW_AMOUNT_RE = re.compile(r"现在|改成|变成|只有|只剩|能放到|放到|控制在|压到|压在|加到|提到|涨到|降到|砍到|减到|上限|顶多|最多|撑死|"
                            r"\b(?:now|working with|we've got|we have got|i've got|got|went up to|gone up to|down to|cut to|"
                            r"raised to|bumped (?:it )?(?:up )?to|stretch to|max|tops|all in)\b", _I)
#: Money that is no budget: pay, rent, a debt, a price asked about, what someone else has.
_NOT_A_BUDGET_RE = re.compile(r"工资|月薪|年薪|收入|到手|房租|房贷|车贷|租金|欠|借|利息|价格|多少钱|报价|\b(?:salary|income|take home|"
                              r"take-home|paid|pay|rent|mortgage|loan|owe|debt|interest|price[sd]?|costs?|quoted?|"
                              r"per month|a month|/month|an hour|/hr|per hour|run|ran|running|race|walk\w*|steps|km|miles)\b", _I)
_QUESTION_END_RE = re.compile(r"[?？]\s*$|吗\s*$")
_CLAUSE_RE = re.compile(r"(?<=[，。；！？,;!?])|\s+(?=[\u4e00-\u9fff])")


def _amount(message: str) -> str:
    """The new amount a message states, or "": in a clause that is no question, with a word of change and no word of
    pay, rent or price, the only amount of money of the clause."""
    for clause in (c.strip() for c in _CLAUSE_RE.split(message)):
        if not clause or _QUESTION_END_RE.search(clause) or _NOT_A_BUDGET_RE.search(clause):
            continue
        found = [m.group("v") for m in _MONEY_RE.finditer(clause)] or [m.group("v") for m in _SET_TO_RE.finditer(clause)]
        if len(found) == 1 and _NEW_AMOUNT_RE.search(clause):
            return found[0].strip(" ,")
    return ""


def budget_drafts(user_id: str, messages: Sequence[TurnText], drafts: Sequence[MemoryDraft],
                  others: Collection[int | None]) -> list[MemoryDraft]:
    """Budget drafts for the messages that state a new amount for the user's current budget (see the module's doc):
    not a message about someone else (``others``), nor one whose budget a pattern read already, and only when the
    user has a budget of an amount."""
    filled = {d.turn_id for d in drafts if d.key == "budget"}
    candidates = [(t, amount) for t in messages if t.turn_id not in others and t.turn_id not in filled
                  and (amount := _amount(t.content or ""))]
    if not candidates:
        return []
    has_budget = any(any(ch.isdigit() for ch in str(value)) for value in MemoryItem.objects.for_user(user_id).current()
                     .filter(key="budget").values_list("value", flat=True)) or any(
        d.key == "budget" and any(ch.isdigit() for ch in str(d.value)) for d in drafts)
    if not has_budget:
        return []
    slot = slot_of("budget")
    out = []
    for turn, amount in candidates:
        zh = is_chinese(turn.content)
        out.append(MemoryDraft(
            content=(slot.zh if zh else slot.en).format(v=amount), type=slot.type, source=MemoryItem.Source.USER_STATED,
            key="budget", value=amount, confidence=slot.confidence, quality=slot.quality, agent_id=turn.agent_id,
            session_id=turn.session_id, turn_id=turn.turn_id, excerpt=turn.content[:500],
            tags={"slot": "budget", "extractor": "rules", "correction": "true"}))
    return out

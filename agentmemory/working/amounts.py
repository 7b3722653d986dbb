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
#: (each numeric alternative starts where no digit is before it: a long run of digits is read once, not from each digit)
_MONEY_RE = re.compile(
    r"(?P<v>(?:[$£€¥₦₹]|(?<![A-Za-z])(?-i:R|Rs\.?|A\$|NZ\$|C\$|US\$|S\$)\s?)(?<![\d,.])\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|grand)\b)?"
    r"|(?<![\d,.])\d[\d,]*(?:\.\d+)?\s?(?:k|m|grand|lakhs?|crores?)?\s?(?:naira|rupees|rand|shillings|cedis|pesos|dollars|bucks|"
    r"quid|pounds|euros?|usd|cad|aud|nzd|sgd|gbp|eur|zar|ngn|kes|inr|php|rmb)\b"
    r"|(?<![\d,.])\d[\d,]*(?:\.\d+)?\s?(?:k|grand|lakhs?|crores?)\b"
    r"|(?:(?<![\d,.])[0-9][0-9,.]*|[一二两三四五六七八九十]+)\s*(?:万|千)(?:[1-9一二两三四五六七八九](?![0-9个天人晚岁年月位号]))?(?:元|块钱?)?"
    r"|(?<![\d,.])[0-9][0-9,.]*\s*(?:元|块钱?))"
    # not a count of something that is no money ("12k words", "两万粉丝", "一万步", "三千人", "a 4k monitor")
    r"(?!\s*(?:words?|followers?|subs(?:cribers)?|views?|steps?|people|users?|miles|km|monitor|tv|screen|video|"
    r"粉丝?|步|人|字|个|次|米|公里|播放|阅读|价))", _I)
#: A bare number right after a word that sets a limit ("能放到9000了", "控制在1000", "人均现在只有1500了"): taken only when it is near the
#: budget the user gave (see _near).
_SET_TO_RE = re.compile(r"(?:放到|控制在|压到|压在|加到|提到|涨到|降到|砍到|减到|调到|上限|顶多|最多|撑死|只有|只剩)\s*(?P<v>(?<![\d.])\d{3,}(?:\.\d+)?)"
                        r"(?![\d.]*\s*(?:岁|年|月|日|号|点|分|秒|天|周|个|次|楼|层|斤|公斤|kg|km|公里|米|%|小时|题|人|G|寸|平))", _I)
#: Words that say the amount is new ("现在", "now", "working with", "控制在", "went up to").
_NEW_AMOUNT_RE = re.compile(r"现在|改成|变成|只有|只剩|能放到|放到|控制在|压到|压在|加到|提到|涨到|降到|砍到|减到|上限|顶多|最多|撑死|"
                            r"\b(?:now|working with|we've got|we have got|i've got|got|went up to|gone up to|jumped to|jumped up to|rose to|"
                            r"increased to|up to|down to|cut to|"
                            r"raised to|bumped (?:it )?(?:up )?to|stretch to|max|tops|all in)\b", _I)
#: Money that is no budget: pay, rent, a debt, a price, what something costs, someone else's.
_NOT_A_BUDGET_RE = re.compile(r"工资|月薪|年薪|收入|到手|房租|房贷|车贷|租金|欠|借|利息|价格|油价|房价|多少钱|报价|零花钱|红包|粉丝|播放|阅读|"
                              r"\b(?:salary|income|take home|take-home|paid|pay|rent|mortgage|loan|owe|debt|interest|"
                              r"price[sd]?|costs?|quoted?|for \$|per month|a month|/month|an hour|/hr|per hour|run|ran|running|"
                              r"race|walk\w*|steps|km|miles|followers|subscribers|views|words)\b", _I)
#: A clause that asks, wishes or supposes ("能不能放到9000", "要不要加到8000", "如果能放到9000就好了", "should we go up to 20k").
_ASKS_OR_SUPPOSES_RE = re.compile(r"[?？]\s*$|吗\s*$|能不能|要不要|可不可以|该不该|如果|假如|要是|万一|\b(?:if|should|could|can|would|"
                                  r"what if|maybe)\b", _I)
#: Clauses of a message: after a stop, or a comma that is not inside a number ("$12,000"), or at a space before Chinese.
_CLAUSE_RE = re.compile(r"(?<=[，。；！？;!?])|(?<=,)(?!\d)|\s+(?=[\u4e00-\u9fff])")
_MULTIPLIERS = {"k": 1e3, "grand": 1e3, "m": 1e6, "千": 1e3, "万": 1e4, "lakh": 1e5, "lakhs": 1e5, "crore": 1e7,
                "crores": 1e7}
_ZH_DIGITS = dict(zip("一二两三四五六七八九十", (1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10), strict=True))


def _number(amount: str) -> float | None:
    """The number an amount says ("18k" 18000, "1.5万" 15000, "2m naira" 2e6, "两万" 20000), or None."""
    digits = re.search(r"\d[\d,]*(?:\.\d+)?", amount)
    if digits:
        value = float(digits.group(0).replace(",", ""))
    elif (han := re.search(r"[一二两三四五六七八九十]", amount)) is not None:
        value = float(_ZH_DIGITS[han.group(0)])
    else:
        return None
    unit = re.search(r"(?<![A-Za-z])(k|m|grand|lakhs?|crores?)\b|(千|万)", amount, _I)
    return value * _MULTIPLIERS[(unit.group(1) or unit.group(2)).lower()] if unit else value


def _near(new: str, old_values: list[float]) -> bool:
    """Whether a new amount is of the size of a budget the user gave (a third to three times one): "控制在1000块" of
    "预算1500", not "现在油价7块多"."""
    value = _number(new)
    return value is not None and any(old / 3 <= value <= old * 3 for old in old_values if old > 0)


def _amount(message: str) -> str:
    """The new amount a message states, or "": in a clause that neither asks nor supposes, with a word of change and no
    word of pay, rent or price, the only amount of money of the clause, else a bare number right after a word that sets
    a limit ("能放到9000了")."""
    for clause in (c.strip() for c in _CLAUSE_RE.split(message)):
        if not clause or _ASKS_OR_SUPPOSES_RE.search(clause) or _NOT_A_BUDGET_RE.search(clause):
            continue
        found = [m.group("v") for m in _MONEY_RE.finditer(clause)] or [m.group("v") for m in _SET_TO_RE.finditer(clause)]
        if len(found) == 1 and _NEW_AMOUNT_RE.search(clause):
            return found[0].strip(" ,")
    return ""


def budget_drafts(user_id: str, messages: Sequence[TurnText], drafts: Sequence[MemoryDraft],
                  others: Collection[int | None]) -> list[MemoryDraft]:
    """Budget drafts for the messages that state a new amount for the user's current budget (see the module's doc):
    not a message about someone else (``others``), nor one whose budget a pattern read already, and only an amount of
    the size of a budget the user gave."""
    filled = {d.turn_id for d in drafts if d.key == "budget"}
    said = [(t, amount) for t in messages if t.turn_id not in others and t.turn_id not in filled
            and (amount := _amount(t.content or ""))]
    if not said:
        return []  # no amount said anew: no query
    budgets = [*MemoryItem.objects.for_user(user_id).current().filter(key="budget").values_list("value", flat=True),
               *(d.value for d in drafts if d.key == "budget")]
    old_values = [v for v in (_number(str(b)) for b in budgets) if v is not None]
    slot = slot_of("budget")
    out = []
    for turn, amount in said:
        if not _near(amount, old_values):  # (no budget of an amount: nothing to say anew)
            continue
        zh = is_chinese(turn.content)
        out.append(MemoryDraft(
            content=(slot.zh if zh else slot.en).format(v=amount), type=slot.type, source=MemoryItem.Source.USER_STATED,
            key="budget", value=amount, confidence=slot.confidence, quality=slot.quality, agent_id=turn.agent_id,
            session_id=turn.session_id, turn_id=turn.turn_id, excerpt=turn.content[:500],
            tags={"slot": "budget", "extractor": "rules", "correction": "true"}))
    return out

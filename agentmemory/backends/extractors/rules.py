"""RuleBasedExtractor: the offline default; Chinese and English patterns mapped to a slot vocabulary.

Deterministic: the same turns always give the same drafts in the same order. Only user turns are
read (what the assistant said is not ``user_stated``). Each pattern captures a value inside one
clause; the slot decides the memory type and how the memory is worded. The vocabulary is
documented in docs/working_memory.md.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ...text import split_sentences
from ...types import MemoryDraft
from .base import ExistingMemory, Extractor, TurnText, is_chinese, safe_key
from .chat import chat_chinese, chat_english
from .context_tags import context_tags
from .lexicon import is_place, tech_names
from .patterns import (
    ACQUIRED_AT_RE,
    BUDGET_CUE_RE,
    CAR_MAKES_EN,
    CAR_MAKES_ZH,
    COMMUTE_SAID_RE,
    CORRECTION_RE,
    DIET_STYLE_RE,
    EMPTY_VALUES,
    EN_MONEY_RE,
    EN_RETRACT,
    EN_RULES,
    NAMED_PET_RE,
    PET_NAMED_FIRST_RE,
    PHONE_MAKES,
    REMEMBER_PREFIX_RE,
    REMEMBER_RE,
    WORKMATE_AT_RE,
    ZH_CALLED_BY_SURNAME,
    ZH_MONEY_RE,
    ZH_RETRACT,
    ZH_RULES,
    operator_slots,
    slot_of,
)

_I = re.IGNORECASE


#: First words that make a "not X" a figure of speech, not a value ("not my thing", "not at all").
_NOT_A_VALUE = frozenset("my your his her our their the a an that this it at in into so really sure all just only "
                         "much bad sure yet".split())
_RETRACT_SLOT = {"likes": "unlikes", "dislikes": "retract_dislikes", "do_not_recommend": "retract_do_not_recommend",
                 "diet": "retract_diet"}
_RETRACT_PREFIX_RE = re.compile(r"^(?:其实|现在|我们|我|对|嗯|哦|但是|但|不过|而且|也|就|"
                                r"(?:remember|note|keep in mind)(?: that)?\s+|actually,?\s+|oh,?\s+|ok(?:ay)?,?\s+|well,?\s+|"
                                r"but\s+|also\s+|and\s+|so\s+)+", re.IGNORECASE)
#: Capitalised words after "I'm" that are not names.
_NOT_NAMES = frozenset("""american chinese british canadian indian japanese korean german french spanish italian
australian mexican brazilian russian english christian muslim jewish catholic buddhist hindu sorry fine good okay ok
back done here ready sure happy tired busy free not so just also still now always glad new and but or yes yeah well
anyway look this that there it what right over out""".split())
#: Languages people speak are not a tech stack ("I switched from Italian to Korean").
_HUMAN_LANGUAGE_RE = re.compile(r"(?:english|korean|japanese|chinese|mandarin|cantonese|spanish|french|german|italian|"
                                r"portuguese|russian|arabic|hindi|dutch|swedish|turkish|vietnamese|thai|greek|polish|"
                                r"hebrew|indonesian|英语|韩语|日语|中文|普通话|粤语|西班牙语|法语|德语|意大利语|葡萄牙语|俄语)$",
                                re.IGNORECASE)
_CALENDAR_RE = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|"
                          r"august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|"
                          r"sunday|next|tomorrow|today|tonight)\b", re.IGNORECASE)
#: A value that is only days of the week ("thursdays", "weekends only", "tuesdays and thursdays").
_WEEKDAYS_RE = re.compile(r"(?:(?:on |at )?(?:the )?(?:weekends?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?)(?: only)?"
                          r"(?:,? (?:and|or|&|not) |, )?)+", re.IGNORECASE)
_MAKES_RE = re.compile(rf"(?:{PHONE_MAKES}|{CAR_MAKES_ZH}|(?:{CAR_MAKES_EN})\b)", re.IGNORECASE)
#: A chosen thing said only as a pronoun ("I chose them 'cause ...") names nothing a memory could keep.
_ZH_PRONOUN_VALUE_RE = re.compile(r"^(?:它|他|她)")
_PRONOUN_VALUE_RE = re.compile(r"(?:them|it|this|that|these|those|him|her|one)\b", re.IGNORECASE)
_WORK_CUE_RE = re.compile(r"\b(?:started|joined|job|role|team|company|hired|offer|position|(?<!from )(?<!after )(?<!before )work|"
                          r"working|employer)\b", _I)
_JOB_CHANGE_RE = re.compile(r"跳槽|入职|换工作|换了工作|离职|辞职|不在.{1,12}?(?:了|工作|上班)|离开(?:了)?.{1,12}|"
                            r"\b(?:left|quit) my job\b|\bnew job\b", re.IGNORECASE)
_SWITCH_CUE_RE = re.compile(r"迁|换成|改用|切换|重写|\bnow\b|\bswitched\b|\bmigrated\b|\brewrote\b|\bmoved\b|\bported\b", _I)

# A clause about someone else ("我同事刚搬到上海", "my sister moved to Seattle") or a hypothesis
# ("如果预算是5万", "if our budget were ...") states nothing about the user.
_THIRD_PARTY_RE = re.compile(
    rf"(?:同事|朋友|老板|领导|老婆|老公|妻子|丈夫|孩子|小孩|闺女|儿子|女儿|姐姐|妹妹|哥哥|弟弟|爸爸|妈妈|父母|家人|别人|大家|他们|她们|"
    rf"(?<![其吉])他|她|(?<!其)它|程序员|人们|客户|用户们|{ZH_CALLED_BY_SURNAME})"
    r"|\b(?:my (?:sister|brother|friend|boss|wife|husband|partner|mom|mother|dad|father|kids?|son|daughter|colleague|"
    r"coworker|manager|team ?mate)s?|he|she|people|someone|everyone|most devs|devs)\b", re.IGNORECASE)
_HYPOTHETICAL_RE = re.compile(r"如果|假如|假设|要是|万一|\bif\b|\bsuppose\b|\bimagine\b|\bwhat if\b", re.IGNORECASE)
_QUESTION_RE = re.compile(r"吗|什么|怎么|多少|哪|为什么|如何|是不是|\b(?:what|how|why|which|who|do|does|is|are|should|can|could)\b.*\?$|[?？]\s*$",
                          re.IGNORECASE)


_SELF_START_RE = re.compile(r"^\W*(?:(?:嗯|哦|对了|其实|另外|还有|不过|但是|所以)\W*)*(?:我|咱|\b(?:I|I'm|I've|I'd|we|we're|my|our)\b)",
                            re.IGNORECASE)
#: An English clause with no subject of its own ("work at Alibaba" after "I live in Shanghai and"): the
#: previous clause's subject, with "I" put back so the patterns read it.
_BARE_VERB_RE = re.compile(r"^\s*(?:(?:update|edit|correction)\s?[:,-]?\s+)?(?:also |now |currently |just )?(?P<verb>work|live|am|have|own|drive|use|play|study|moved|"
                           r"started|joined|got|love|like|hate|teach|run)\b(?! \d| about\b| maybe\b| a (?:few|couple)\b| any\b| (?:you|u|ya)\b|"
                           # chat's filler "like" before an amount: "i only have an instant pot and like one sad pan"
                           r"(?<=like)(?= (?:one|two|three|four|five|ten|half|literally|so|super|really|barely|zero|none|no)\b))",
                           re.IGNORECASE)


_OTHER_START_RE = re.compile(
    r"^\W*(?:(?:嗯|哦|对了|另外|还有|不过|但是|所以)\W*)*(?:我的?|我们的?|咱们?的?)?(?:同事|朋友|老板|领导|老婆|老公|妻子|丈夫|男朋友|女朋友|未婚夫|未婚妻|媳妇|爱人|孩子|儿子|"
    rf"女儿|姐姐|妹妹|哥哥|弟弟|爸爸|妈妈|父母|家人|别人|大家|他们|她们|他|她|它|客户|{ZH_CALLED_BY_SURNAME})"
    r"|^\W*(?:my|our) (?:sister|brother|friend|boss|wife|husband|partner|mom|mother|dad|father|kids?|son|daughter|colleague|"
    r"coworker|manager|team ?mate)s?\b|^\W*(?:he|she|people|someone|everyone)\b", re.IGNORECASE)


_FAMILY_SLOTS = frozenset({"child", "partner", "pet", "family"})
_OWN_FAMILY_RE = re.compile(
    r"^\W*(?:还有|而且|另外|对了|然后|(?:oh )?and |also )?(?:我的?|我家|咱家|\bmy\b|\bour\b|(?=老公|老婆|儿子|女儿|闺女|大宝|二宝))\s*(?:老公|老婆|男朋友|女朋友|对象|未婚夫|未婚妻|儿子|女儿|孩子|闺女|宝宝|大宝|二宝|"
    r"弟弟|妹妹|哥哥|姐姐|老弟|老妹|弟|妹|哥|姐|妈妈|爸爸|老妈|老爸|妈|爸|"
    r"husband|wife|partner|boyfriend|girlfriend|fianc\w*|spouse|son|daughter|kids?|baby|oldest|youngest|\d+|[a-z]+[- ]year|"
    r"(?:(?:little|big|younger|older|baby|kid|twin) )?(?:brother|sister|bro|sis|mom|mum|mother|dad|father))",
    re.IGNORECASE)


def _clause_subject(clause: str, previous: str) -> str:
    """"self", "other" or the previous clause's subject when this one has none ("我同事刚搬去上海，在一家券商上班")."""
    if _OTHER_START_RE.search(clause):
        return "other"
    if _SELF_START_RE.search(clause):
        return "self"
    return previous


_SUBJECT_BREAK_RE = re.compile(r"\band\b|\bbut\b|\bso\b|\bthen\b|\bbecause\b|而且|但是|不过|所以|然后", re.IGNORECASE)


#: Where a Chinese chat message's pieces part: a space, a comma, a stop.
_CHAT_PIECE_RE = re.compile(r"[\s，,。！!？?；;]+")
#: Words before a value that put it in the user's past ("back when I had my iPhone", "以前用华为的时候").
_PAST_BEFORE_RE = re.compile(r"\b(?:used to|back when|when I (?:had|was|lived|worked)|before I|formerly|previously|my old|"
                             r"my former|my ex)\b|(?:以前|之前|原来|当初)(?!我?(?:说|讲|写|打|记|搞|弄)(?:错|的|反))|那时候", re.IGNORECASE)


def _about_someone_else(clause: str, start: int) -> bool:
    """True when the words before the match, since the last "and"/"but", name another person or a hypothesis."""
    before = clause[:start]
    # Chinese chat writes a space for a comma: "叫它橘子 我是护士" is the user's own statement after one about the cat.
    before = re.split(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff]|$)", before)[-1]
    breaks = [m.end() for m in _SUBJECT_BREAK_RE.finditer(before)]
    if breaks:
        before = before[breaks[-1]:]
    return bool(_THIRD_PARTY_RE.search(before) or _HYPOTHETICAL_RE.search(before))


# Quoted spans, bounded (a quote never closed must not cost quadratic time); those in the first person
# are someone else's words ("我不喜欢加班，但我更不喜欢没钱"), not the user's facts.
_QUOTE_SPAN_RE = re.compile(r"“[^“”]{1,300}”|\"[^\"]{1,300}\"|「[^「」]{1,300}」|‘[^‘’]{1,300}’|"
                            r"(?<![A-Za-z])'[^']{6,300}'(?![A-Za-z])")
_FIRST_PERSON_RE = re.compile(r"我|\bI\b|\bmy\b")


def _drop_quoted_speech(text: str) -> str:
    return _QUOTE_SPAN_RE.sub(lambda m: " " if _FIRST_PERSON_RE.search(m.group(0)) else m.group(0), text)

#: Tastes read only when the user is their subject: in Chinese the subject is what precedes the verb in its clause.
_TASTE_SLOTS = frozenset({"likes", "dislikes", "unlikes"})
#: Words before a taste verb that leave the user its subject: adverbs of time and degree, a topic ("吃的方面").
_ZH_SUBJECT_FILLER_RE = re.compile(
    # (and the words that take back what was said: "啊不对 上次打错了 生日是8月12" is the user's)
    r"(?:啊|哦|噢|嗯|诶|欸|哎|呃)*不对|(?:上次|之前|刚才|刚刚)?(?:打|说|记|写|搞)错了|纠正一下|更正一下|对了|"
    r"我们|我|咱|这两天|这几天|最近|现在|平时|其实|真的|一直|本来|从小|向来|一向|实在|确实|反正|所以|但是|不过|而且|然后|"
    r"[^，。！？]{1,6}(?:方面|上|的话|这块)|[也都还就很最更比较特别有点超挺蛮好太那又再倒却]")
_ZH_OTHER_SUBJECT_RE = re.compile(r"^\W*[\u4e00-\u9fffA-Za-z]{2,}\W*$")


def _zh_other_subject(before: str) -> bool:
    """Whether the words before a Chinese taste verb name a subject other than the user ("来福这两天")."""
    rest = _ZH_SUBJECT_FILLER_RE.sub("", before)
    return "我" not in before and bool(_ZH_OTHER_SUBJECT_RE.search(rest))


_GENERIC_SLOTS = {"likes", "event"}
#: A slot that said something more specific in a clause keeps the generic ones out of it.
#: Fixed values worded as a preference rather than as a slot value.
_FIXED_WORDING = {
    ("budget", "低成本"): "用户偏好低成本的方案（预算有限，控制成本）",
    ("budget", "low cost"): "The user prefers low-cost options (limited budget)",
}


#: "and" before a new statement of the user's ("I live in Shanghai and work at Alibaba", "... and my dog is
#: called Max"): the clause ends there, so a value never swallows the next statement.
_AND_NEXT_RE = re.compile(
    r"\s+(?:and|but)\s+(?=(?:I\b|I'm|I've|my\b|we\b|our\b|(?:also |now |currently |just )?(?:work|live|am|have|own|"
    r"drive|use|play|study|moved|started|joined|got|love|like|hate|teach|run|commute|bike|cycle|walk|ride)\b))", re.IGNORECASE)


#: Where a clause ends: a comma or semicolon (not one inside a number: 5,000), a dash before a new statement, an emoji
#: or a "～" (chat: "刚提了理想L6😎 问下..."), and in Chinese chat a space before a new subject ("在郑州做调度 我女朋友叫小蕾
#: 在医院做行政": what follows her name is hers; "我女儿5岁 我在腾讯上班": the user's own again).
_CLAUSE_SPLIT_RE = re.compile(
    r"[，；;～]|,(?!\d)|\s+[—–-]+\s+(?=(?:turns out|I|I'm|I've|we|we're|my|our|it's)\b)|[\U0001F300-\U0001FAFF\u2600-\u27BF]+\s*|"
    r"(?<=[\u4e00-\u9fff])\s+(?=[我咱他她])|"
    # a stop chat follows with no capital ("… onto my Keychron K2. salvageable?"), not an abbreviation's ("e.g. ")
    r"(?<=[A-Za-z0-9]\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bapprox\.)(?<!\bSt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)"
    r"(?<!\bMrs\.)(?<!\bno\.)\s+(?=[a-z])")


def _clauses(sentence: str) -> list[tuple[str, bool]]:
    """The sentence's clauses, each with whether it followed "and"/"but" (where a bare "like" has the user's subject:
    "I live in Shanghai and like hiking"; after a comma it is a simile: "it is SO hot today, like melting")."""
    parts = [c for c in _CLAUSE_SPLIT_RE.split(sentence) if c.strip()] or [sentence]
    return [(piece, i > 0) for part in parts for i, piece in enumerate(_AND_NEXT_RE.split(part)) if piece.strip()]


#: Slots whose English value is a phrase of its own, cut at no conjunction ("short answers, but with code").
_WHOLE_PHRASE_SLOTS = frozenset({"reply_style", "event", "note", "feedback", "decision", "likes", "dislikes",
                                 "do_not_recommend", "unlikes"})


#: What a child's value says of their age or school year ("儿子乐乐今年8岁", "son Oliver is 8", "女儿上三年级").
_CHILD_AGE_RE = re.compile(r"(?:今年|现在|才|刚|已经|都)*(?:[0-9一二三四五六七八九十两]+(?:岁|个月)半?|上(?:幼儿园|小学|初中|高中|[一二三四五六]年级)(?:[小中大]班)?)|"
                           r"(?:\s*(?:is|just turned|turned|turns|will be)\s+|'s\s+)[\w-]+(?: years? old| months? old| months)?$|"
                           r"^\w+[- ](?:year|month)[- ]old\s+", re.IGNORECASE)
#: Slots a Chinese piece with no "我" fills ("生日是3月21", "搬回扬州了"), unless someone else was named before it.
_PIECE_SLOTS = frozenset({"birthday", "location", "commute"})
_KIN_ZH_RE = re.compile(r"老婆|老公|媳妇|对象|男朋友|女朋友|妈|爸|儿子|女儿|闺女|孩子|娃|朋友|同事|姐|哥|弟|妹|奶奶|爷爷|外婆|外公|姥姥|姥爷|"
                        r"室友|邻居|同学|领导|老板|舅|姨|姑|叔|婶")
#: The user as the clause's own subject ("我们全家年初已经搬到昆明了"), not "我" of someone ("帮我妹…").
_SELF_LED_ZH_RE = re.compile(r"(?:我|咱)(?!的)(?!(?:老婆|老公|媳妇|对象|男朋友|女朋友|妈|爸|儿子|女儿|闺女|孩子|朋友|同事|姐|哥|弟|妹))")
#: The user with them ("我和老公搬到杭州了"): the user's news too.
_WITH_ME_ZH_RE = re.compile(r"(?:我|咱)们?(?:和|跟|与|带着?|陪)|(?:和|跟|与)我")
#: Words of going to work or school, and a way of getting there said as a piece of its own.
_TO_WORK_ZH_RE = re.compile(r"上班|上下班|通勤|上学|[去到](?:公司|单位)(?:才|要|只要|大概|差不多|将近)?[\d一二三四五六七八九十半]+\s?(?:分钟|分|个?小时|钟头)")
_RIDE_ZH_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:上下班|通勤)?(?:我)?(?:最近|现在|每天|每日|平时|一般){0,2}(?:都)?"
                         # from where ("每天从番禺开车去天河上班", "从仓山开车过去上班"): where the user lives
                         r"(?:从(?P<home>[\u4e00-\u9fff]{2,4}?)(?:家里|这边|那边)?)?(?P<pre>[\u4e00-\u9fff]{0,5}?(?:改成|换成|改))?"
                         # (Taiwan's 公车/机车/捷运, a Gogoro scooter, Singapore's MRT and 巴士)
                         r"(?P<v>(?:坐|搭|骑|开)(?:地铁|公交|公车|轻轨|捷运|巴士|MRT|mrt|电驴|电动车|电单车|"
                         r"小电驴|自行车|单车|共享单车|班车|摩托车?|机车|Gogoro|gogoro|车)[\d号线]{0,4})(?:(?:去|过去|到)[\u4e00-\u9fff]{0,6}?)?(?:上下班|上班|通勤|上学)?"
                         # (how long it takes may follow: "从汐止骑机车去公司才15分钟")
                         r"(?=[\s，,。！!]|$|(?<=公司|单位)(?:才|要|只要|大概|差不多|将近)?[\d一二三四五六七八九十半])")
#: What a commute may start from that is no place the user lives ("从家里", "从公司", "从学校那边").
_NOT_A_HOME_RE = re.compile(r"家|里|边|公司|单位|学校|宿舍|小区|地铁|车站|机场|医院|酒店|宾馆|健身|房|这|那|哪|早|晚|今|明|昨|"
                            r"周|星期|礼拜|起|下|上|年|月|天|号|现在")
#: Something given up for something else: "ditched my Pixel for", "traded the Leaf in for", "swapped our Corolla for".
_SWAPPED_FOR_RE = re.compile(r"\b(?:ditched|dropped|swapped|swapped out|traded|replaced|sold) (?:my|our|the) (?:old )?"
                             r"(?!(?:mom|mum|dad|kids?|son|daughter|wife|husband|partner)\b)"
                             r"(?:(?!off\b)[\w'-]+)(?: (?!off\b)[\w'-]+){0,2}? (?:in )?for (?=(?:an?|the|my|our) )", re.IGNORECASE)
#: Who a name belongs to when it is said with what is theirs ("my partner Sam's birthday"): the name alone.
_NAME_SLOTS = frozenset({"partner", "child", "pet", "family"})


def _clean_value(value: str, slot_key: str = "") -> str:
    value = value.strip(" \t\"'“”‘’「」《》()（）[]【】~～-—:：")
    if slot_key in _NAME_SLOTS:
        value = re.sub(r"(?<=[A-Za-z])['’]s$", "", value)  # "partner Sam's" (birthday): Sam
        value = re.sub(r"^(儿子|女儿|孩子|闺女|宝宝|大宝|二宝|娃)(?:其实)?是(?=[0-9一二三四五六七八九十两])", r"\1", value)  # "儿子是9岁"
    value = value.rstrip(".。!！?？")
    value = re.sub(r"(?:了|的|呢|吧|啊|哦|呀)+$", "", value) if is_chinese(value) else value
    value = re.sub(r"\s+(?:too|as well|anymore|any more|again|now|though|from now on|only)$", "", value, flags=re.IGNORECASE)
    if slot_key in ("likes", "dislikes", "do_not_recommend", "unlikes") and is_chinese(value):
        value = re.sub(r"^(?:的是|的|是)", "", value)
        # a voice-typed clause after it is another statement: "受不了 现在跑快递" says nothing disliked
        value = re.split(r"\s*(?=现在|但是|不过|所以|然后|我)", value, maxsplit=1)[0]
    if slot_key == "location":
        # "capitol hill and don't want to drive more than an hour": the place, not the next statement.
        value = re.split(r"\s+(?:and|but|so|which|where|because|cause|with|since|though|for)\b", value, maxsplit=1,
                         flags=re.IGNORECASE)[0]
        if is_chinese(value):
            value = re.split(r"\s", value.strip(), maxsplit=1)[0]  # "嘉兴南湖这边了 房子便宜一半": the place
            value = re.sub(r"了$", "", value)
        value = re.sub(r"(?:这边|那边|附近|一带|这里|那里)$", "", value)
        # "成都温江跟儿子" (住了): the place, not whom with
        value = re.sub(r"(?:跟|和|与|陪)(?:儿子|女儿|闺女|老伴儿?|爸妈|父母|孩子|老公|老婆|家人|对象|男朋友|女朋友|朋友).*$", "", value)
        value = re.sub(r"(?:上班|工作|生活|住)$", "", value)
    if not is_chinese(value) and slot_key not in _WHOLE_PHRASE_SLOTS:
        # "allergic to penicillin if I ever ask about meds": the value, not the clause after it.
        value = re.split(r"\s+(?:if|when|because|cause|cos|since|so|but|which|lol|haha|tho|though)\b", value, maxsplit=1,
                         flags=re.IGNORECASE)[0]
    if slot_key == "job_title" and "的" in value:
        value = value.rsplit("的", 1)[1]  # "招商银行的客户经理": the employer is its own slot
    if slot_key == "job_title" and is_chinese(value):
        # "澳门人 在赌场做荷官": the title after where (the employer is its own slot)
        value = re.split(r"(?<=[\u4e00-\u9fff])(?:做|当|担任)", value.split()[-1])[-1] if value.split() else value
    return value.strip()


_TIME_ZONE_RE = re.compile(r"^(?:PST|PDT|PT|EST|EDT|ET|CST|CDT|MST|MDT|GMT|BST|UTC|CET|CEST|JST|IST|AEST)(?:[+-]\d{1,2})?$")
_ABOUT_THE_ASSISTANT_RE = re.compile(r"^(?:你|您|how you|the way you|what you|your|you)\b|^(?:你|您)", re.IGNORECASE)


_ASKED_VALUE_RE = re.compile(r"啥|什么|哪[个些种]|吗|么$|\b(?:what|which)\b", re.IGNORECASE)


def _worth_keeping(slot_key: str, value: str) -> bool:
    if value.lower() in EMPTY_VALUES or (len(value) < 2 and not is_chinese(value)):
        return False
    if slot_key in ("likes", "dislikes") and _ABOUT_THE_ASSISTANT_RE.search(value):
        return False  # "我喜欢你刚才那个回答", "I like how you formatted that": feedback on a reply
    if slot_key in ("likes", "dislikes") and _ZH_PRONOUN_VALUE_RE.match(value):
        return False  # "这就是我喜欢它的地方": what "it" is was said before, if anywhere
    if slot_key in _TASTE_SLOTS and _ASKED_VALUE_RE.search(value):
        return False  # "你平时喜欢啥颜色啊": a question, not a taste
    if slot_key == "location" and _TIME_ZONE_RE.match(value):
        return False  # "I'm in PST" names a time zone, not a home
    if slot_key == "employer" and value.startswith(("家", "家里", "我们家", "我家", "全家")):
        return False  # "现在在家备考研究生": at home, not a company
    if slot_key in ("employer", "tech_stack") and _WEEKDAYS_RE.fullmatch(value.strip()):
        return False  # "i switched to thursdays at the hospice": a day, not a company ("I work at Fridays" is one)
    if slot_key == "tech_stack" and (_HUMAN_LANGUAGE_RE.match(value.strip()) or _MAKES_RE.match(value.strip())
                                     or _CALENDAR_RE.match(value.strip())):
        return False  # "换到苹果", "switched to Korean", "moved the whole thing to September": not a technology
    if slot_key == "decision" and _PRONOUN_VALUE_RE.match(value):
        return False
    return not (slot_key == "name" and value.split()[0].lower() in _NOT_NAMES)


#: Slots of the user themselves, never scoped to a project or product named beside them.
PERSONAL_SLOTS = frozenset({"name", "employer", "job_title", "location", "reply_style", "diet", "birthday", "age", "pet",
                            "child", "partner", "car", "device", "phone", "instrument", "education", "health", "commute",
                            "timezone"})


def _disambiguate(slot_key: str, value: str, sentence: str) -> str:
    """A place said where a company is expected is a location ("我在成都工作"), and a company said where a
    place is expected is an employer ("I've moved to Stripe, started last month")."""
    if slot_key in ("employer", "tech_stack") and is_place(value):
        return "location"
    if slot_key == "employer" and re.search(rf"\bmoved to {re.escape(value)},? (?:near (?!the (?:end|start|beginning|middle))|close to|"
                                            rf"next to|in with)\b", sentence, _I):
        return "location"  # "moved to Punggol near wife's parents": a home, not a firm
    if slot_key == "location" and not is_chinese(sentence) and not is_place(value) and _WORK_CUE_RE.search(sentence) \
            and not (_WE_MOVED_RE.search(sentence) and _HOME_CUE_RE.search(sentence)):
        # "we moved to headingley … 10 min from work": a home, not a firm ("we moved to Notion, the team loves it" is one)
        return "employer"
    return slot_key


#: "we moved to X" and a word of a home beside it: X is where the user lives, whatever the word lists know of it.
_WE_MOVED_RE = re.compile(r"\bwe(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated)\b", _I)
_HOME_CUE_RE = re.compile(r"\b(?:flat|house|apartment|place|rent|neighbou?rhood|boxes|min(?:ute)?s? (?:from|to) (?:work|the office)|"
                          r"walk(?:ing)? distance|moved in)\b", _I)
#: A clause that says where the user lives: its place is no employer ("I live in Leeds and commute … for work").
_LIVES_RE = re.compile(r"\b(?:live|living|lives)\s+in\b", re.IGNORECASE)


def _take_retractions(clause: str, patterns: list[tuple[str, re.Pattern]]) -> tuple[str, list[tuple[str, str]]]:
    """The clause with its retractions blanked out, and the (slot, value) each retracts."""
    found: list[tuple[str, str]] = []
    for slot_key, pattern in patterns:
        for match in list(pattern.finditer(clause)):
            raw = match.groupdict().get("v") or match.groupdict().get("w") or ""
            raw = re.split(r"\s[-–—:]\s|[:：]", raw)[-1]  # "I mixed them up earlier - Shein": the last part
            value = _clean_value(_RETRACT_PREFIX_RE.sub("", raw), slot_key)
            if value and value.lower() not in EMPTY_VALUES and value.split()[0].lower() not in _NOT_A_VALUE:
                found.append((slot_key, value))
                clause = clause[: match.start()] + " " * (match.end() - match.start()) + clause[match.end():]
    return clause, found


def remember_intent(text: str) -> bool:
    """True when the text asks for something to be remembered or followed from now on."""
    return bool(REMEMBER_RE.search(text or ""))


def strip_remember_prefix(text: str) -> str:
    """The statement without its leading "记住：" / "remember that" marker."""
    return REMEMBER_PREFIX_RE.sub("", text or "", count=1).strip()


class RuleBasedExtractor(Extractor):
    """Offline default: regular patterns for Chinese and English, mapped to the slot vocabulary."""

    name = "rules"

    def extract(self, turns: Sequence[TurnText], *,
                existing: Sequence[ExistingMemory] = ()) -> list[MemoryDraft]:
        drafts: list[MemoryDraft] = []
        seen: set[tuple[str, str]] = set()
        for turn in turns:
            if turn.role != "user":
                continue
            for draft in self.extract_text(turn.content, turn=turn):
                marker = (draft.key, str(draft.value).lower())
                if marker in seen:
                    continue
                seen.add(marker)
                drafts.append(draft)
        return drafts

    def extract_text(self, text: str, *, turn: TurnText | None = None,
                     remember: bool | None = None) -> list[MemoryDraft]:
        """Drafts from one user message; ``remember`` forces (or forbids) the remember-intent fallback."""
        text = (text or "").strip()
        if not text:
            return []
        wants_remember = remember_intent(text) if remember is None else remember
        text = _drop_quoted_speech(text)
        out: list[MemoryDraft] = []
        for start, end in split_sentences(text):
            sentence = text[start:end].strip()
            if not sentence:
                continue
            found = self._sentence_drafts(sentence, turn=turn, remember=wants_remember)
            if not found and wants_remember and remember_intent(sentence):
                statement = strip_remember_prefix(sentence).rstrip("。.!！")
                if len(statement) >= 2:
                    found = [self._draft("note", statement, sentence, turn=turn, remember=True)]
            out.extend(found)
        return out

    def _sentence_drafts(self, sentence: str, *, turn: TurnText | None, remember: bool) -> list[MemoryDraft]:
        zh = is_chinese(sentence)
        if zh:
            sentence = chat_chinese(sentence)  # "我而家喺银河酒店做前台" read as "我现在在银河酒店做前台"
        else:
            sentence = chat_english(sentence)  # "im a nurse at st vincents" read as "I'm a nurse at St Vincents"
            # "I finally ditched my Pixel for an iPhone 15": what the user has now, as "switched to" says it
            sentence = _SWAPPED_FOR_RE.sub("switched to ", sentence)
        # The operator's slots (EXTRACTION_SLOTS) first: a site's own vocabulary wins over the built-in one.
        rules = [*operator_slots()[1], *(ZH_RULES if zh else EN_RULES)]
        correction = bool(CORRECTION_RE.search(sentence))
        # A question states facts only in its clauses that are not themselves the question.
        asking = bool(re.search(r"[?？]\s*$", sentence)) and not remember
        out: list[MemoryDraft] = []
        retracted: list[tuple[str, str]] = []
        taken: set[str] = set()

        def add(slot_key: str, value: str, where: str = "") -> bool:
            # "I live in Leeds and commute to Bradford for work" lives in Leeds, whatever the rest says of work
            if not _LIVES_RE.search(where):
                slot_key = _disambiguate(slot_key, value, sentence)
            if slot_key in taken and not slot_of(slot_key).multi:
                return False
            if any(d.key.split(":")[0] == slot_key and str(d.value) == value for d in out):
                return False
            draft = self._draft(slot_key, value, sentence, turn=turn, remember=remember, correction=correction)
            same = next((d for d in out if d.key == draft.key), None)
            if same is not None:
                # one draft a key: "my son Oliver is 8" says the child once, with the age
                if len(str(draft.value)) <= len(str(same.value)):
                    return False
                out.remove(same)
            out.append(draft)
            taken.add(slot_key)
            return True

        subject = "self"
        for clause, after_and in _clauses(sentence):
            subject = _clause_subject(clause, subject)
            # A clause about the user's partner or child is about someone else, but who they are to the user
            # (their name, their age) is the user's family: only those slots are read from it.
            family_only = subject == "other"
            if family_only and not _OWN_FAMILY_RE.search(clause):
                continue
            if not zh and (bare := _BARE_VERB_RE.match(clause)) and (after_and or bare.group("verb").lower() != "like"):
                clause = "I " + clause[bare.start("verb"):]  # ("update: moved to Halifax last month" too)
            clause, found = _take_retractions(clause, ZH_RETRACT if zh else EN_RETRACT)
            retracted.extend(found)
            clause_slots: set[str] = set()
            for slot_key, pattern, fixed in rules:
                if family_only and slot_key not in _FAMILY_SLOTS:
                    continue
                if slot_key in taken and not slot_of(slot_key).multi:
                    continue
                # Generic slots only when nothing more specific was said in the clause.
                if slot_key in _GENERIC_SLOTS and clause_slots:
                    continue
                for match in pattern.finditer(clause):
                    if _about_someone_else(clause, match.start()) or (asking and _QUESTION_RE.search(clause)):
                        continue
                    # (in Chinese chat, of the piece the value is in: "之前那手机摔坏了 换了个iPhone 15" has one now)
                    if not slot_of(slot_key).multi and _PAST_BEFORE_RE.search(
                            _CHAT_PIECE_RE.split(clause[:match.start()])[-1] if zh else clause[:match.start()]):
                        continue  # "back when I had my iPhone": what the user had, not has
                    if zh and slot_key in _PIECE_SLOTS and not match.group(0).lstrip().startswith(("我", "咱")) and \
                            _KIN_ZH_RE.search(before := sentence[:max(sentence.find(clause), 0)] + clause[:match.start()]) \
                            and not _WITH_ME_ZH_RE.search(before) and not _SELF_LED_ZH_RE.search(clause[:match.start()]):
                        continue  # "给我老婆挑礼物，生日是5月20", "周末帮我妹搬回杭州了": someone else's
                    if (zh and slot_key in (*_TASTE_SLOTS, "birthday") and not match.group(0).lstrip().startswith(("我", "咱"))
                            and _zh_other_subject(clause[:match.start()])):
                        continue  # "来福这两天不爱吃饭": the dog's taste, not the user's
                    raw = match.groupdict().get("v") or match.groupdict().get("w") or ""
                    value = fixed if fixed not in (None, "@place", "@tech", "@org") else _clean_value(raw, slot_key)
                    if (fixed == "@place" and not is_place(value)) or (fixed == "@tech" and not tech_names(value)) \
                            or (fixed == "@org" and is_place(value)):
                        continue
                    if not _worth_keeping(slot_key, value):
                        continue
                    if add(slot_key, value, clause):
                        clause_slots.add(slot_key)
                        break
        # (of a question, its clauses that are not themselves the question: "每天从番禺开车去天河上班，路上要一个多小时，…，
        # 有没有办法利用通勤时间学点东西？")
        told = sentence if not asking else ("，" if zh else ", ").join(
            c.strip() for c, _ in _clauses(sentence) if not _QUESTION_RE.search(c))
        if told.strip():
            self._sentence_fallbacks(told, add, taken, correction)
        zone = next((d for d in out if d.key == "timezone"), None)
        if zone is not None and "location" not in taken:
            place = re.sub(r"\s*(?:time|时间)$", "", str(zone.value), flags=re.IGNORECASE)
            if is_place(place):
                add("location", place)  # "I'm on Berlin time now": where the user is
        stated = next((d.key.split(":")[0] for d in out if d.key.split(":")[0] in _RETRACT_SLOT), "")
        for slot_key, value in retracted:
            slot_key = stated if slot_key == "same" else slot_key
            if slot_key in _RETRACT_SLOT and value.lower() not in EMPTY_VALUES:
                out.append(self._draft(_RETRACT_SLOT[slot_key], value, sentence, turn=turn, remember=remember,
                                       correction=True))
        return out

    @staticmethod
    def _sentence_fallbacks(sentence: str, add, taken: set[str], correction: bool) -> None:
        """Slots stated across clauses: an amount in a sentence about the budget ("预算被砍了，现在只有6万"),
        a known technology in a sentence about switching ("It's React now, not Angular anymore")."""
        if "budget" not in taken and BUDGET_CUE_RE.search(sentence):
            amounts = [m.group(0).strip() for m in (ZH_MONEY_RE if is_chinese(sentence) else EN_MONEY_RE)
                       .finditer(sentence) if not _about_someone_else(sentence, m.start())]
            if amounts:
                add("budget", amounts[-1].rstrip(",."))
        if "name" not in taken and "名字" in sentence:
            # "上次名字打错了，应该是林筱雯": the name corrected in another clause.
            named = re.search(r"(?:应该是|其实是|正确的是|改成|改为)\s*(?P<v>[\u4e00-\u9fff·]{2,4}?)(?=[，。！？；,.!?;\s]|$)", sentence)
            if named:
                add("name", named.group("v"))
        found = _RIDE_ZH_RE.search(sentence) if "commute" not in taken else None
        # (or a way changed to, "干脆不开了改坐地铁")
        if found and (_TO_WORK_ZH_RE.search(sentence) or found.group("pre")):
            # "现在在广州海关上班 住天河 坐地铁", "上下班坐公交": how the user gets to work, said in its own piece
            # (not someone else's, named before it in its clause or the clause before: "老公上班 开车", but "搬去温江跟爸妈住，…
            # 改坐地铁" is the user's)
            before = sentence[:found.start()]
            if found.group("pre"):
                before = re.split(r"[，,。；;]", before)[-1] + found.group("pre")
            if not _about_someone_else(sentence, found.start()) and not _KIN_ZH_RE.search(before):
                add("commute", found.group("v"))
                home = found.group("home") or ""
                if home and "location" not in taken and (is_place(home) or (
                        len(home) <= 3 and not _NOT_A_HOME_RE.search(home))):
                    add("location", home)  # (a district the word lists lack: "番禺", "仓山")
        if "commute" not in taken and (found := COMMUTE_SAID_RE.search(sentence)) \
                and not _about_someone_else(sentence, found.start()):
            add("commute", found.group("v"))
        if "employer" not in taken and (found := ACQUIRED_AT_RE.search(sentence)):
            add("employer", _clean_value(found.group("v"), "employer"))
        if "pet" not in taken and (found := NAMED_PET_RE.search(sentence) or PET_NAMED_FIRST_RE.search(sentence)):
            name = found.group("n")
            add("pet", f"{found.group('v')} {name if name[:1].isupper() else name.capitalize()}")
        if "employer" not in taken and (found := WORKMATE_AT_RE.search(sentence)) and not is_place(found.group("v")):
            add("employer", _clean_value(found.group("v"), "employer"))
        if "employer" not in taken and _JOB_CHANGE_RE.search(sentence):
            # "我跳槽了，现在在京东物流": where the user works now, said without a verb.
            found = (re.search(r"(?:现在|目前)(?:在|去了|到了)(?P<v>[^，。！？；,.!?;\s]{2,12}?)(?:了|工作|上班)?(?=[，。！？；,.!?;\s]|$)",
                               sentence)
                     or re.search(r"(?:去了|到了|加入了?)(?P<v>[^，。！？；,.!?;\s]{2,12}?)了?(?=[，。！？；,.!?;\s]|$)", sentence)
                     # "入职第一周结束了 美团这边节奏比之前好多了": the company the new job is at
                     or re.search(r"入职[^，。！？；,.!?;]{0,10}?[\s，,]+(?P<v>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:这边|这里|那边)", sentence))
            if found and not _about_someone_else(sentence, found.start()):
                add("employer", _clean_value(found.group("v"), "employer"))
        if "tech_stack" not in taken and (correction or _SWITCH_CUE_RE.search(sentence)):
            negated = {m.group("v").lower() for m in re.finditer(r"(?:\bnot |不是|不用|不再用)(?P<v>[A-Za-z][\w.+#]*)", sentence)}
            names = [n for n in tech_names(sentence) if n.lower() not in negated
                     and not _about_someone_else(sentence, sentence.find(n))]
            if names:
                add("tech_stack", names[0])

    def _draft(self, slot_key: str, value: str, sentence: str, *, turn: TurnText | None,
               remember: bool = False, correction: bool = False) -> MemoryDraft:
        slot = slot_of(slot_key)
        zh = is_chinese(sentence)
        if slot_key == "event":
            content = f"用户说：{value}" if zh else f"The user said: {value}"
        else:
            content = _FIXED_WORDING.get((slot_key, value)) or (slot.zh if zh else slot.en).format(v=value)
        # "no longer likes X" is the next version of the likes:X slot; a retraction, of its slot.
        slot_name = {"unlikes": "likes"}.get(slot_key) or slot_key.removeprefix("retract_")
        retraction = slot_key == "unlikes" or slot_key.startswith("retract_")
        if slot_key == "diet" and (DIET_STYLE_RE.match(value) or f"{value} diet" in sentence.lower()
                                   or f"{value.lower()} diet" in sentence.lower()):
            key = "diet"  # one diet at a time: a new one supersedes the old
        else:
            # A child is one key whatever age is said of them ("儿子8岁" then "儿子是9岁"): the newest age replaces it.
            keyed = _CHILD_AGE_RE.sub("", value).strip() if slot_name in ("child", "family") else value
            key = safe_key(f"{slot_name}:{(keyed or value).lower()[:60]}") if slot.multi else slot_key
        confidence = slot.confidence
        if remember or correction:
            confidence = max(confidence, 0.95)
        # A project's or product's facts are scoped to it ("the Atlas app uses Go"); who the user is is not: "im a ux
        # researcher at pellucid health … our med-scheduling app" is the employer a later one replaces.
        scope = {} if slot_name in PERSONAL_SLOTS else context_tags(sentence)
        tags = {**scope, "slot": slot_key, "extractor": self.name}
        if correction:
            tags["correction"] = "true"
        if remember:
            tags["remember"] = "true"
        return MemoryDraft(
            content=content,
            type=slot.type,
            source="user_stated",
            key=key,
            # A retraction keeps the slot but not the value: {"item": X, "likes": false}.
            value={"item": value, slot_name: False} if retraction else value,
            confidence=confidence,
            quality=max(slot.quality, 0.9) if remember else slot.quality,
            agent_id=turn.agent_id if turn else "",
            session_id=turn.session_id if turn else "",
            turn_id=turn.turn_id if turn else None,
            excerpt=sentence[:500],
            tags=tags,
        )

"""A model's memories checked against the user's own words before they are written.

A chat model (the LLM extractor) writes memories in its own words, and a small model gets them wrong in
ways a reader of the conversation would not: a Chinese user's facts written in English, a sister's move
stored as the user's, "我是一点辣都吃不了" turned into a taste for spicy food, a guess stored as something
the user said. Each draft is checked against the turn it cites, clause by clause:

- **language**: written in the language the user spoke it in, else refused (the user's episode, written
  by working/episodes.py from the same turn, keeps their words);
- **about the user**: the clause holding its value speaks of another person (a relative, a colleague, a
  friend) with no "I"/"我" as its subject, and the memory does not name that person: refused;
- **not the opposite**: the clause holding its value negates it ("吃不了", "don't", "no longer") and the
  memory does not: refused;
- **said, not guessed**: a ``user_stated`` memory whose value is in none of the user's words is the model's
  inference: kept as ``model_inferred`` (left out of the context unless asked for).

A refused draft stays on the run with its reason (tag ``refused``; the run reports it as rejected). The
rule-based extractor's drafts are its own patterns over the same words and are not checked.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Sequence

from ..backends.extractors.base import TurnText
from ..backends.extractors.lexicon import places_in
from ..backends.extractors.patterns import EN_TITLES, ZH_CALLED_BY_SURNAME
from ..types import MemoryDraft

#: The confidence of a value the user never said (a guess is no high-confidence profile fact).
GUESS_CONFIDENCE = 0.5
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN_WORD_RE = re.compile(r"[A-Za-z]{2,}")
#: Where one statement ends and the next begins, within a sentence too ("不在阿里了，现在在腾讯").
_CLAUSE_RE = re.compile(r"[。！？!?；;，,、\n]+|\.(?:\s+|$)|\s+[-—–]\s+|\b(?:but|instead|now|and now|though|and|also)\b|"
                        r"但是|但|而是|现在|如今|后来",
                        re.IGNORECASE)
#: Where a sentence's first clause ends, for whom it is about ("My sister and I" stays one subject).
_FIRST_CLAUSE_RE = re.compile(r"[。！？!?；;，,、\n]+|\.(?:\s+|$)|\s+[-—–]\s+|\s*[\U0001F300-\U0001FAFF\u2600-\u27BF]+\s*|"
                              r"\s+(?=(?i:so (?:i|i'm|im|we|we're|i've|i'll))\b)|"  # "my stepmom's allergic to latex | so I gotta …"
                              r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")  # chat's space for a comma
_PERSON_ZH = ("表姐|表哥|表妹|表弟|堂姐|堂哥|堂妹|堂弟|姐姐|哥哥|妹妹|弟弟|老姐|老哥|姐|哥|妹|弟|妈妈|妈|爸爸|爸|母亲|父亲|"
              "老公|老婆|丈夫|妻子|男朋友|女朋友|男友|女友|对象|儿子|女儿|闺女|同事|朋友|闺蜜|哥们|兄弟|姐们|室友|老板|领导|"
              "邻居|同学|舅舅|舅妈|阿姨|叔叔|姑姑|伯伯|爷爷|奶奶|外公|外婆|姥姥|姥爷|表叔|侄子|侄女|外甥|外甥女|"
              "大舅|二舅|三舅|小舅|大姨|二姨|三姨|小姨|大伯|二伯|三叔|小叔|大姑|二姑|小姑|姑父|姨父|姨妈|婶婶|伯母|"
              "徒弟|学徒|师傅|老乡|发小|网友|租客|学生|病人|患者|孙子|孙女|外孙|外孙女|鼓手|吉他手|贝斯手|键盘手|主唱|"
              "婆婆|公公|岳父|岳母|丈母娘|老丈人|嫂子|姐夫|妹夫|弟媳|客户|组长|主管|经理|总监|房东|导师|教练|队友|实习生|新人|新同事|下属|合伙人|学长|学姐|学弟|学妹|师兄|师姐|"
              "组员|队员|同门|前夫|前妻|舅|姨|叔|婶|姑(?![娘且息苏])|老爷子|"
              # English words for them in Chinese chat ("我有个client Mr Tan", "我们leader说…")
              "client|boss|leader|mentor|colleague|roommate|bestie|buddy")
_PERSON_ZH = f"{_PERSON_ZH}|{ZH_CALLED_BY_SURNAME}"
_PERSON_ZH_RE = re.compile(rf"(?<!全职)(?<!宝)(?<!新手)(?:{_PERSON_ZH})")  # "全职妈妈", "宝妈": the user's own role
#: More people with lives of their own, as the Chinese list has 哥们 and 闺蜜. Not the roles that act on the user's
#: own affairs ("my advisor pushed the deadline to may 15" is the user's deadline).
_OUTSIDE_EN = (r"buddy|pal|(?<=my )mate|(?<=best )mate|(?<=our )mate|work ?mate|(?<=my )lead(?! (?:time|gen|role|position|singer|guitar))|landlord|landlady|bestie|bff|stepmom|stepdad|stepmother|stepfather|stepbrother|stepsister|godson|goddaughter|"
               r"(?:mother|father|sister|brother|son|daughter)[- ]in[- ]law|in-laws|ex|"
               # the family as other Englishes name it ("my mam", "my nan", "my Tatay Ernesto", "my ate Marites")
               r"grandad|granddad|grandparents?|parents|auntie|aunty|amma|appa|ammi|abbu|"
               r"(?:(?<=my )|(?<=our ))(?:mam|mammy|nan|nana|nanna|gran|granny|tatay|nanay|lola|lolo|tita|tito|kuya|ate|ninang|ninong)|"
               # ...and in a few words of Spanish ("mi prima Daniela just moved to Phoenix")
               r"(?<=mi )(?:prima|primo|tía|tia|tío|tio|vecina|vecino|amiga|amigo|comadre|compadre|cuñada|cuñado|suegra|suegro|"
               r"abuela|abuelo|hermana|hermano|sobrina|sobrino|jefa|jefe)")
_PERSON_EN = (r"sister|brother|sis|bro|mom|mum|mother|dad|father|wife|husband|partner|boyfriend|girlfriend|fiancée?|son|"
              r"daughter|cousin|aunt|uncle|friend|colleague|coworker|co-worker|boss|manager|roommate|flatmate|neighbou?r|"
              rf"grandma|grandpa|grandmother|grandfather|grandson|granddaughter|grandkid|grandchild|niece|nephew|classmate|teammate|"
              rf"{_OUTSIDE_EN}")
_PERSON_EN_RE = re.compile(rf"\b({_PERSON_EN})s?\b", re.IGNORECASE)
#: The words for other people, for the modules that read whose a clause is (working/episodes.py).
PERSON_EN, PERSON_ZH = _PERSON_EN, _PERSON_ZH
#: "I"/"我" as the subject of a clause: "我" not followed by a relation word or 的 ("我表姐", "我的同事" are
#: about someone else), "I"/"we" in English.
#: Where the user knew someone from, between "我" and who they are ("我大学时的室友小雯", "我老家的邻居").
_KNEW_FROM = r"(?:(?:大学|高中|初中|小学|中学|研究生|读研|读书|老家|上家公司|前公司|原单位|以前单位|以前公司)(?:时|时候|那会儿?)?的?)?"
_SELF_ZH_RE = re.compile(rf"(?:我|咱)(?!(?:一个?|个|那个|有个)?(?:之前的|以前的|原来的|前|老)?{_KNEW_FROM}(?:{_PERSON_ZH})|的|们的|家的|们(?:{_PERSON_ZH}))")  # "我们组长…" is the team lead
_SELF_EN_RE = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|we|we're|we've)\b", re.IGNORECASE)
_NEGATION_RE = re.compile(
    r"不|没|别|无法|受不了|戒了|讨厌|过敏|忌口|"
    r"\b(?:not|no|never|none|nothing|can't|cannot|don't|doesn't|didn't|won't|isn't|aren't|wasn't|hate|hates|"
    r"avoid|avoids|allergic|dislike|dislikes|anymore|without)\b|n't\b",
    re.IGNORECASE)
#: Words with 不/没 in them that negate nothing.
_NOT_NEGATION_RE = re.compile(r"不错|不少|不过|不久|不断|不同|差不多|不一定|要不|不然|没想到|没多久|不得了")
_WORD_RE = re.compile(r"[a-z0-9]+")


def checked(turns: Sequence[TurnText], drafts: Sequence[MemoryDraft]) -> list[MemoryDraft]:
    """The drafts of a model's extraction, each kept, kept as the model's inference, or marked refused
    (``tags["refused"]`` holds why) against the words of the turn it cites."""
    by_turn = {t.turn_id: t for t in turns if t.turn_id is not None}
    user_words = " ".join(t.content for t in turns if t.role == "user")
    out = []
    for draft in drafts:
        turn = by_turn.get(draft.turn_id)
        if turn is None or turn.role != "user":
            out.append(draft)
            continue
        reason = _refusal(draft, turn.content)
        if reason:
            out.append(dataclasses.replace(draft, tags={**draft.tags, "refused": reason}))
        elif draft.source == "user_stated" and not _said(_value_text(draft), user_words):
            out.append(dataclasses.replace(draft, source="model_inferred", confidence=min(draft.confidence, GUESS_CONFIDENCE),
                                           tags={**draft.tags, "grounding": "value not in the user's words"}))
        else:
            out.append(draft)
    return out


def refused(draft: MemoryDraft) -> str:
    """Why the draft was refused ("" when it was not)."""
    return (draft.tags or {}).get("refused", "")


def _refusal(draft: MemoryDraft, said: str) -> str:
    if _speaks_chinese(said) and not _CJK_RE.search(draft.content):
        return "written in another language than the user's (Chinese)"
    if not _CJK_RE.search(said) and _CJK_RE.search(draft.content) and not _LATIN_WORD_RE.search(draft.content):
        return "written in another language than the user's (English)"
    clause = _clause_of(_value_text(draft) or draft.content, said)
    if not clause:
        return ""
    other = _other_person(clause)
    if other and other.casefold() not in draft.content.casefold() and not _mentions_person(draft.content):
        return f"said about another person ({other}), not about the user"
    if _negative(clause) and not _negative(draft.content):
        return "contradicts the user's words (they said the opposite)"
    return ""


def _speaks_chinese(text: str) -> bool:
    """Mostly Chinese: more CJK characters than Latin words (a "MacBook" in a Chinese sentence is Chinese)."""
    return len(_CJK_RE.findall(text)) > 2 * len(_LATIN_WORD_RE.findall(text))


def _value_text(draft: MemoryDraft) -> str:
    value = draft.value
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip()
    return ""


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_RE.split(text) if c and c.strip()]


def _clause_of(value: str, said: str) -> str:
    """The clause of ``said`` that holds ``value`` (the one sharing most of its words), or ""."""
    best, best_share = "", 0.0
    for clause in _clauses(said):
        share = _share(value, clause)
        if share > best_share:
            best, best_share = clause, share
    return best if best_share >= 0.5 else ""


def _said(value: str, words: str) -> bool:
    """Whether ``value`` is in the user's words (a number, or nothing to compare, counts as said)."""
    if not value or value.replace(".", "").isdigit():
        return True
    return _share(value, words) >= 0.5


def _share(value: str, text: str) -> float:
    """The share of ``value``'s pieces found in ``text``: Chinese character pairs, English word stems."""
    if _CJK_RE.search(value):
        if value in text:
            return 1.0
        chars = [c for c in value if _CJK_RE.match(c)]
        pairs = {a + b for a, b in itertools.pairwise(chars)} or set(chars)
        return sum(p in text for p in pairs) / len(pairs) if pairs else 0.0
    stems = {_stem(w) for w in _WORD_RE.findall(value.casefold())}
    if not stems:
        return 0.0
    present = {_stem(w) for w in _WORD_RE.findall(text.casefold())}
    return len(stems & present) / len(stems)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _other_person(clause: str) -> str:
    """The other person a clause is about (its relation word), when no "I"/"我" is its subject."""
    if _CJK_RE.search(clause):
        found = _PERSON_ZH_RE.search(clause)
        return found.group(0) if found and not _SELF_ZH_RE.search(clause) else ""
    found = _PERSON_EN_RE.search(clause)
    return found.group(1) if found and not _SELF_EN_RE.search(clause) else ""


#: A clause whose subject is another person: it begins with the relation word (after "my"/"我的").
#: Someone called by name and "的" ("王淑芬的儿子"), not an age or a stage of one's own child ("三岁的儿子", "读高三的女儿").
_ZH_NAME_OF = r"(?![\u4e00-\u9fff]{0,2}[岁读上刚级班生年月天周])[\u4e00-\u9fff]{2,3}的"
_SUBJECT_PERSON_RE = re.compile(rf"\s*((?:我的|我们的|我们|我|咱们|咱)(?:一个?|个|那个|有个)?(?:之前的|以前的|原来的|前|老)?"
                                rf"{_KNEW_FROM}|"
                                rf"(?![我咱你您他她]){_ZH_NAME_OF}(?=[\u4e00-\u9fff])|(?-i:[A-Z][a-z]+)'s\s+|(?:my|our|his|her|their|one|an?|another|one of (?:my|our|the)|mi)\s+(?:(?:best|old|close|good|dear|oldest|"
                                rf"childhood|college|uni|work|next[- ]door|upstairs|downstairs|elderly|former|lovely)\s+)?)?((?:女|男)?(?:{_PERSON_ZH})|"
                                rf"(?:{_PERSON_EN}|kid)s?\b)", re.IGNORECASE)
#: Someone who tells the user their own news ("导师说…", "my boss said …").
_REPORTS_RE = re.compile(r"\s*(?:又|也|还|刚|今天|昨天)?(?:说|讲|建议|让我|叫我|要我|通知|告诉我|跟我说|批了|同意|要求(?![很太挺高严特])|规定|"
                         # what someone gave the user is the user's ("我哥给我买了个kindle", "my brother gifted me a MacBook")
                         r"给我(?:买|换|送|寄|带)了?)|"
                         # what someone sent the user ("landlord renewal came in, going up to $2,450")
                         r"\s+(?:renewal|notice|letter|quote|estimate|invoice|bill)\s+(?:came|arrived|just came|is in|went up)\b|\s+(?:just |finally )?(?:gifted|bought|gave|sent|lent|got) me (?:an?|his|her|their|the) |"
                         r"\s+(?:says|said|told me|wants me|asked me|approved)\b", re.IGNORECASE)
_OTHERS_POSSESSOR_RE = re.compile(r"(?:his|her|their)\s+|(?-i:[A-Z][a-z]+)'s\s+|"
                                  rf"(?![我咱你您]){_ZH_NAME_OF}",
                                  re.IGNORECASE)  # "王淑芬的儿子", not "三岁的儿子"
#: Who lives with the user: their news is the user's own household's ("我女儿下个月满6岁", "my partner and I").
_LEADING_LINK_RE = re.compile(r"^(?:还有(?:一个|个|位)?|另外(?:一个|个)?|而且|然后|另一个|"
                              # "我有个大学室友阿杰…": someone the user has, then who they are
                              r"(?:我们|我)有(?:一个|个|位)(?:大学|高中|初中|小学|以前的?|之前的?|老|好|很好的)?|"
                              # "楼下王阿姨的泰迪丢了": a neighbour, wherever they live
                              r"(?:楼下|楼上|隔壁|对门|对面)(?:的|家的?)?(?=[\u4e00-\u9fff])|"
                              r"(?:(?:我们|我)?(?:组|组里|部门|部门里|公司|公司里|班上|班里|团队|团队里|宿舍|寝室|宿舍里|寝室里|小区|楼里))?"
                              r"(?:新来的?|新来了?|有)(?:一个|个|位)?|"
                              r"(?:我们|我)?(?:组里|部门里|公司里|班上|班里|团队里|宿舍里?|寝室里?|科室里?|科里|单位里?|厂里|车间里?|店里|队里)的?|"
                              r"(?:好的?|嗯+|对|哈哈+)\s+|"
                              # "asking for my Tatay Ernesto, …", "帮我妈问一下": whom the question is for
                              r"(?:(?:i'm |im )?asking (?:for|on behalf of)|(?:a )?(?:question|q) for|on behalf of)\s+|(?:帮|替)(?=我)|"
                              # "帮朋友改下简历 她叫林小棠…": the friend's résumé, and what follows is hers
                              r"(?:帮|替)(?=(?:朋友|同事|同学|闺蜜|哥们|室友|邻居|表姐|表哥|表妹|表弟|亲戚|客户)(?:改|写|问|查|看|打听|咨询|找|挑|选|想))|"
                              r"\b(?:(?:ok|okay|yes|yeah|yep|oh|so|well|haha|lol)\s+)*(?:and|also|plus|oh and|ok|okay|yes|yeah|yep|so|well)\s+)",
                              re.IGNORECASE)
#: The user's partner, whose job and health are their own (what they share with the user is the user's news).
_PARTNER_RE = re.compile(r"老公|老婆|丈夫|妻子|爱人|对象|男朋友|女朋友|男友|女友|husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?",
                         re.IGNORECASE)
_THEIR_OWN_FACT_RE = re.compile(
    r"\s*(?:也|还|一直|现在|目前|平时)?(?:在[\u4e00-\u9fffA-Za-z]{1,12}?(?:上班|工作|任职)|是(?:做|个|一名|一个|名)?[\u4e00-\u9fff]{0,6}"
    r"(?:医生|老师|护士|工程师|律师|会计|程序员|销售|司机|公务员|警察|设计师)|(?:是)?做[\u4e00-\u9fff]{1,6}的|[\u4e00-\u9fff]{0,4}过敏|"
    r"有[\u4e00-\u9fff]{0,4}(?:病|症)|[\u4e00-\u9fff]{0,3}(?:胆固醇|血压|血糖|尿酸)|不吃|吃素)|"
    # "my wife's a nurse", "my husband is also allergic to nuts", "works at Deloitte" (not "is a bit annoyed")
    rf"(?:'s|\s+is|\s+has|\s+works)\s+(?:(?:also|still|now)\s+)?(?:(?:at|for|in|as)\b|(?:an? )?(?:[\w-]+ )?(?:{EN_TITLES})\b|allergic|"
    r"vegan|vegetarian|diabetic|celiac|coeliac|lactose|(?:an? )?(?:[\w-]+ ){0,2}(?:allergy|diabetes|cholesterol|intolerance)\b)",
    re.IGNORECASE)
_HOUSEHOLD_RE = re.compile(r"老公|老婆|丈夫|妻子|爱人|对象|儿子|女儿|闺女|孩子|娃|男朋友|女朋友|男友|女友|孙子|孙女|外孙|"
                           r"^(?:husband|wife|partner|boyfriend|girlfriend|fiancée?|son|daughter|kid|grandson|"
                           r"granddaughter|grandkid|grandchild)s?$", re.IGNORECASE)


_GRANDCHILD_RE = re.compile(r"孙子|孙女|外孙女?|(?:grandson|granddaughter|grandkid|grandchild)s?", re.IGNORECASE)


def _says_where_they_live(text: str) -> bool:
    # where the child lives or studies, not a weekend outing or a month ("turns 5 in March")
    lives = re.search(r"在([\u4e00-\u9fff]{2,8}?)(?:上学|读书|念书|读|上[小初高大幼一二三四五六]|住|工作|上班)", text)
    return bool(lives and places_in(lives.group(1))) or bool(re.search(
        r"\b(?:lives?|living|goes to school|studies|studying|works?|working|is at uni|at school) (?:in|at|near) (?-i:[A-Z])[a-z]{2,}",
        text, re.IGNORECASE))


#: Someone picked out of a group and then named ("one of the techs, Marisol, …", "another, Gareth, …").
_ONE_OF_THEM_RE = re.compile(r"^(?:(?:and|also|plus)\s+)?(?:one of (?:the|my|our)\s+[\w-]+|another(?:\s+[\w-]+)?|one\s+[\w-]+)$",
                             re.IGNORECASE)
#: One of them named with no commas, then what they did ("one of my stylists brianna just told me she's pregnant").
_ONE_OF_THEM_NAMED_RE = re.compile(r"^(?:(?:and|also|plus|so)\s+)?one of (?:the|my|our)\s+(?:stylists|employees|workers|techs|nurses|"
                                   r"clients|customers|students|coworkers|co-workers|colleagues|friends|staff|teammates|drivers|"
                                   r"cooks|servers|baristas|apprentices|tenants|neighbou?rs|groomers|guys|girls)\s+"
                                   r"(?P<n>(?![a-z]+ly\b)(?!(?:there|here|still|just|also|now|today|then|again|even|already|never|always)\b)"
                                   r"[a-z][a-z'-]{2,})\s+"
                                   r"(?=(?:just|also|is|was|has|had|got|told|said|says|texted|called|quit|left|asked)\b)",
                                   re.IGNORECASE)
_CAPITALISED_NAME_RE = re.compile(r"(?:Dr\.? )?[A-Z][a-z][\w'-]*(?: [A-Z][a-z][\w'-]*)?|[a-z][a-z'-]{2,}")
#: Words after "one of the …," that name no one ("one of the best, really, …").
_NOT_A_NAME_LOWER = frozenset("really tho though honestly lol haha maybe probably anyway obviously basically literally too "
                              "also and but so yes yeah no".split())
#: One of the user's own household or pets picked out ("one of my daughters", "one of our dogs, Biscuit, …").
_ONE_OF_OURS_RE = re.compile(r"\bone of (?:my|our) (?:daughters|sons|kids|children|twins|cats|dogs|pets|puppies|kittens|"
                             r"rabbits|bunnies|hamsters|parrots|birds|horses|chickens)\b", re.IGNORECASE)
#: The user introducing themselves as a parent ("a dad of 3", "a grandma of five").
_PARENT_OF_RE = re.compile(r"^\s*(?:i'm |im |i am |just )?an? (?:single |proud |busy |working )?(?:mum|mom|mother|dad|father|parent|"
                           r"grandma|grandpa|grandmother|grandfather|nan|gran) of (?:\d+|one|two|three|four|five|six)\b",
                           re.IGNORECASE)
#: A reply's first words, before what it says ("yes many", "ok", "好的", "对的").
#: A few words that lead in what follows, ended by a colon ("可以再加点细节：他特别爱钓鱼…", "Update: …"; not a time, "10:30").
_LEAD_IN_RE = re.compile(r"^\s*[^：:，,。！？!?\n]{0,11}[^：:，,。！？!?\n\d][：:]\s*")
def _without_lead_in(text: str) -> str:
    """``text`` without a few words that lead it in, unless they name who it is about ("我妹的好消息：入职了…", "Sis update:
    she quit …")."""
    lead = _LEAD_IN_RE.match(text)
    if lead is None or _PERSON_ZH_RE.search(lead.group(0)) or _PERSON_EN_RE.search(lead.group(0)) \
            or re.search(r"\b(?:sis|bro|mum|mom|dad|hubby|wifey)\b", lead.group(0), re.IGNORECASE):
        return text
    return text[lead.end():]


#: The user with them ("A friend from uni and I just moved …", "我和…"): the user's news too.
_THEY_AND_I_RE = re.compile(r"\b(?:and|&) (?:i|me|myself)\b|和我|跟我", re.IGNORECASE)
#: Someone the user knows from somewhere, named by what they are ("A woman at work, Priya, …", "this guy from my gym").
_SOMEONE_FROM_RE = re.compile(r"^\W*(?:(?:so|and|also|oh|ok|okay)\W+)*(?:a|an|this|one|the) (?:old |young |older |lovely )?"
                              r"(?P<w>woman|man|guy|girl|lady|bloke|fella|chap|lad|lass|gal|dude|person|couple|family|kid|"
                              r"colleague|coworker|co-worker|friend|nurse|teacher|mum|mom|dad) (?:at|from|in|on|across|down|up) "
                              r"(?:my |our |the )?(?:work|office|job|church|gym|school|uni|team|ward|street|road|building|club|choir|"
                              r"block|estate|floor|department|dept)\b", re.IGNORECASE)
_ANSWER_FIRST_RE = re.compile(r"^(?:yes|yeah|yep|yup|ok|okay|sure|no|nope|nah|right|true|haha|lol|thanks|cheers|good|great|nice|cool|"
                              r"hi|hello|hey|heya|hiya|howya|howdy|morning|evening|yo|g'day|kia ora|你好|您好|在吗|"
                              r"perfect|fair|awesome|lovely|嗯+|好的?|对的?|是的|"
                              r"哈哈+|行|可以)(?:\s+\w+){0,2}[\s\W]*$", re.IGNORECASE)


#: A clause that only announces a new topic ("diff thing,", "random q", "另外一件事"): whom the message is about comes after.
_NEW_TOPIC_RE = re.compile(r"^(?:diff(?:erent)? (?:thing|q|question|topic)|other thing|unrelated|random q(?:uestion)?|side note|"
                           r"quick q(?:uestion)?|另外一件事|换个话题|还有个事|说个别的|"
                           # ("现在又冒出个新问题。科里有个老护士老李，…")
                           r"(?:现在|最近|今天)?(?:又)?(?:冒出|出了|遇到|碰到|来了)(?:一)?个新?(?:问题|情况|麻烦事?)|还有个(?:情况|问题))\W*$", re.IGNORECASE)
#: Someone named as one of the user's team, class or office: "bastian on our team …", "我们组的Ken…", "我们部门的小王…".
_TEAM_MEMBER_RE = re.compile(r"^\W*(?:(?:also|and|oh|btw|so)\W+)*(?P<n>(?!(?:i|we|you|he|she|they|it|someone|everyone|one|"
                             r"most|some|all|half|two|three|lots|people|folks|guys|nobody|anyone|everybody|somebody|none|"
                             r"morale|layoffs?|lunch|lunches|everything|something|nothing|stuff|things|work|budget|turnover|"
                             r"culture|vibes?|mood|process|meetings?|workload|hiring|headcount|deadlines?|projects?|"
                             r"drama|gossip|coffee|snacks|parking|wifi|politics)\b)[a-z][a-z'-]+) (?:on|from|in) (?:our|my) (?:team|office|"
                             r"floor|squad|crew|class|department|dept|lab|group|unit)\b|"
                             rf"^(?:我们|我)(?:组|部门|公司|班|团队|项目组|办公室|科室|实验室)里?的(?P<m>(?-i:[A-Z][a-z]+)(?![A-Za-z])|{ZH_CALLED_BY_SURNAME})",
                             re.IGNORECASE)
#: Someone new where the user works or lives, introduced first ("我们部门新来了个同事小敏", "楼下新搬来一家邻居").
_NEWCOMER_RE = re.compile(r"^(?:(?:还有|另外|对了)\s*)?(?:我们|我)?(?:组|部门|公司|班|团队|项目组|办公室|科室|科|实验室|单位|店|小区|楼上|楼下|隔壁|"
                          r"车间|病区|学校|年级组|教研组)里?"
                          r"(?:新|刚)(?:来|搬来|调来|入职)了?(?:个|一个|位|一位|一家|的)?(?:新)?(?P<w>同事|实习生|领导|主管|经理|老师|同学|邻居|员工|"
                          r"室友|租客|小姑娘|姑娘|小伙子?|护士|医生|规培生|徒弟)")
#: Someone where the user works, picked out ("科里有个老护士老李，明年就退休了", "我们组有个同事天天迟到").
_SOMEONE_THERE_RE = re.compile(r"^(?:(?:还有|另外|对了)\s*)?(?:我们|我)?(?:组|部门|公司|班|团队|项目组|办公室|科室|科|实验室|单位|店|车间|病区|学校|"
                               r"年级组|教研组)里?(?:还)?有(?:个|一个|位|一位)(?:老|新|年轻的?)?(?P<w>同事|护士|医生|老师|员工|师傅|大姐|"
                               r"大哥|阿姨|小姑娘|姑娘|小伙子?|实习生|徒弟)")
#: Whom a chat message calls on, not whom it is about: "姐妹们救命", "兄弟", "家人们", "guys".
_CALLING_RE = re.compile(r"^(?:姐妹们?|兄弟们?|家人们|宝子们?|朋友们|大家|各位|亲们|老铁们?|集美们?|\b(?:guys|folks|y'all|friends)\b)"
                         r"\s*(?:救命|求助|求救|帮帮忙|帮帮我|好|早)?[\s!！~～。.]*$", re.IGNORECASE)


#: Someone of the person just named ("my son's mate Jack", "我女儿的同学"): not of the user's household.
_THEIRS_RE = re.compile(rf"(?:'s|’s|的)\s*(?:(?:best|old|close|new|school|little)\s+)?((?:{_PERSON_ZH})|(?:{_PERSON_EN}|mate|teacher|coach)s?\b)",
                        re.IGNORECASE)


def _before_own_clause(clause: str) -> str:
    """An English clause up to "and i'm"/"and we've" when a verb comes before it ("my brother Rangi is getting married in
    Napier | and i'm helping pick the wine"); not "she and i'll be moving", "my colleague Priya and i've been pairing"."""
    joined = _AND_I_RE.search(clause)
    if joined is not None and _VERB_EN_RE.search(clause[:joined.start()]):
        return clause[:joined.start()]
    return clause


_AND_I_RE = re.compile(r"\s+and (?:i'm|im|i've|ive|i'll|we're|we've)\b", re.IGNORECASE)
_VERB_EN_RE = re.compile(r"\b(?:is|are|was|were|has|have|had|got|gets|getting|'s)\b|\w's\b", re.IGNORECASE)


def about_another_person(text: str) -> str:
    """The person a message or sentence is about when it is not the user, or "": its first clause begins with a
    relation word outside the user's household ("我表哥在华为上班，…", "同事小林下个月…", "My sister just moved
    …"). A clause with no subject is the speaker's own (Chinese and chat English drop the "I")."""
    if _CALLING_RE.match(text.strip()):
        return ""  # "兄弟们" alone, a piece of "兄弟们 问个事 卧推卡80kg…": whom the message calls on
    parts = [c.strip() for c in _FIRST_CLAUSE_RE.split(_without_lead_in(text)) if c and c.strip()]
    while len(parts) > 1 and (_ANSWER_FIRST_RE.match(parts[0]) or _CALLING_RE.match(parts[0])
                              or _NEW_TOPIC_RE.match(parts[0])):
        parts = parts[1:]  # "yes many 😅 father in law is diabetic": the answer's word, then whom it is about
    first = _LEADING_LINK_RE.sub("", parts[0] if parts else "")  # "还有个同事…", "and my cousin …"
    if len(parts) > 1 and _ONE_OF_THEM_RE.match(first) and _CAPITALISED_NAME_RE.fullmatch(parts[1]) \
            and not _ONE_OF_OURS_RE.search(first) and (parts[1][0].isupper() or (
                len(parts) > 2 and not parts[1].endswith("ly") and parts[1] not in _NOT_A_NAME_LOWER)):
        return parts[1]  # "one of the techs, Marisol, has a tree nut allergy" (not "one of our dogs, Biscuit, …")
    named = _ONE_OF_THEM_NAMED_RE.match(first)
    if named is not None and not _ONE_OF_OURS_RE.search(first) and named.group("n").lower() not in _NOT_A_NAME_LOWER:
        return named.group("n")
    if _PARENT_OF_RE.match(first):
        return ""  # "a dad of 3, trying to get fit before 40": the user introducing themselves
    newcomer = _NEWCOMER_RE.match(parts[0] if parts else "") or _SOMEONE_THERE_RE.match(parts[0] if parts else "")
    if newcomer is not None:
        return newcomer.group("w")  # "我们部门新来了个同事小敏 从丹东调过来的": the newcomer's news
    someone = _SOMEONE_FROM_RE.match(first)
    if someone is not None and not _REPORTS_RE.match(first, someone.end()) and not _THEY_AND_I_RE.search(first):
        return someone.group("w")  # "A woman at work, Priya, is leaving after eight years …"
    member = _TEAM_MEMBER_RE.match(first)
    if member is not None and not (_SELF_ZH_RE if _CJK_RE.search(first) else _SELF_EN_RE).search(first[member.end():]):
        return member.group("n") or member.group("m")  # "bastian on our team is having his first kid", "我们组的Ken辞职了"
    first = _before_own_clause(first)
    found = _SUBJECT_PERSON_RE.match(first)
    if found is None or (_SELF_ZH_RE if _CJK_RE.search(first) else _SELF_EN_RE).search(first):
        return ""  # no one else, or "My sister and I", "我和表姐": the user too
    if _REPORTS_RE.match(first, found.end()):
        return ""  # "导师说交稿时间往后挪到12月15号了": the user's news, as told to them
    theirs = _THEIRS_RE.match(first, found.end())
    if theirs is not None:
        return theirs.group(1)  # "my son's mate Jack is staying", "我儿子的同学": someone of theirs
    # The user's own household is the user's news ("我女儿下个月满6岁"); someone else's is not ("his fiancée"), nor a
    # partner's own job or health ("我老公在兴业银行上班", "my wife is a nurse", "my husband has a nut allergy").
    # A grandchild is the user's too ("我孙女今年五岁，平时是我带"), but lives where their parents do: a message that says
    # where ("我孙女在上海上三年级") is theirs.
    if _HOUSEHOLD_RE.search(found.group(2)) and not _OTHERS_POSSESSOR_RE.fullmatch(found.group(1) or "") \
            and not (_PARTNER_RE.fullmatch(found.group(2)) and _THEIR_OWN_FACT_RE.match(first, found.end())) \
            and not (_GRANDCHILD_RE.fullmatch(found.group(2)) and _says_where_they_live(text)):
        return ""
    return found.group(2)


#: A clause led by "he"/"she" (after a filler or a link word), or by a relation word someone else's ("他老婆…").
_PRONOUN_LED_RE = re.compile(r"^\s*(?:(?:嗯+|哦+|噢|ok|okay|哈哈+|唉|另外|而且|然后|不过|但是?|对了|还有|话说|and|also|but|so|oh|plus|btw)"
                             r"[\s,，、]*)*(?:他|她|他们|她们|\b(?:he|she|he's|she's|hes|shes|his|her|they|they're|their|him)\b)",
                             re.IGNORECASE)
#: What someone said of the user: "说我…", "says I …".
_TOLD_OF_ME_RE = re.compile(r"\s*(?:又|也|还|刚|一直)?(?:说|讲|告诉我|跟我说|记得)(?:我|咱)|\s+(?:says|said|told me|thinks|remembers) (?:that )?"
                            r"(?:i|i'm|i've|my)\b", re.IGNORECASE)
_WITH_ME_RE = re.compile(r"[和跟与]我|我[和跟与]|\b(?:and I|and me|me and|with me)\b", re.IGNORECASE)
#: Who the user's own household is, as a later "he"/"she" refers to them ("my son", "女儿", a pet).
_HOUSEHOLD_MENTION_RE = re.compile(
    r"老公|老婆|丈夫|妻子|爱人|对象|儿子|女儿|闺女|孩子|宝宝|娃|男朋友|女朋友|男友|女友|未婚[夫妻]|猫|狗|主子|孙子|孙女|外孙|"
    r"\b(?:husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|baby|toddler|cat|dog|puppy|grandson|"
    r"granddaughter|grandkids?|"
    r"kitten|pet)\b", re.IGNORECASE)


#: Whose a household word is when it is not the user's: "her husband", "他老婆", "老周闺女" (someone called by surname).
_OTHERS_OWN_RE = re.compile(rf"(?:\b(?:her|his|their|[a-z]+'s)\s+|[他她]的?|他们的?|她们的?|(?<![我的])(?:{ZH_CALLED_BY_SURNAME})的?)$", re.IGNORECASE)


def pronoun_about_another(text: str, said_before: str) -> str:
    """The person a clause led by "he"/"she" ("she also doesn't do spicy food", "他老婆也是我们公司的") is about when
    that is not the user's household, or "": the person last named before it, in the same session (``said_before``).
    A "he" after "my son" is the user's news; after "my coworker", not."""
    # (after a word that only opens a new matter: "还有个情况，她跟我说想考研")
    first = next((c.strip() for c in _FIRST_CLAUSE_RE.split(_without_lead_in(text))
                  if c and c.strip() and not _NEW_TOPIC_RE.match(c.strip())), "")
    led = _PRONOUN_LED_RE.match(first)
    if not led or _WITH_ME_RE.search(first):
        return ""  # not led by "he"/"she", or "他和我…", "she and I …": the user too
    if _TOLD_OF_ME_RE.match(first, led.end()):
        return ""  # "她说我小时候过敏的是头孢", "she says I'm ...": the user's news, as told to them
    last_other = max(((m.start(), m.group(0)) for pattern in (_PERSON_ZH_RE, _PERSON_EN_RE)
                      for m in pattern.finditer(said_before) if not _HOUSEHOLD_MENTION_RE.fullmatch(m.group(0))),
                     default=(-1, ""))
    # "her husband", "their son", "她老公": someone else's household, not the user's; nor "wife" again after "his wife"
    # ("he lives in tampa w his wife and 2 kids, wife Sunita is vegetarian"), nor one in a clause said of him or her
    # ("退休后他要和爱人搬去三亚住").
    theirs: set[str] = set()
    last_own = -1
    for m in _HOUSEHOLD_MENTION_RE.finditer(said_before):
        word, before = m.group(0).lower(), said_before[max(0, m.start() - 8):m.start()]
        clause = said_before[_clause_start(said_before, m.start()):m.start()]
        if _OTHERS_OWN_RE.search(before) or (not _MINE_BEFORE_RE.search(before)
                                             and (word in theirs or _SOMEONE_BEFORE_RE.search(clause))):
            theirs.add(word)
        else:
            last_own = m.start()
    return last_other[1] if last_other[0] > last_own else ""


#: "my"/"我" right before a word of the household: the user's own.
_MINE_BEFORE_RE = re.compile(r"(?:我|咱)(?:的|家的?|们家的?)?\s*$|\b(?:my|our)\s+(?:[\w-]+\s+)?$", re.IGNORECASE)
#: Someone else as a clause's subject ("他要和爱人…", "he lives … w his wife").
_SOMEONE_BEFORE_RE = re.compile(r"他|她|\b(?:he|she|they|he's|she's|hes|shes)\b", re.IGNORECASE)


def _clause_start(text: str, at: int) -> int:
    """Where the clause holding ``text[at]`` begins (after the last stop, comma or line before it)."""
    return max(text.rfind(c, 0, at) for c in "，,。.！!？?；;\n") + 1


#: A clause whose subject is someone named ("Priyanka is vegan", "and Marcus has a sesame allergy").
#: Only what is said of a person (a diet, an allergy, where they live or work), not of a project or a place named.
#: Who someone is, said beside their name: "Karen our head nurse", "Sam on reception", "Bea from accounts".
_APPOSITION = r"(?:,?\s+(?:our|my|the|from|on|in|at)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?,?)?"
#: A title before a name ("Dr Whitfield doesn't drink").
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)?"
_NAMED_SUBJECT_RE = re.compile(r"^\s*(?:(?i:and|but|so|also|plus|oh|btw|update|news)\W*\s+)?" + _TITLE +
                               r"(?P<name>[A-Z][a-zà-ÿ]{2,})(?:\s+[A-Z][a-zà-ÿ]+)?" + _APPOSITION + r"(?:\s+|(?='s\s))"
                               r"(?:(?:is|'s) (?:also |now |still )?an? (?:[a-z]+ )?(?:chef|cook|nurse|doctor|teacher|lawyer|engineer|"
                               r"developer|designer|pilot|dentist|vet|pharmacist|accountant|paramedic|firefighter|architect|"
                               r"student|professor|manager|consultant|artist|musician|writer|journalist|scientist|"
                               r"programmer|barista|baker|carpenter|electrician|plumber|mechanic|surgeon|therapist|"
                               r"(?:vegan|vegetarian|pescatarian|celiac|diabetic))\b|"  # "Marco's also a chef at …"
                               r"(?:also |just |still )?(?:is (?:also )?(?:allergic|vegan|vegetarian|pregnant|lactose|"
                               r"gluten|celiac|diabetic|kosher|halal|getting married|retiring|expecting)|has an? (?:[\w-]+ ){0,3}"
                               r"allerg\w*|(?:doesn't|does not|can't|cannot|won't) (?:eat|drink|do)|(?:only )?eats (?:only )?(?:halal|kosher|vegan|vegetarian|plant-based)|lives in|works (?:at|for|in|as)|"
                               r"moved to|is moving|has (?:\d+|a few|several|many|two|three|four|five|ten) years (?:in|of|as|at)|"
                               r"(?:just )?got (?:a|the|her|his|a new) (?:job|offer|promotion|interview|place|visa)|"
                               r"is (?:applying|interviewing) for))\b")  # "Fatima has 6 years in retail management"
#: Capitalised words that begin a sentence without naming anyone.
_NOT_NAMES = frozenset("""The This That These Those It Its There Here What When Where Why How Who Which Thanks Thank Also Just
Maybe Honestly Work Life Today Tomorrow Yesterday Tonight Everything Nothing Everyone Everybody Someone Somebody Nobody
Anyone Anything Something Traffic Weather Dinner Lunch Breakfast Monday Tuesday Wednesday Thursday Friday Saturday
Sunday January February March April May June July August September October November December""".split())
#: Someone of the user's household named ("my son Dev", "our cat Pimento", "Dev, my son").
_HOUSEHOLD_ROLE = (r"(?:son|daughter|kid|baby|toddler|wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|cat|dog|grandson|granddaughter|"
                   r"puppy|kitten|pet|bunny|rabbit|parrot|hamster)")
_HOUSEHOLD_NAMED_RE = re.compile(
    rf"\b(?:my|our)\s+(?:[\w-]+\s+)?{_HOUSEHOLD_ROLE}(?:'s name is|\s+is named|\s+is called|\s+named|\s+called|,)?\s+"
    rf"(?P<n>[A-Z][a-z]+)|(?P<m>[A-Z][a-z]+),?\s+(?:my|our)\s+(?:[\w-]+\s+)?{_HOUSEHOLD_ROLE}\b|"
    rf"\b(?:a|an)\s+(?:[\w-]+\s+)?{_HOUSEHOLD_ROLE}\s+(?:named|called)\s+(?P<k>[A-Z][a-z]+)", re.IGNORECASE)
_OWN_EN_RE = re.compile(r"\b(?:i|i'm|im|i've|i'd|i'll|we|we're|we've|my|our|me|us)\b", re.IGNORECASE)


_WHO_THEY_ARE_RE = re.compile(r"(?<=[A-Za-z]),?\s+(?:our|my)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?,?(?=\s+(?:is|was|has|had)\b|'s\b)")


def named_another(clause: str, said: str) -> str:
    """The name of someone else a clause is about ("Priyanka is vegan" in a message about an office potluck), or "":
    its subject is a name, no "I"/"we" is, and ``said`` (the session so far) never named them as the user's own
    household ("our cat Pimento", "my son Dev": their news is the user's). A name the session introduced as someone
    outside the household ("my friends kemi and dan", "my brother tomás") is a subject in any case and with any
    predicate: "kemi's vegan", "update: tomás got the interview"."""
    if _OWN_EN_RE.search(_WHO_THEY_ARE_RE.sub("", clause)):  # "Karen our head nurse is retiring": hers
        return ""
    found = _NAMED_SUBJECT_RE.match(clause)
    if found is None or found.group("name") in _NOT_NAMES:
        led = _NAME_LED_RE.match(clause)
        return led.group("name") if led and led.group("name").lower() in others_named(said) else ""
    household = {name.lower() for m in _HOUSEHOLD_NAMED_RE.finditer(said) for name in m.groups() if name}
    return "" if found.group("name").lower() in household else found.group("name")


#: Someone outside the household introduced by name: "my friends kemi and dan", "my colleague hannah", "our neighbour
#: Mrs Patel" (the name after the relation word, in any case).
_OUTSIDER = (r"friends?|buddy|buddies|pals?|mates?|besties?|brothers?|sisters?|cousins?|colleagues?|coworkers?|co-workers?|"
             r"boss|manager|roommates?|flatmates?|neighbou?rs?|classmates?|teammates?|aunt|uncle|niece|nephew|"
             r"(?:mother|father|sister|brother)[- ]in[- ]law|grandma|grandpa|clients?|ex")
_OTHERS_NAMED_RE = re.compile(rf"\b(?:my|our)\s+(?:(?:best|old|close|good|two|new|younger|older|little|big|work|senior|junior|"
                              rf"elder|eldest|baby|twin|step|half|kid)\s+)?"
                              rf"(?:{_OUTSIDER})\s+(?P<a>[^\W\d_][\w-]+)(?:\s*(?:,|and|&)\s*(?P<b>[^\W\d_][\w-]+))?|"
                              # "one of the vets, Priyanka, …", "Karen our head nurse", "Sam on reception"
                              r"\bone of (?:the|my|our) [a-z]+s,\s+(?P<c>(?-i:[A-Z])[a-z]+)\b|"
                              r"(?-i:\b(?P<d>[A-Z][a-z]{2,}),?\s+(?:our|my)\s+(?:[a-z]+\s+)?(?:nurse|manager|boss|receptionist|"
                              r"teacher|coach|neighbou?r|landlord|landlady|colleague|coworker|friend|vet|doctor|admin|lead|supervisor|"
                              r"intern|tech|assistant|cleaner|nanny|babysitter)\b)|"
                              # in Chinese chat with an English name ("我有个client Mr Tan, 在Raub种榴莲的")
                              r"(?:我有个|我有一个|我的|我们的?)(?:client|客户|朋友|同事|邻居|同学|老板|boss|colleague|friend|室友|学生)\s?"
                              r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Uncle|Auntie|Aunty)\.?\s)?(?P<e>(?-i:[A-Z])[a-z]+)",
                              re.IGNORECASE)
#: A clause led by a name and what it does or is: "kemi's vegan", "and dan's a paramedic", "update: tomás got …".
_NAME_LED_RE = re.compile(r"^\W*(?:(?:and|but|so|also|plus|oh|btw|update|news|anyway|ok|okay)\W+)*"
                          r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Uncle|Auntie|Aunty)\.?\s+)?(?P<name>[^\W\d_][\w-]+)" + _APPOSITION +
                          # what they said, in Chinese chat ("Mr Tan 说园那边开车去KL要2个钟")
                          r"(?:\s?(?:说|讲|觉得)(?!我|让我|叫我|要我)|\s?想要?|"
                          r"(?:'s\b|\s+(?:is|was|has|had|got|gets|just|also|still|now|will|would|can|can't|cannot|could|does|"
                          r"doesn't|did|didn't|isn't|wasn't|won't|works|worked|lives|lived|moved|moves|starts|started|"
                          r"wants|needs|loves|likes|hates|eats|drinks|prefers|plays|studies|teaches|runs|owns|only)\b|"
                          # what they say of themselves: "Kwesi says they want to move to Kumasi"
                          r"\s+(?:says|said|thinks|reckons|told me) (?:that )?(?:they|he|she|his|her|their)\b))",
                          re.IGNORECASE)
#: Words after a relation word that are no name ("my friend from work", "my colleagues are …"; written with no "'s":
#: "12 May is my sister birthday, mine is 21 May").
_NO_NAME = frozenset("""is are was were has have had who whom whose that which and or from at in on of for with to the a an
just also said says told asked wants wanted will would can could got gets and but so this these those there here all both
today tonight now yesterday tomorrow again too though tho lol haha btw rn still always never really finally
mine yours ours hers theirs me my his her their birthday bday anniversary wedding party house place home car name age
job work phone""".split())


@functools.lru_cache(maxsize=32)
def others_named(said: str) -> frozenset[str]:
    """The names, in lower case, that ``said`` gives to people outside the user's household (cached: every clause of
    a message asks with the same session text)."""
    return frozenset(name.lower() for m in _OTHERS_NAMED_RE.finditer(said) for name in m.group("a", "b", "c", "d", "e")
                     if name and name.lower() not in _NO_NAME)


def introductions(text: str) -> str:
    """The phrases of ``text`` that introduce someone by name, outside the household ("my friends kemi and dan") or in
    it ("my son Dev"), one per line in the order said: what a later session knows of whom a name is."""
    found = sorted((m.start(), m.group(0)) for pattern in (_OTHERS_NAMED_RE, _HOUSEHOLD_NAMED_RE)
                   for m in pattern.finditer(text or ""))
    return "".join(f"{phrase}.\n" for _, phrase in found)


def _mentions_person(content: str) -> bool:
    return bool(_PERSON_ZH_RE.search(content) or _PERSON_EN_RE.search(content))


def _negative(text: str) -> bool:
    return bool(_NEGATION_RE.search(_NOT_NEGATION_RE.sub("", text)))

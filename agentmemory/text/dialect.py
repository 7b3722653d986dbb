"""Regional and spoken Chinese, read as standard Mandarin.

Voice-typed and northern Chinese says "俺" and "咱" for "我" ("俺在淮滨一家饺子馆当帮厨", "咱家猫叫麦芽") and "俺们",
"咱们" for "我们"; Shanghainese says "阿拉" for "我们" or "我", "伊" for "他"/"她" and "侬" for "你" ("阿拉同事小方
伊生病住院了"); Cantonese writes its own words ("我喺网易做UI设计", "揸架飞度返工", "芝士上个礼拜走咗", "佢"); Sichuanese
asks "啥子" and "咋个"; Wu Chinese calls a daughter "囡囡".

Who a message speaks of is read by its pronouns, so every rule reads them in the standard form (:func:`standard_chinese`,
applied to the user's turns as the extractors read them). A Cantonese message's other words are read in Mandarin by the
slot patterns only (:func:`cantonese_as_mandarin`): what its episode keeps is what the user typed ("揸小巴", "戒咗").
A word of Cantonese or Shanghainese is read so only in a message that writes that dialect (a Cantonese-only character,
"阿拉", "侬"): "系" is "是" in "我系" but not in "系统"; "王伊涵" and "伊兰特" are names.
"""
from __future__ import annotations

import re

_FIRST_PERSON_RE = re.compile(r"(俺|咱)(们)?")
#: Shanghainese "阿拉" (not a name that begins so: 阿拉伯, 阿拉斯加, 阿拉善, 阿拉丁, 阿拉巴马 …).
_ALA = r"阿拉(?!伯|斯加|善|丁|蕾|木图|比卡|贡|山口|巴马|尔|法特|米|瓜)"
#: "阿拉", Cantonese "我哋": "我们".
_WE_RE = re.compile(rf"{_ALA}|我哋")
#: Shanghainese "伊" as a pronoun (not a word or a name it begins or ends: 伊朗, 伊利, 伊犁, 伊斯兰, 木乃伊, 伊始, 伊藤,
#: 伊面 …), and its plurals.
_THIRD_PERSON_RE = re.compile(r"(?<![木乃那奥克塞维比阿努卡达沙拉泰海安])伊(?!朗|利|犁|斯|拉克|春|人|始|藤|面|丽莎|甸|宁|川|通|万|"
                              r"莎|娃|凡|索|尔|比|莉|能|宸|娜|蒂|芙|顿|势|吾|贺|豆|里|洛|格|丝|丽)(拉|们)?")
#: A message written in Cantonese: a word only Cantonese writes, or "系" as its "是" after a subject.
_CANTONESE_RE = re.compile(r"[喺咗嘅冇啲佢睇嚟揸畀嘢哋噉嗰攞搵谂諗]|(?<!咩)咩(?!咩)|唔(?=[系係好该該使知得准会識识想要够到算错喺])|"
                           r"而家|宜家|返工|放工|屋企|乜嘢|點解|琴日|做緊|做紧|係咪|系咪|"
                           r"(?:我|你|佢|都|就|生日)[系係](?!统|列|数|里|主任)")
#: Cantonese words and their Mandarin, longest first where one holds another.
_CANTONESE = (
    ("唔該", "谢谢"), ("唔该", "谢谢"), ("唔係", "不是"), ("唔系", "不是"), ("乜嘢", "什么"), ("咩嘢", "什么"), ("而家", "现在"),
    ("宜家", "现在"), ("边度", "哪里"), ("边个", "谁"), ("点样", "怎样"), ("点解", "为什么"), ("點解", "为什么"), ("几耐", "多久"),
    ("几多", "多少"), ("今日", "今天"), ("听日", "明天"), ("聽日", "明天"), ("琴日", "昨天"), ("尋日", "昨天"), ("讲错", "说错"),
    ("講錯", "说错"), ("做紧", "在做"), ("做緊", "在做"), ("係咪", "是不是"), ("系咪", "是不是"), ("返工", "上班"), ("放工", "下班"),
    ("返学", "上学"), ("屋企", "家"), ("过嚟", "过来"), ("搵工", "找工作"), ("嗰间", "那间"), ("嗰个", "那个"), ("嗰", "那"),
    ("佢哋", "他们"), ("我哋", "我们"), ("你哋", "你们"), ("佢", "他"), ("喺", "在"), ("咗", "了"), ("嘅", "的"), ("冇", "没有"),
    ("唔", "不"), ("睇", "看"), ("畀", "给"), ("俾", "给"), ("嚟", "来"),
    ("啲", "些"), ("嘢", "东西"), ("揸", "开"), ("攞", "拿"), ("搵", "找"), ("谂", "想"), ("諗", "想"),
    ("噉", "这样"), ("係", "是"),
)
_CANTONESE_WORDS_RE = re.compile("|".join(re.escape(k) for k, _ in _CANTONESE) + r"|(?<!咩)咩(?!咩)")
_CANTONESE_WORDS = {**dict(_CANTONESE), "咩": "什么"}  # (not a lamb's "咩咩")
#: Cantonese "my son", "my daughter" ("我个仔乐乐"): who a message speaks of.
_CANTONESE_CHILD_RE = re.compile(r"(?<=[我他你佢])个(仔|女)")


def _child(found: re.Match) -> str:
    return "儿子" if found.group(1) == "仔" else "女儿"


#: Cantonese "my son", "my car" ("我个仔乐乐", "我部电脑系MacBook Air M1", "开我架Model Y"); "系" as "是" after a subject
#: (not in a Mandarin word: "系统", "计算机系", "关系"); "仲" as "还"; "返" as "回".
_CANTONESE_GRAMMAR = (
    (_CANTONESE_CHILD_RE, _child),
    (re.compile(r"(?<=[我他你佢])(?:部(?!门|分|队|长|位|落)|架(?!子|构))(?=[A-Za-z\u4e00-\u9fff])"), lambda m: "的"),
    (re.compile(r"(?<=[我你佢他她都就也唔不仲又日])[系係](?!统|列|数|里|科|主任)|(?<=电脑|手机|车子)系"), lambda m: "是"),
    (re.compile(r"仲(?=有|系|是|要|未|在|想|会)"), lambda m: "还"),
    (re.compile(r"(?<![往])返(?=[\u4e00-\u9fff]{2})(?!回)"), lambda m: "回"),
)


def cantonese_as_mandarin(text: str) -> str:
    """``text`` in Mandarin when it is written in Cantonese ("我而家喺银河酒店做前台" is "我现在在银河酒店做前台", "我生日系3月18号"
    is "我生日是3月18号"); any other text as it is."""
    if not _CANTONESE_RE.search(text or ""):
        return text or ""
    # (its words first: "返工" is "上班" before "返" is read as "回")
    text = _CANTONESE_WORDS_RE.sub(lambda m: _CANTONESE_WORDS[m.group(0)], text)
    for pattern, standard in _CANTONESE_GRAMMAR:
        text = pattern.sub(standard, text)
    return text


#: Shanghainese, in a message that writes it: "侬" for "你", "伐" for "吗" at a question's end.
_SHANGHAINESE_RE = re.compile(rf"{_ALA}|侬|伐(?=\s*[?？。!！~～]|\s*$)")
_SHANGHAINESE = ((re.compile(r"侬"), "你"), (re.compile(r"伐(?=\s*[?？。!！~～]|\s*$|\s)"), "吗"))
#: Wu Chinese "囡囡" for the user's daughter ("阿拉囡囡今年八岁", "囡囡叫小满"), not someone else's ("她家囡囡").
_DAUGHTER_RE = re.compile(r"(?<![你他她伊佢]家)(?<![你他她伊佢])囡囡")
#: Sichuanese words for asking ("啥子区别", "咋个弄"), and "屋头" for at home.
_SICHUANESE = ((re.compile(r"啥子"), "什么"), (re.compile(r"咋个"), "怎么"), (re.compile(r"屋头"), "家里"))


#: Cantonese pronouns: who a message speaks of, read in a Cantonese message whose other words stay as typed.
_CANTONESE_PRONOUNS_RE = re.compile(r"佢哋|我哋|你哋|佢")


def written_in_shanghainese(text: str) -> bool:
    """Whether ``text`` writes Shanghainese ("阿拉", "侬", a question's "伐")."""
    return bool(_SHANGHAINESE_RE.search(text or ""))


def standard_chinese(text: str, shanghainese: bool = False) -> str:
    """``text`` with the regional pronouns above read as standard Mandarin ("俺", "阿拉", Shanghainese "伊", Cantonese "佢"
    and "我哋", "囡囡"), and Sichuanese "啥子"/"咋个"; anything else unchanged. A Cantonese message keeps its other words (what
    the memory keeps is what the user typed, "揸小巴", "戒咗"); the slot patterns read it whole in Mandarin
    (:func:`cantonese_as_mandarin`, through ``backends/extractors/chat.py``), as do the episode rules that need its
    grammar (a new job, "入咗Shopee"). ``shanghainese``: the session is written in Shanghainese, so this message's "伊"
    is a pronoun though it writes no other Shanghainese word ("还有伊养了只柯基叫布丁" after "阿拉同事小方 伊生病住院了")."""
    text = _FIRST_PERSON_RE.sub(lambda m: "我们" if m.group(2) else "我", text or "")
    shanghainese = shanghainese or written_in_shanghainese(text)
    if shanghainese:
        for pattern, standard in _SHANGHAINESE:
            text = pattern.sub(standard, text)
    text = _DAUGHTER_RE.sub("女儿", _WE_RE.sub("我们", text))
    if _CANTONESE_RE.search(text):
        text = _CANTONESE_CHILD_RE.sub(_child, text)  # "我个仔" is "我儿子": who it is about
        text = _CANTONESE_PRONOUNS_RE.sub(lambda m: _CANTONESE_WORDS[m.group(0)], text)
    if shanghainese:
        # (only in a message written in Shanghainese: "王伊涵", "伊兰特", "伊利诺伊州" are names)
        text = _THIRD_PERSON_RE.sub(lambda m: "他们" if m.group(1) else "他", text)
    for pattern, standard in _SICHUANESE:
        text = pattern.sub(standard, text)
    return text

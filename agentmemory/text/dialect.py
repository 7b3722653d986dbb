"""Regional and spoken Chinese, read as standard Mandarin.

Voice-typed and northern Chinese says "俺" and "咱" for "我" ("俺在淮滨一家饺子馆当帮厨", "咱家猫叫麦芽") and "俺们",
"咱们" for "我们"; Shanghainese says "阿拉" for "我们" or "我", "伊" for "他"/"她" and "侬" for "你" ("阿拉同事小方 伊生病住院了");
Cantonese writes its own grammar words ("我喺网易做UI设计", "揸架飞度返工", "芝士上个礼拜走咗"); Sichuanese asks "啥子" and
"咋个". What the user says is read by the words it uses; a message that says "俺" or "喺" says the same as one that says
"我" or "在", so the extraction reads (and keeps) it in the standard form. A word of Cantonese or Shanghainese grammar is
read so only in a message that writes that dialect (a Cantonese-only character, "阿拉", "侬"): "系" is "是" in "我系" but
not in "系统".
"""
from __future__ import annotations

import re

_FIRST_PERSON_RE = re.compile(r"(俺|咱)(们)?")
#: "阿拉" (not a name that begins so: 阿拉伯, 阿拉斯加, 阿拉善, 阿拉丁, 阿拉蕾), "我哋".
_WE_RE = re.compile(r"阿拉(?!伯|斯加|善|丁|蕾|木图|比卡|贡|山口)|我哋")
#: "伊" as a pronoun (not a word or a name it begins or ends: 伊朗, 伊利, 伊犁, 伊斯兰, 木乃伊, 伊始, 伊藤, 伊面 …),
#: "佢", and their plurals.
_THIRD_PERSON_RE = re.compile(r"(?<![木乃那奥克塞维比阿努卡达沙拉泰海安])(?:伊|佢)(?!朗|利|犁|斯|拉克|春|人|始|藤|面|丽莎|甸|宁|川|通|万|"
                              r"莎|娃|凡|索|尔|比|莉|能|宸|娜|蒂|芙|顿|势|吾|贺|豆|里|洛|格|丝|丽)(哋|拉|们)?")
#: A message written in Cantonese: a character only Cantonese writes, or its words for work and home.
_CANTONESE_RE = re.compile(r"[喺咗嘅冇唔啲佢睇嚟咩揸畀嘢哋噉嗰攞搵谂]|返工|放工|屋企")
#: Cantonese words and their Mandarin, longest first where one holds another.
_CANTONESE = (
    ("唔该", "谢谢"), ("乜嘢", "什么"), ("咩嘢", "什么"), ("边度", "哪里"), ("边个", "谁"), ("点样", "怎样"), ("点解", "为什么"),
    ("几耐", "多久"), ("几多", "多少"), ("今日", "今天"), ("听日", "明天"), ("琴日", "昨天"), ("尋日", "昨天"),
    ("返工", "上班"), ("放工", "下班"), ("返学", "上学"), ("屋企", "家"), ("过嚟", "过来"), ("搵工", "找工作"),
    ("嗰间", "那间"), ("嗰个", "那个"), ("嗰", "那"), ("喺", "在"), ("咗", "了"), ("嘅", "的"), ("冇", "没有"), ("唔", "不"),
    ("睇", "看"), ("畀", "给"), ("俾", "给"), ("嚟", "来"), ("啲", "些"), ("嘢", "东西"), ("咩", "什么"), ("揸", "开"),
    ("攞", "拿"), ("搵", "找"), ("谂", "想"), ("噉", "这样"), ("係", "是"),
)
_CANTONESE_RE_MAP = re.compile("|".join(re.escape(k) for k, _ in _CANTONESE))
_CANTONESE_WORDS = dict(_CANTONESE)
#: Cantonese "his son", "my car" ("我个仔乐乐", "我部电脑系MacBook Air M1", "开我架Model Y"); "系" as "是" after a subject.
_CANTONESE_GRAMMAR = (
    (re.compile(r"(?<=[我他你])个(仔|女)"), lambda m: "儿子" if m.group(1) == "仔" else "女儿"),
    (re.compile(r"(?<=[我他你])(?:部|架|只|间)(?=[A-Za-z\u4e00-\u9fff])"), lambda m: "的"),
    (re.compile(r"(?<=[我他你都就也不还又])系(?![统列数里科主])|(?<=电脑|手机|车子)系"), lambda m: "是"),
    (re.compile(r"仲(?=有|系|是|要|未|在|想|会)"), lambda m: "还"),
    (re.compile(r"(?<![往])返(?=[\u4e00-\u9fff]{2})(?!回)"), lambda m: "回"),
)
#: Shanghainese, in a message that writes it: "侬" for "你", "伐" for "吗" at a question's end.
_SHANGHAINESE_RE = re.compile(r"阿拉(?!伯|斯加|善|丁|蕾)|侬")
_SHANGHAINESE = ((re.compile(r"侬"), "你"), (re.compile(r"伐(?=\s*[?？。!！~～]|\s*$|\s)"), "吗"))
#: Sichuanese words for asking ("啥子区别", "咋个弄"), and "屋头" for at home.
_SICHUANESE = ((re.compile(r"啥子"), "什么"), (re.compile(r"咋个"), "怎么"), (re.compile(r"屋头"), "家里"))


def standard_chinese(text: str) -> str:
    """``text`` with the regional forms above read as standard Mandarin; anything else unchanged."""
    text = _FIRST_PERSON_RE.sub(lambda m: "我们" if m.group(2) else "我", text or "")
    if _SHANGHAINESE_RE.search(text):
        for pattern, standard in _SHANGHAINESE:
            text = pattern.sub(standard, text)
    text = _WE_RE.sub("我们", text)
    if _CANTONESE_RE.search(text):
        for pattern, standard in _CANTONESE_GRAMMAR:
            text = pattern.sub(standard, text)
        text = _CANTONESE_RE_MAP.sub(lambda m: _CANTONESE_WORDS[m.group(0)], text)
    text = _THIRD_PERSON_RE.sub(lambda m: "他们" if m.group(1) in ("哋", "们") else "他", text)
    for pattern, standard in _SICHUANESE:
        text = pattern.sub(standard, text)
    return text


#: The name the first form of this module gave it (it read only "俺" and "咱").
standard_first_person = standard_chinese

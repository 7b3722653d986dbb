"""Small talk: a message that is only a greeting, thanks, an acknowledgement or a goodbye, or a
question to the assistant about itself, the time or where the conversation was.

Such a message carries no evidence for any document or memory (the closest knowledge chunk or memory
to "谢谢！", "ok sounds good" or "你是机器人吗？" is noise: an encyclopedia's robot article), so the
context retrieves neither for it: the relevance floor of a message that says nothing. What remains
after removing these phrases, punctuation and modal particles must be empty or one of those
questions; "谢谢，那预算怎么分配？" is a question, not small talk.
"""
from __future__ import annotations

import re

from ..text.tokenize import _fold

_PHRASES_ZH = (
    "你好呀", "你好啊", "你好", "您好", "哈喽", "嗨", "早上好", "早安", "中午好", "下午好", "晚上好", "晚安",
    "最近怎么样", "最近好吗", "在吗", "在不在",
    "非常感谢", "太感谢了", "感谢", "多谢", "谢谢你", "谢谢您", "谢谢", "谢啦", "辛苦了", "麻烦了",
    "好的", "好滴", "好嘞", "好吧", "好", "行吧", "行", "可以", "没问题", "明白了", "明白", "知道了", "懂了", "收到",
    "了解", "嗯嗯", "嗯", "哦哦", "哦", "噢", "对", "是的", "对的", "哈哈哈", "哈哈", "呵呵", "嘿嘿", "不客气", "没事",
    "再见", "拜拜", "回头聊", "明天再聊", "下次再聊", "那就先这样", "那就这样", "先这样", "就这样", "那好",
)
_PHRASES_EN = (
    "hello there", "hello", "hi there", "hi", "hey there", "hey", "good morning", "good afternoon", "good evening",
    "good night", "have a good night", "have a nice day", "how are you doing", "how are you", "how's it going",
    "what's up", "thank you so much", "thank you very much", "thank you", "thanks a lot", "thanks so much",
    "thanks", "thx", "ty", "much appreciated", "appreciate it", "cheers", "that was helpful", "that helps",
    "ok", "okay", "k", "got it", "sounds good", "sounds great", "great", "cool", "nice", "perfect", "sure",
    "alright", "all right", "i see", "understood", "yes", "yep", "yeah", "no problem", "np", "lol", "haha",
    "hahaha", "bye", "goodbye", "see you", "see you later", "see ya", "talk later", "talk to you later",
)
_PARTICLES = "啊呀呢吧啦哈嘛哟喔哇的了吗"
_EN_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(_PHRASES_EN, key=len, reverse=True)) + r")\b")
_ZH_RE = re.compile("|".join(re.escape(p) for p in sorted(_PHRASES_ZH, key=len, reverse=True)))
_REST_RE = re.compile(rf"[\s\W_{_PARTICLES}]+")
_MAX_CHARS = 60  # longer messages say something
# Questions to the assistant about itself, the clock or the conversation (what is left, punctuation removed).
_ABOUT_ASSISTANT = re.compile(
    r"(?:你|您)(?:是谁|叫什么(?:名字)?|是(?:不是)?(?:机器人|真人|人工智能|ai|人)|能做(?:些)?什么|会(?:做)?(?:些)?什么"
    r"|能干(?:什么|啥)|可以做(?:些)?什么)"
    r"|(?:现在)?几点(?:钟)?|现在(?:什么|啥)时间|今天(?:是)?(?:几号|星期几|周几|礼拜几)"
    r"|(?:我们)?(?:我)?(?:刚才|刚刚|之前)?(?:说|聊|讲)到哪(?:儿|里)?"
    r"|who are you|what(?:s| is) your name|are you (?:a |an )?(?:bot|robot|human|real person|ai)"
    r"|what can you do|what time is it|what day is it(?: today)?|where were we")


def is_small_talk(message: str) -> bool:
    """Whether ``message`` is only greetings, thanks, acknowledgements or goodbyes, or a question to the
    assistant about itself, the clock or the conversation (Chinese or English)."""
    text = _fold(message or "").lower().strip()
    if not text or len(text) > _MAX_CHARS:
        return False
    rest = _ZH_RE.sub(" ", _EN_RE.sub(" ", text))
    if not _REST_RE.sub("", rest):
        return True
    # Punctuation out, sentence-final particles ("吗", "呢", "啊") off: "你是机器人吗？" -> "你是机器人".
    question = re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", rest.replace("'", ""))).strip()
    question = re.sub(rf"[{_PARTICLES}]+(?=\s|$)", "", question).strip()
    return _ABOUT_ASSISTANT.fullmatch(question) is not None

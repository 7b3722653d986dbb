"""Small talk: a message that is only a greeting, thanks, an acknowledgement or a goodbye.

Such a message carries no evidence for any document or memory (the closest knowledge chunk or memory
to "谢谢！" or "ok sounds good" is noise), so the context retrieves neither for it: the relevance floor
of a message that says nothing. What remains after removing these phrases, punctuation and modal
particles must be empty; "谢谢，那预算怎么分配？" is a question, not small talk.
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
    "再见", "拜拜", "回头聊", "明天再聊", "下次再聊", "先这样", "就这样",
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
_PARTICLES = "啊呀呢吧啦哈嘛哟喔哇的了"
_EN_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(_PHRASES_EN, key=len, reverse=True)) + r")\b")
_ZH_RE = re.compile("|".join(re.escape(p) for p in sorted(_PHRASES_ZH, key=len, reverse=True)))
_REST_RE = re.compile(rf"[\s\W_{_PARTICLES}]+")
_MAX_CHARS = 60  # longer messages say something


def is_small_talk(message: str) -> bool:
    """Whether ``message`` is only greetings, thanks, acknowledgements or goodbyes (Chinese or English)."""
    text = _fold(message or "").lower().strip()
    if not text or len(text) > _MAX_CHARS:
        return False
    rest = _ZH_RE.sub(" ", _EN_RE.sub(" ", text))
    return not _REST_RE.sub("", rest)

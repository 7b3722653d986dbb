"""Where a near-duplicate begins: the cosine of edited copies against the cosine of distinct paragraphs.

    python manage.py agentmemory_calibrate_duplicates [--corpus ../shared/bench/cmrc2018-dev/corpus.jsonl]
        [--paragraphs 400] [--seed 7]

Takes paragraphs of a corpus (first 400 characters each, as a chunk), embeds them with the configured
embedder, and for each threshold prints:

* **false duplicates**: the share of paragraphs whose nearest *other* paragraph passes the rule of
  ``knowledge/duplicates.py`` (cosine >= threshold and the same numbers and Latin words), and the share
  passing on the cosine alone (what the rule decides for texts with no number or Latin word);
* **copies found**, per kind of edit made to each paragraph: punctuation and spacing changed (half-width
  for full-width, spaces added), a sentence dropped, a sentence of another paragraph added;
* **number changed** (should not be a copy): a digit changed, or a Chinese numeral replaced by a digit.

Equal text after normalisation is always a copy and needs no threshold; this measures the rest.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from agentmemory.backends import get_embedder
from agentmemory.knowledge.duplicates import normalise, signature

THRESHOLDS = (0.90, 0.93, 0.95, 0.96, 0.97, 0.98, 0.99)
_SPLIT_RE = re.compile(r"(?<=[。！？])")
_FULL_TO_HALF = str.maketrans("，。！？；：（）", ",.!?;:()")


def _sentences(text: str) -> list[str]:
    return [s for s in _SPLIT_RE.split(text) if s.strip()]


def _punctuation(text: str) -> str:
    return text.translate(_FULL_TO_HALF).replace(",", ", ")


def _drop(text: str, rng: random.Random) -> str | None:
    parts = _sentences(text)
    if len(parts) < 3:
        return None
    del parts[rng.randrange(1, len(parts))]
    return "".join(parts)


def _add(text: str, other: str, rng: random.Random) -> str:
    extra = _sentences(other) or [other[:40]]
    return text + rng.choice(extra)


def _number(text: str, rng: random.Random) -> str | None:
    digits = [m.start() for m in re.finditer(r"\d", text)]
    if digits:
        i = rng.choice(digits)
        return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:]
    for numeral, digit in (("两", "2"), ("三", "3"), ("五", "5"), ("十", "10")):
        if numeral in text:
            return text.replace(numeral, digit, 1)
    return None


def _copy(a: np.ndarray, b: np.ndarray, ta: str, tb: str, threshold: float) -> bool:
    return normalise(ta) == normalise(tb) or (float(a @ b) >= threshold and signature(ta) == signature(tb))


class Command(BaseCommand):
    help = "Measure the near-duplicate cosine threshold: distinct paragraphs against edited copies."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", default="../shared/bench/cmrc2018-dev/corpus.jsonl")
        parser.add_argument("--paragraphs", type=int, default=400)
        parser.add_argument("--seed", type=int, default=7)

    def handle(self, *args, **options):
        path = Path(options["corpus"])
        if not path.exists():
            raise CommandError(f"{path} does not exist")
        rng = random.Random(options["seed"])
        texts = [json.loads(line)["text"][:400] for line in path.open(encoding="utf-8") if line.strip()]
        texts = list(dict.fromkeys(texts))
        rng.shuffle(texts)
        texts = texts[:options["paragraphs"]]
        embedder = get_embedder()
        base = np.asarray(embedder.embed_passages(texts), dtype=np.float32)
        variants: dict[str, list[tuple[int, str]]] = {"punctuation": [], "sentence dropped": [], "sentence added": [],
                                                      "number changed": []}
        for i, text in enumerate(texts):
            variants["punctuation"].append((i, _punctuation(text)))
            if (dropped := _drop(text, rng)) is not None:
                variants["sentence dropped"].append((i, dropped))
            variants["sentence added"].append((i, _add(text, texts[(i + 1) % len(texts)], rng)))
            if (changed := _number(text, rng)) is not None:
                variants["number changed"].append((i, changed))
        vectors = {kind: np.asarray(embedder.embed_passages([t for _i, t in rows]), dtype=np.float32)
                   for kind, rows in variants.items()}
        sims = base @ base.T
        np.fill_diagonal(sims, -1.0)
        nearest = sims.argmax(axis=1)
        self.stdout.write(f"{len(texts)} paragraphs of {path}; nearest distinct cosine: median "
                          f"{np.median(sims.max(axis=1)):.3f}, p99 {np.percentile(sims.max(axis=1), 99):.3f}, "
                          f"max {sims.max():.3f}")
        cosines = {kind: [float(base[i] @ vectors[kind][j]) for j, (i, _t) in enumerate(rows)]
                   for kind, rows in variants.items()}
        for kind, values in cosines.items():
            self.stdout.write(f"  {kind:<17} n={len(values):<4} cosine p5 {np.percentile(values, 5):.3f} "
                              f"median {np.median(values):.3f}")
        header = f"{'threshold':>9} | {'cosine only':>11} | {'false dup':>9} | " + " | ".join(f"{k:>16}" for k in variants)
        self.stdout.write(header)
        self.stdout.write("-" * len(header))
        for threshold in THRESHOLDS:
            false = sum(_copy(base[i], base[nearest[i]], texts[i], texts[nearest[i]], threshold)
                        for i in range(len(texts))) / len(texts)
            found = [sum(_copy(base[i], vectors[kind][j], texts[i], t, threshold)
                         for j, (i, t) in enumerate(rows)) / max(len(rows), 1) for kind, rows in variants.items()]
            alone = float((sims.max(axis=1) >= threshold).mean())
            self.stdout.write(f"{threshold:>9.2f} | {alone:>11.3f} | {false:>9.3f} | "
                              + " | ".join(f"{f:>16.3f}" for f in found))
        self.stdout.write("copies found: higher is better, except 'number changed' (a changed number is not a copy).")

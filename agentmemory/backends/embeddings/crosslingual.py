"""Cross-lingual search: the query's vector moved into the language of the chunks it is compared with.

A multilingual embedder places every text of one language around a common offset: an English question and
the Chinese paragraph that answers it meet at a cosine (0.72-0.76 with the bundled embedder) where unrelated
Chinese text meets a Chinese question, so the right paragraph drowns among near-misses. Adding the
difference between the mean Chinese and the mean English query vector (measured on parallel questions, the
same question in both languages) to an English query's vector before comparing it with Chinese chunks
removes most of that offset ("language-neutral" centring, Libovický et al., 2020): on English questions
over the cmrc2018 paragraphs, R@5 of the vector channel rose from 0.742 to 0.833 on a set nothing was fitted
on (docs/retrieval.md). Chinese queries over English chunks take the opposite difference.

The offset moves the question as a whole; the names in it stay English. So the question's dictionary words in
the chunks' language (``text/lexicon.translated``: "Constantinople" -> 君士坦丁堡) are embedded as a text of
their own and added to the shifted vector with ``CROSS_LINGUAL_GLOSS_WEIGHT`` (0.25): hybrid R@5 of English
questions over the cmrc2018 paragraphs 0.833 -> 0.847 (dev; 0.867 with the names the lexicon learnt the same day);
on XQuAD-style bases, whose questions share the paragraphs' common words, it gains less, and a weight of 0.5 cost
them more than it gained (docs/retrieval.md, "Both languages").
A model without a measured offset gets the gloss alone, added to its unshifted vector.

The difference is a property of the embedding model: ``agentmemory/data/language_shift.json`` holds it for
the bundled embedder (``agentmemory_train_relevance`` measures it); another model gets no shift until one is
measured for it (``CROSS_LINGUAL_SHIFT`` names a file of your own), and its queries are compared as they are.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...conf import app_settings

BUNDLED_SHIFT = Path(__file__).resolve().parents[2] / "data" / "language_shift.json"
LANGUAGES = ("zh", "en")


@lru_cache(maxsize=4)
def _load(path: str) -> dict[str, np.ndarray]:
    file = Path(path)
    if not file.exists():
        return {}
    data = json.loads(file.read_text(encoding="utf-8"))
    return {model: np.asarray(vector, dtype=np.float32) for model, vector in data.get("zh_minus_en", {}).items()}


def shift_for(model_name: str) -> np.ndarray | None:
    """The model's Chinese-minus-English query offset, or None (no shift configured for it)."""
    setting = app_settings.CROSS_LINGUAL_SHIFT
    if not setting:
        return None
    return _load(str(BUNDLED_SHIFT if setting is True else setting)).get(model_name)


def _unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    return vector / (float(np.linalg.norm(vector)) or 1.0)


def query_vectors(query_vector, query_language: str, languages: Iterable[str], model_name: str,
                  glosses: dict[str, object] | None = None) -> dict[str, object]:
    """The vector to compare with chunks of each language: ``""`` the query's own; a chunk language other than
    the query's gets the shifted vector when the model has a shift, plus ``CROSS_LINGUAL_GLOSS_WEIGHT`` times
    the embedding of the question's dictionary words in that language when ``glosses`` holds one."""
    vectors: dict[str, object] = {"": query_vector}
    shift = shift_for(model_name) if query_vector is not None else None
    weight = app_settings.CROSS_LINGUAL_GLOSS_WEIGHT
    for language in languages:
        if query_vector is None or language == query_language or {language, query_language} != set(LANGUAGES):
            vectors[language] = query_vector
            continue
        moved = query_vector if shift is None else \
            _unit(np.asarray(query_vector, dtype=np.float32) + (shift if language == "zh" else -shift))
        gloss = (glosses or {}).get(language)
        if gloss is not None and weight:
            moved = _unit(np.asarray(moved, dtype=np.float32) + weight * np.asarray(gloss, dtype=np.float32))
        vectors[language] = moved
    return vectors


def needs_gloss(query_language: str, languages: Iterable[str]) -> list[str]:
    """The chunk languages a query of ``query_language`` is compared with through its dictionary words."""
    if not app_settings.CROSS_LINGUAL_GLOSS_WEIGHT or query_language not in LANGUAGES:
        return []
    return [language for language in languages if language in LANGUAGES and language != query_language]


def other_language_vector(query_vector, query_language: str, model_name: str):
    """The query's vector moved into the other language (Chinese <-> English), or None (no shift for the model,
    a query in neither language). Memory recall compares each memory with both and keeps the closer: a user's
    memories are in either language, and a memory is closer to the query of its own language."""
    if query_vector is None or query_language not in LANGUAGES:
        return None
    other = "en" if query_language == "zh" else "zh"
    moved = query_vectors(query_vector, query_language, (other,), model_name)[other]
    return None if moved is query_vector else moved

"""Cross-lingual search: the query's vector moved into the language of the chunks it is compared with.

A multilingual embedder places every text of one language around a common offset: an English question and
the Chinese paragraph that answers it meet at a cosine (0.72-0.76 with the bundled embedder) where unrelated
Chinese text meets a Chinese question, so the right paragraph drowns among near-misses. Adding the
difference between the mean Chinese and the mean English query vector (measured on parallel questions, the
same question in both languages) to an English query's vector before comparing it with Chinese chunks
removes most of that offset ("language-neutral" centring, Libovický et al., 2020): on English questions
over the cmrc2018 paragraphs, R@5 of the vector channel rose from 0.742 to 0.833 on a set nothing was fitted
on (docs/retrieval.md). Chinese queries over English chunks take the opposite difference.

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


def query_vectors(query_vector, query_language: str, languages: Iterable[str], model_name: str) -> dict[str, object]:
    """The vector to compare with chunks of each language: ``""`` the query's own; a chunk language other than
    the query's gets the shifted vector when the model has a shift."""
    vectors: dict[str, object] = {"": query_vector}
    shift = shift_for(model_name) if query_vector is not None else None
    for language in languages:
        if shift is None or language == query_language or {language, query_language} != set(LANGUAGES):
            vectors[language] = query_vector
        else:
            moved = np.asarray(query_vector, dtype=np.float32) + (shift if language == "zh" else -shift)
            vectors[language] = moved / (float(np.linalg.norm(moved)) or 1.0)
    return vectors


def other_language_vector(query_vector, query_language: str, model_name: str):
    """The query's vector moved into the other language (Chinese <-> English), or None (no shift for the model,
    a query in neither language). Memory recall compares each memory with both and keeps the closer: a user's
    memories are in either language, and a memory is closer to the query of its own language."""
    if query_vector is None or query_language not in LANGUAGES:
        return None
    other = "en" if query_language == "zh" else "zh"
    moved = query_vectors(query_vector, query_language, (other,), model_name)[other]
    return None if moved is query_vector else moved

"""Background passages: what a hit in a small base is measured among.

The floor judges a hit by its standing among the query's vector candidates of its language (relevance.py):
its margin over their median, z-score, lead over the next one. A base of three chunks, or the one English
chunk of a Chinese base, has no such population: the best of two unrelated chunks leads the other by chance,
and "What's a good name for a puppy?" reached the context from a two-chunk account-security policy, while the
one English return policy of a mixed base had no standing at all and was left out.

So a language with fewer than ``BACKGROUND_SIZE`` candidates is measured among its chunks plus as many of the
bundled background passages (``agentmemory/data/background.json``: 24 short texts per language on subjects
no base is about: a river, a recipe, a library's hours) as make up the difference. A question a chunk
answers meets it well above them; an off-topic question meets the chunk among them. The relevance model is
trained on the same padded standing (``agentmemory_train_relevance`` searches subsets of 1 to 35 documents).

The passages are embedded by the configured embedder at first need (once per process and model); an embedder
that fails leaves the standing as the base gives it.
"""
from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import numpy as np

from ..exceptions import EmbeddingError

BACKGROUND_PATH = Path(__file__).resolve().parent.parent / "data" / "background.json"
#: A language with fewer vector candidates than this is padded with background passages up to it.
BACKGROUND_SIZE = 24
logger = logging.getLogger("agentmemory.knowledge")
_vectors: dict[tuple[str, str], np.ndarray | None] = {}
_lock = threading.Lock()


def _passages() -> dict[str, list[str]]:
    data = json.loads(BACKGROUND_PATH.read_text(encoding="utf-8"))
    return {language: list(data[language]) for language in ("zh", "en")}


def _embedded(language: str, model_name: str) -> np.ndarray | None:
    """The background passages of ``language`` as unit vectors of the configured embedder (None: it failed, or
    it is not the model the query was embedded with)."""
    key = (language, model_name)
    if key in _vectors:
        return _vectors[key]
    with _lock:
        if key not in _vectors:
            from ..backends import get_embedder

            vectors = None
            try:
                embedder = get_embedder()
                if getattr(embedder, "model_name", model_name) == model_name:
                    raw = np.asarray(embedder.embed_passages(_passages()[language]), dtype=np.float32)
                    vectors = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
            except EmbeddingError as exc:  # the standing stays the base's own; try again on a later search
                logger.warning("background passages not embedded (%s): a small base's standing is its own", exc)
                return None
            _vectors[key] = vectors
    return _vectors[key]


def background_cosines(language: str, query_vector, model_name: str, candidates: int) -> list[float]:
    """The query's cosines with as many background passages of ``language`` as bring ``candidates`` up to
    ``BACKGROUND_SIZE`` (a chunk language neither Chinese nor English is measured among English ones)."""
    missing = BACKGROUND_SIZE - candidates
    if missing <= 0 or query_vector is None:
        return []
    vectors = _embedded(language if language == "zh" else "en", model_name)
    if vectors is None:
        return []
    query = np.asarray(query_vector, dtype=np.float32)
    query = query / (float(np.linalg.norm(query)) or 1.0)
    return [float(v) for v in vectors[:missing] @ query]

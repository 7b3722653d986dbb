"""Base interface of rerankers: one relevance score per passage, aligned with the input order."""
from __future__ import annotations

from collections.abc import Sequence


class Reranker:
    """Scores passages against a query; higher is more relevant.

    Subclasses implement ``_score(query, passages)``. Any failure raises ``BackendError`` (the
    search falls back to the fused order and says so in its trace).
    """

    #: Name shown in search traces.
    name: str = ""

    def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, in the order given."""
        from ...exceptions import BackendError

        passages = list(passages)
        if not passages:
            return []
        try:
            scores = [float(s) for s in self._score(query, passages)]
        except BackendError:
            raise
        except Exception as exc:  # any backend failure becomes the one error type callers handle
            raise BackendError(f"{type(self).__name__} failed: {exc}") from exc
        if len(scores) != len(passages):
            raise BackendError(f"{type(self).__name__} returned {len(scores)} scores for {len(passages)} passages")
        return scores

    def _score(self, query: str, passages: list[str]) -> list[float]:  # pragma: no cover - abstract
        raise NotImplementedError

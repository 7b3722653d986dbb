"""Shared field definitions. The vector dimension is fixed here and in the migrations."""
from __future__ import annotations

import functools

from django.db.models import FloatField, Value
from pgvector.django import CosineDistance, VectorField

#: Dimension of every stored embedding. Changing the embedding model to one of another dimension is
#: a deliberate operation: a migration altering these columns, then a re-embed (docs/embeddings.md).
EMBEDDING_DIMENSIONS = 384


def embedding_field(**kwargs) -> VectorField:
    """A nullable vector column of EMBEDDING_DIMENSIONS (null until embedded)."""
    kwargs.setdefault("null", True)
    kwargs.setdefault("blank", True)
    kwargs.setdefault("editable", False)
    return VectorField(dimensions=EMBEDDING_DIMENSIONS, **kwargs)


def vector_literal(vector) -> str:
    """A vector as pgvector text (``'[0.1,0.2,...]'``) for raw SQL: 9 significant digits, so that every
    float32 reads back exactly (stored vectors are written this way)."""
    values = vector.tolist() if hasattr(vector, "tolist") else [float(x) for x in vector]
    # One %-format for the whole vector: a quarter of the time of formatting each value (an import
    # writes every chunk's vector this way).
    return _vector_format(len(values)) % tuple(values)


@functools.lru_cache(maxsize=8)
def _vector_format(dimensions: int) -> str:
    return "[" + ",".join(["%.9g"] * dimensions) + "]"


def exact_cosine_distance(field: str, vector) -> CosineDistance:
    """The cosine distance of ``field`` to ``vector``, ordered by exactly: "+ 0" keeps the planner off the HNSW
    index, whose approximate walk through every user's vectors can return none of a filtered scope's rows (one
    user's episodes) once the table is large. For a scope of one user's rows, an exact scan is the right plan."""
    return CosineDistance(field, vector) + Value(0.0, output_field=FloatField())

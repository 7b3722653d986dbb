"""Shared field definitions. The vector dimension is fixed here and in the migrations."""
from __future__ import annotations

from pgvector.django import VectorField

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
    return "[" + ",".join(f"{float(x):.9g}" for x in vector) + "]"

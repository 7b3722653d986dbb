"""The last stage of a knowledge search: the chunks' rows (one query) and the cited, explained hits."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..types import SearchHit
from .trace import SearchTrace


@dataclass(frozen=True)
class ChunkRow:
    """What a search result shows of a chunk, its document, version and knowledge base (one query)."""

    id: int
    document_id: int
    version_id: int
    position: int
    heading_path: str
    text: str
    document_title: str
    document_external_id: str
    version_number: int
    knowledge_base_slug: str
    duplicate_of: int | None = None  # the first copy of this text in another document (duplicates.py)
    policy: str = "keep"  # the base's duplicate policy


def hydrate(ids: list[int]) -> dict[int, ChunkRow]:
    """The rows of these chunks that are still active (a hit is never a deprecated version)."""
    if not ids:
        return {}
    from ..models import Chunk

    rows = Chunk.objects.filter(pk__in=ids, status=Chunk.Status.ACTIVE).values_list(
        "id", "document_id", "version_id", "position", "heading_path", "text", "document__title",
        "document__external_id", "version__number", "knowledge_base__slug", "duplicate_of_id",
        "knowledge_base__duplicate_policy")
    return {row[0]: ChunkRow(*row) for row in rows}


def passage(chunk: ChunkRow) -> str:
    """The text a reranker reads: the heading path, then the chunk."""
    return f"{chunk.heading_path}\n{chunk.text}" if chunk.heading_path else chunk.text


def citation(title: str, number: int, heading_path: str, position: int) -> str:
    where = f" › {heading_path}" if heading_path else ""
    return f"《{title}》 v{number}{where} #{position + 1}"


def cite_hits(head: list[int], chunks: dict[int, ChunkRow], rerank_scores: dict[int, float],
              trace: SearchTrace, copies: dict[int, list[int]] | None = None) -> list[SearchHit]:
    """The top_k hits of ``head``, each cited, scored on the scale the search ended with, and explained;
    ``copies``: per hit, the chunks repeating its text that it stands for (duplicates.collapse_copies)."""
    effective = trace.effective_mode
    hits: list[SearchHit] = []
    for cid in head[:trace.plan.top_k]:
        chunk = chunks[cid]
        info = trace.evidence.get(cid, {})
        if cid in rerank_scores:
            info["rerank"] = {"score": round(rerank_scores[cid], 6)}
            score, kind = rerank_scores[cid], "rerank"
        elif effective == "keyword":
            score, kind = info["keyword"]["score"], "bm25"
        elif effective == "vector":
            score, kind = info["vector"]["score"], "cosine"
        else:
            score, kind = trace.fused[cid]["rrf"], "rrf"
        hits.append(SearchHit(
            chunk_id=cid, document_id=chunk.document_id, document_external_id=chunk.document_external_id,
            document_title=chunk.document_title, knowledge_base=chunk.knowledge_base_slug,
            version=chunk.version_number, version_id=chunk.version_id, position=chunk.position,
            heading_path=chunk.heading_path, text=chunk.text,
            citation=citation(chunk.document_title, chunk.version_number, chunk.heading_path, chunk.position),
            score=round(float(score), 6), score_kind=kind, channels=info,
            explanation=explain(info, trace.fused.get(cid)),
            duplicates=[_copy(chunks[c]) for c in (copies or {}).get(cid, ())],
        ))
    return hits


def _copy(chunk: ChunkRow) -> dict[str, Any]:
    return {"chunk_id": chunk.id, "document_id": chunk.document_id, "document_title": chunk.document_title,
            "citation": citation(chunk.document_title, chunk.version_number, chunk.heading_path, chunk.position)}


def explain(info: dict[str, Any], fused: dict[str, Any] | None) -> str:
    """One line saying how a hit was found: each channel's rank and score, its RRF score, the reranker's."""
    parts = []
    if "keyword" in info:
        k = info["keyword"]
        parts.append(f"keyword #{k['rank']} (BM25 {k['score']:.3f}: {', '.join(k['matched_terms'][:6])})")
    if "vector" in info:
        v = info["vector"]
        parts.append(f"vector #{v['rank']} (cosine {v['score']:.3f})")
    if "sentence" in info:
        v = info["sentence"]
        parts.append(f"sentence #{v['rank']} (cosine {v['score']:.3f})")
    text = " + ".join(parts)
    if fused is not None and len(info.keys() - {"rerank"}) >= 1:
        text += f" → RRF {fused['rrf']:.5f}"
    if "rerank" in info:
        text += f" → rerank {info['rerank']['score']:.4f}"
    return text

"""The knowledge layer: hybrid knowledge search, gated for the context, as cited chunks."""
from __future__ import annotations

import logging
from typing import Any

from ...conf import app_settings
from ...exceptions import InvalidInput, NotFound
from ...ranking.fusion import scale_to_best
from ...types import ContextItem, LayerResult, SearchHit, SearchResult

logger = logging.getLogger("agentmemory.context")


def _search(query: str, knowledge_bases: list | None, top_k: int) -> tuple[SearchResult, str]:
    from ...knowledge.search import search_knowledge

    try:
        return search_knowledge(query, knowledge_bases=knowledge_bases, top_k=top_k), ""
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # e.g. a misconfigured embedder: keyword search needs none of it
        logger.warning("hybrid knowledge search failed, retrying keyword-only: %s", exc)
        fallback = f"hybrid search failed ({type(exc).__name__}: {str(exc)[:200]}); keyword channel only"
        return search_knowledge(query, knowledge_bases=knowledge_bases, top_k=top_k, mode="keyword"), fallback


def vector_only_gate(hits: list[SearchHit]) -> tuple[list[SearchHit], list[dict[str, Any]]]:
    """The hits a keyword matched, or the vector channel alone found with a high cosine; and the others.

    The search has no thresholds by default and its vector channel always has neighbours, so the
    context gates hits itself (multilingual-e5 puts unrelated texts around 0.75-0.85).
    """
    min_cosine = app_settings.CONTEXT_VECTOR_ONLY_MIN_COSINE
    kept, dropped = [], []
    for hit in hits:
        cosine = (hit.channels.get("vector") or {}).get("score")
        if "keyword" in hit.channels or (cosine is not None and cosine >= min_cosine):
            kept.append(hit)
        else:
            dropped.append({"key": f"chunk:{hit.chunk_id}", "layer": "knowledge", "kind": "chunk",
                            "reason": "threshold",
                            "detail": f"vector channel only, cosine {cosine} < {min_cosine} (no keyword matched)"})
    return kept, dropped


def _chunk_item(hit: SearchHit, relevance: float) -> ContextItem:
    return ContextItem(
        layer="knowledge", kind="chunk", key=f"chunk:{hit.chunk_id}",
        text=strip_headings(hit.text or "", hit.heading_path), source=hit.citation, relevance=relevance, decay=1.0,
        ref={"chunk_id": hit.chunk_id, "document_id": hit.document_id, "document_title": hit.document_title,
             "version": hit.version, "heading_path": hit.heading_path, "citation": hit.citation,
             "raw": {"score": round(float(hit.score or 0.0), 6), "channels": hit.channels}},
    )


def gather_knowledge(query: str, *, knowledge_bases: list | None, top_k: int = 6) -> LayerResult:
    """Hybrid knowledge search (degrades to keyword-only inside search_knowledge when embedding fails)."""
    result, fallback = _search(query, knowledge_bases, top_k)
    trace = result.trace
    if fallback:
        trace = {**trace, "degraded": [*(trace.get("degraded") or []), fallback]}
    hits, dropped = vector_only_gate(result.hits)
    # What the relevance floor kept out of the hits that would have been shown, with its reason.
    for removed in ((trace.get("floor") or {}).get("removed_hits") or [])[:top_k]:
        dropped.append({"key": f"chunk:{removed['chunk_id']}", "layer": "knowledge", "kind": "chunk",
                        "reason": "floor", "detail": removed.get("reason", "")})
    relevances = scale_to_best([float(h.score or 0.0) for h in hits])
    items = [_chunk_item(hit, rel) for hit, rel in zip(hits, relevances, strict=True)]
    degraded = bool(trace.get("degraded", False))
    detail: dict[str, Any] = {"search": trace}
    if dropped:
        detail["dropped"] = dropped
    if degraded:
        detail["degraded"] = trace.get("degraded")
    return LayerResult(layer="knowledge", items=items, status="degraded" if degraded else "ok", detail=detail)


def strip_headings(text: str, heading_path: str) -> str:
    """A chunk's text without its leading Markdown headings when the citation already names them."""
    lines = text.strip().splitlines()
    while lines and (not lines[0].strip() or (
            lines[0].lstrip().startswith("#") and lines[0].lstrip("# ").strip() in (heading_path or ""))):
        lines.pop(0)
    return "\n".join(lines).strip() or text.strip()

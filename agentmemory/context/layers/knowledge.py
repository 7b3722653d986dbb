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

    # A configured query rewriter serves the context as it serves search (its rewrite is in the trace).
    rewrite = bool(app_settings.QUERY_REWRITER) and app_settings.CONTEXT_QUERY_REWRITE
    try:
        return search_knowledge(query, knowledge_bases=knowledge_bases, top_k=top_k, rewrite=rewrite), ""
    except (InvalidInput, NotFound):
        raise
    except Exception as exc:  # e.g. a misconfigured embedder: keyword search needs none of it
        logger.warning("hybrid knowledge search failed, retrying keyword-only: %s", exc)
        fallback = f"hybrid search failed ({type(exc).__name__}: {str(exc)[:200]}); keyword channel only"
        return search_knowledge(query, knowledge_bases=knowledge_bases, top_k=top_k, mode="keyword"), fallback


def prompt_gate(hits: list[SearchHit]) -> tuple[list[SearchHit], list[dict[str, Any]]]:
    """The hits that may reach a prompt, and the others with their reason.

    A prompt pays for every wrong chunk, so the context asks more than the search's floor (which keeps recall).
    A hit the relevance model let through alone (the floor's rules did not pass it), and every cross-lingual
    hit, needs the model's context threshold for its case (knowledge/relevance.py); a same-language hit the
    rules passed needs a keyword of its own or ``CONTEXT_VECTOR_ONLY_MIN_COSINE`` (multilingual-e5 puts
    unrelated texts around 0.75-0.85). ``CONTEXT_KNOWLEDGE_MIN_RELEVANCE`` sets either threshold.
    """
    from ...knowledge.relevance import bundled_model

    min_cosine = app_settings.CONTEXT_VECTOR_ONLY_MIN_COSINE
    model = bundled_model()
    chosen = app_settings.CONTEXT_KNOWLEDGE_MIN_RELEVANCE or {}
    shared = shared_terms(hits)
    documents_seen: set[int] = set()
    kept, dropped = [], []
    for hit in hits:
        first_of_document = hit.document_id not in documents_seen
        documents_seen.add(hit.document_id)
        floor = hit.channels.get("floor") or {}
        # the model's judgement on the question's own words when the dictionary's matched too (knowledge/floor.py)
        probability = floor.get("context_probability", floor.get("probability"))
        cross = bool(floor.get("cross_lingual"))
        needed = chosen.get("cross" if cross else "same")
        if needed is None and model is not None and (cross or floor.get("by") == "model"):
            # Cross-lingual, or let through by the model alone (the rules did not pass it): the model's
            # context threshold, stricter than the search's.
            needed = model.scorer(cross).context_threshold
        if probability is not None and needed is not None:
            if probability >= float(needed):
                kept.append(hit)
            else:
                dropped.append({"key": f"chunk:{hit.chunk_id}", "layer": "knowledge", "kind": "chunk",
                                "reason": "threshold",
                                "detail": f"relevance {probability} < {float(needed):.3f} for the context "
                                          f"({'cross-lingual' if cross else 'same language'})"})
            continue
        # the chunk's own cosine: the vector channel's, or the floor's for a hit only the sentence channel found
        cosine = (hit.channels.get("vector") or {}).get("score")
        if cosine is None:
            cosine = (hit.channels.get("floor") or {}).get("cosine")
        matched = set((hit.channels.get("keyword") or {}).get("matched_terms") or [])
        # The terms all of a document's found chunks share speak for the document: its best chunk keeps them,
        # the others need words of their own.
        own = matched if first_of_document else matched - shared.get(hit.document_id, set())
        if own or (cosine is not None and cosine >= min_cosine):
            kept.append(hit)
        else:
            why = (f"its keywords ({', '.join(sorted(matched))}) are in every found chunk of its document, "
                   f"whose best chunk ranks higher" if matched else "vector channel only")
            dropped.append({"key": f"chunk:{hit.chunk_id}", "layer": "knowledge", "kind": "chunk",
                            "reason": "threshold",
                            "detail": f"{why}, cosine {cosine} < {min_cosine} (no keyword of its own matched)"})
    return kept, dropped


def shared_terms(hits: list[SearchHit]) -> dict[int, set[str]]:
    """Per document with several hits, the query terms every one of them matched (a title or a product code
    in the heading path): evidence for the document, not for any one of its chunks."""
    by_document: dict[int, list[set[str]]] = {}
    for hit in hits:
        terms = set((hit.channels.get("keyword") or {}).get("matched_terms") or [])
        by_document.setdefault(hit.document_id, []).append(terms)
    return {doc: set.intersection(*groups) for doc, groups in by_document.items() if len(groups) > 1}


def answering_few(hits: list[SearchHit]) -> tuple[list[SearchHit], list[dict[str, Any]]]:
    """The few chunks that answer: at most ``CONTEXT_KNOWLEDGE_MAX_ITEMS``, each within
    ``CONTEXT_KNOWLEDGE_RELATIVE_CUT`` of the cosine of its document's best chunk (the chunks of one manual all
    match its title and product code; only the one about the question stands out by meaning; another
    document is judged on its own). The others with their reason."""
    limit, cut = app_settings.CONTEXT_KNOWLEDGE_MAX_ITEMS, app_settings.CONTEXT_KNOWLEDGE_RELATIVE_CUT
    cosines = [(hit.channels.get("floor") or {}).get("cosine") for hit in hits]
    best: dict[int, float] = {}
    for hit, cosine in zip(hits, cosines, strict=True):
        if cosine is not None:
            best[hit.document_id] = max(best.get(hit.document_id, cosine), cosine)
    kept, dropped = [], []
    for hit, cosine in zip(hits, cosines, strict=True):
        top = best.get(hit.document_id)
        reason = ""
        if len(kept) >= limit:
            reason = f"beyond the {limit} best knowledge items (CONTEXT_KNOWLEDGE_MAX_ITEMS)"
        elif cut is not None and top is not None and cosine is not None and cosine < top - cut:
            reason = (f"cosine {cosine:.3f} more than {cut} under its document's best chunk ({top:.3f}; "
                      f"relative cut)")
        if reason:
            dropped.append({"key": f"chunk:{hit.chunk_id}", "layer": "knowledge", "kind": "chunk",
                            "reason": "relative_cut", "detail": reason})
        else:
            kept.append(hit)
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
    hits, dropped = prompt_gate(result.hits)
    hits, cut = answering_few(hits)
    dropped.extend(cut)
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

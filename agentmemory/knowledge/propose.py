"""Evaluation cases proposed from a document's own content, offline, for an operator to accept.

A publish gate is only as good as the base's saved questions; writing dozens by hand is what keeps
bases without one. For a published version this proposes up to PROPOSED_CHECKS_PER_DOCUMENT cases, each
expecting the chunk it was read from:

- a **heading** (the last heading of a chunk's path, the first chunk under it), as a reader would search
  for a section ("退货政策", "Warranty");
- a **key sentence** of a chunk not yet covered: the one holding a number or the most words, 8-120
  characters, as a reader would quote what they look for.

Headings first, then sentences, spread over the document's chunks. Proposals are EvaluationCase rows with
``accepted=False`` (source ``proposed``): evaluations and the gate ignore them until an operator accepts
them (admin action, REST ``evaluation-cases/{id}/accept/``) or deletes them.
"""
from __future__ import annotations

import re

from ..conf import app_settings
from ..models import Chunk, DocumentVersion, EvaluationCase
from ..text.sentences import split_sentences

_DIGIT_RE = re.compile(r"\d")
_WORD_RE = re.compile(r"[A-Za-z]+|[\u4e00-\u9fff]")


def _sentences(text: str) -> list[str]:
    """The chunk's sentences (text.split_sentences) of a quotable length, list and heading marks left out."""
    parts = (text[start:end].strip().strip("-*#>•·|").strip() for start, end in split_sentences(text))
    return [part for part in parts if 8 <= len(part) <= 120]


def _key_sentence(text: str) -> str | None:
    candidates = _sentences(text)
    if not candidates:
        return None
    return max(candidates, key=lambda s: (bool(_DIGIT_RE.search(s)), len(_WORD_RE.findall(s))))


def proposals_for(version: DocumentVersion, limit: int) -> list[tuple[str, int, str]]:
    """(query, chunk id, kind) for up to ``limit`` cases read from ``version``'s chunks."""
    chunks = list(Chunk.objects.filter(version=version).order_by("position").values_list("pk", "heading_path", "text"))
    out: list[tuple[str, int, str]] = []
    seen_headings: set[str] = set()
    covered: set[int] = set()
    title = version.document.title.strip()
    for pk, path, _text in chunks:
        heading = path.split(" > ")[-1].strip() if path else ""
        if len(heading) >= 2 and heading not in seen_headings and heading != title:
            seen_headings.add(heading)
            out.append((heading, pk, "heading"))
            covered.add(pk)
    for pk, _path, text in chunks:
        if pk in covered:
            continue
        sentence = _key_sentence(text)
        if sentence:
            out.append((sentence, pk, "sentence"))
            covered.add(pk)
    # Spread over the document: take evenly from the ordered proposals.
    if len(out) > limit > 0:
        step = len(out) / limit
        out = [out[int(i * step)] for i in range(limit)]
    return out[:limit]


def propose_cases(version: DocumentVersion, *, limit: int | None = None) -> list[EvaluationCase]:
    """Save the proposals for a published ``version`` (skipping questions its base already has)."""
    limit = app_settings.PROPOSED_CHECKS_PER_DOCUMENT if limit is None else limit
    version = DocumentVersion.objects.select_related("document").defer("source_text", "structure").get(pk=version.pk)
    kb_id = version.document.knowledge_base_id
    existing = set(EvaluationCase.objects.filter(knowledge_base_id=kb_id).values_list("query", flat=True))
    rows = []
    for query, chunk_id, kind in proposals_for(version, limit):
        if query in existing:
            continue
        existing.add(query)
        rows.append(EvaluationCase(
            knowledge_base_id=kb_id, query=query, expected_chunk_ids=[chunk_id], source=EvaluationCase.Source.PROPOSED,
            accepted=False, note=f"proposed from 《{version.document.title}》 v{version.number} ({kind})"[:500]))
    return EvaluationCase.objects.bulk_create(rows)


def propose_for_documents(knowledge_base, document_ids: list[int] | None = None) -> list[EvaluationCase]:
    """Proposals from the active versions of a base's documents (all, or ``document_ids``)."""
    versions = DocumentVersion.objects.filter(document__knowledge_base=knowledge_base,
                                              status=DocumentVersion.Status.ACTIVE).defer("source_text", "structure")
    if document_ids is not None:
        versions = versions.filter(document_id__in=document_ids)
    out: list[EvaluationCase] = []
    for version in versions.order_by("document_id"):
        out.extend(propose_cases(version))
    return out


def accept_cases(knowledge_base, case_ids: list[int]) -> int:
    """Accept proposed cases: they count in evaluations and the publish gate from now on. A case that names
    nothing to find (feedback's rejected chunk alone) is not accepted until an operator names what answers it."""
    return (EvaluationCase.objects.for_knowledge_base(knowledge_base).filter(pk__in=case_ids).proposed()
            .exclude(expected_chunk_ids=[], expected_document_ids=[]).update(accepted=True))

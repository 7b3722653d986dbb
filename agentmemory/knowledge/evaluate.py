"""Evaluation of a knowledge base: saved or JSONL cases, recall@1/5/10, MRR@10, nDCG@10 per mode, stored runs.

Every case is searched through ``search_knowledge`` (the production path) in keyword, vector and
hybrid mode. Hits are compared at the unit the case names: documents (several chunks of one
document count once) or chunks (a chunk of a later version with the same content counts too).
A run whose hybrid recall@5 falls below the previous successful run's is flagged on the knowledge
base (admin) so that a bad import or a configuration change is noticed.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..conf import app_settings
from ..exceptions import InvalidInput
from .search import MODES, config_snapshot, search_knowledge

KS = (1, 5, 10)
EVAL_DEPTH = 30  # chunks fetched per query, so that ten distinct documents usually remain


@dataclass
class Case:
    """One evaluation query with what should be found (document ids and/or chunk keys)."""

    query: str
    document_ids: set[int] = field(default_factory=set)
    chunk_keys: set[tuple[int, str]] = field(default_factory=set)  # (document id, content hash)
    chunk_ids: set[int] = field(default_factory=set)
    case_id: int | None = None


# --- metrics (pure) ---------------------------------------------------------------------------


def metrics_for(ranked: list[Any], relevant: set[Any]) -> dict[str, float]:
    """recall@1/5/10, MRR@10 and nDCG@10 (binary gains) of one ranked list of distinct units."""
    out: dict[str, float] = {}
    if not relevant:
        return {f"recall@{k}": 0.0 for k in KS} | {"mrr@10": 0.0, "ndcg@10": 0.0}
    for k in KS:
        out[f"recall@{k}"] = len(relevant.intersection(ranked[:k])) / len(relevant)
    rr = 0.0
    for i, unit in enumerate(ranked[:10], start=1):
        if unit in relevant:
            rr = 1.0 / i
            break
    out["mrr@10"] = rr
    dcg = sum(1.0 / math.log2(i + 1) for i, unit in enumerate(ranked[:10], start=1) if unit in relevant)
    idcg = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), 10) + 1))
    out["ndcg@10"] = dcg / idcg if idcg else 0.0
    return out


def average(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {key: round(sum(r[key] for r in rows) / len(rows), 4) for key in rows[0]}


# --- cases ------------------------------------------------------------------------------------


def _chunk_keys(chunk_ids: Iterable[int]) -> dict[int, tuple[int, str]]:
    from ..models import Chunk

    ids = list({int(i) for i in chunk_ids})
    if not ids:
        return {}
    return {pk: (doc, digest) for pk, doc, digest in
            Chunk.objects.filter(pk__in=ids).values_list("pk", "document_id", "content_hash")}


def cases_from_saved(knowledge_base) -> list[Case]:
    """The knowledge base's saved EvaluationCase rows as Cases (proposals only once accepted)."""
    from ..models import EvaluationCase

    rows = list(EvaluationCase.objects.for_knowledge_base(knowledge_base).accepted().order_by("id"))
    keys = _chunk_keys(i for r in rows for i in (r.expected_chunk_ids or []))
    cases = []
    for row in rows:
        chunk_ids = {int(i) for i in row.expected_chunk_ids or []}
        cases.append(Case(query=row.query, document_ids={int(i) for i in row.expected_document_ids or []},
                          chunk_ids=chunk_ids, chunk_keys={keys[i] for i in chunk_ids if i in keys},
                          case_id=row.pk))
    return cases


def load_cases_file(knowledge_base, path: str | Path) -> list[Case]:
    """Cases from a JSONL file, one object a line.

    Keys: ``query`` (or ``text``), and any of ``expected_document_ids`` (document ids),
    ``expected_external_ids`` or ``relevant`` (documents' external ids, the bench format), and
    ``expected_chunk_ids``. Lines with unknown documents are errors; blank lines are skipped.
    """
    from ..models import Document

    raw: list[tuple[int, dict]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise InvalidInput(f"{path}:{lineno}: not JSON ({exc})") from exc
            if not isinstance(obj, dict) or not str(obj.get("query") or obj.get("text") or "").strip():
                raise InvalidInput(f"{path}:{lineno}: each line needs a non-empty \"query\"")
            raw.append((lineno, obj))
    external = {str(e) for _, o in raw for e in (o.get("expected_external_ids") or o.get("relevant") or [])}
    doc_ids = dict(Document.objects.filter(knowledge_base=knowledge_base, external_id__in=external)
                   .values_list("external_id", "pk"))
    keys = _chunk_keys(i for _, o in raw for i in (o.get("expected_chunk_ids") or []))
    cases = []
    for lineno, obj in raw:
        ext = [str(e) for e in (obj.get("expected_external_ids") or obj.get("relevant") or [])]
        missing = [e for e in ext if e not in doc_ids]
        if missing:
            raise InvalidInput(f"{path}:{lineno}: no document with external id {', '.join(missing[:3])} "
                               f"in {knowledge_base.slug}")
        chunk_ids = {int(i) for i in obj.get("expected_chunk_ids") or []}
        case = Case(query=str(obj.get("query") or obj.get("text")).strip(),
                    document_ids={doc_ids[e] for e in ext} | {int(i) for i in obj.get("expected_document_ids") or []},
                    chunk_ids=chunk_ids, chunk_keys={keys[i] for i in chunk_ids if i in keys})
        if not case.document_ids and not case.chunk_ids:
            raise InvalidInput(f"{path}:{lineno}: no expected documents or chunks")
        cases.append(case)
    return cases


def save_cases(knowledge_base, cases: list[Case], *, source: str = "file") -> int:
    """Store cases as EvaluationCase rows (skipping queries the knowledge base already has)."""
    from ..models import EvaluationCase

    existing = set(EvaluationCase.objects.for_knowledge_base(knowledge_base).values_list("query", flat=True))
    rows = [EvaluationCase(knowledge_base=knowledge_base, query=c.query, source=source,
                           expected_document_ids=sorted(c.document_ids), expected_chunk_ids=sorted(c.chunk_ids))
            for c in cases if c.query not in existing]
    EvaluationCase.objects.bulk_create(rows)
    return len(rows)


def _expected_ids(knowledge_base, chunk_ids, document_ids) -> tuple[list[int], list[int]]:
    """The expected ids, validated: at least one, each in ``knowledge_base`` (InvalidInput otherwise)."""
    from ..models import Chunk, Document

    try:
        chunk_ids = sorted({int(i) for i in chunk_ids or []})
        doc_ids = sorted({int(i) for i in document_ids or []})
    except (TypeError, ValueError):
        raise InvalidInput("expected ids must be integers", field="expected_chunk_ids") from None
    if not chunk_ids and not doc_ids:
        raise InvalidInput("choose at least one expected chunk or document", field="expected_chunk_ids")
    if Chunk.objects.filter(pk__in=chunk_ids, knowledge_base=knowledge_base).count() != len(chunk_ids):
        raise InvalidInput("an expected chunk is not in this knowledge base", field="expected_chunk_ids")
    if Document.objects.filter(pk__in=doc_ids, knowledge_base=knowledge_base).count() != len(doc_ids):
        raise InvalidInput("an expected document is not in this knowledge base", field="expected_document_ids")
    return chunk_ids, doc_ids


def create_case(*, knowledge_base, query: str, expected_chunk_ids: list[int] | None = None,
                expected_document_ids: list[int] | None = None, source: str = "admin", note: str = ""):
    """Save one evaluation case (from the hit-testing page); the expected ids must belong to the base."""
    from ..models import EvaluationCase

    query = (query or "").strip()
    if not query:
        raise InvalidInput("query must not be empty", field="query")
    chunk_ids, doc_ids = _expected_ids(knowledge_base, expected_chunk_ids, expected_document_ids)
    return EvaluationCase.objects.create(knowledge_base=knowledge_base, query=query, source=source, note=note[:500],
                                         expected_chunk_ids=chunk_ids, expected_document_ids=doc_ids)


def set_expected(case, *, chunk_ids, document_ids) -> None:
    """Name what answers a saved case (a feedback case has only the chunk that should not have)."""
    case.expected_chunk_ids, case.expected_document_ids = _expected_ids(case.knowledge_base, chunk_ids, document_ids)
    case.save(update_fields=["expected_chunk_ids", "expected_document_ids"])


# --- running ----------------------------------------------------------------------------------


def _ranked_units(case: Case, hits, keys: dict[int, tuple[int, str]]) -> tuple[list[Any], set[Any]]:
    """Distinct units in rank order, and the relevant set, at the unit the case names."""
    if case.document_ids and not case.chunk_ids:
        return list(dict.fromkeys(h.document_id for h in hits)), set(case.document_ids)
    # chunk-level (chunks may be matched by id or by content across versions), plus any documents
    relevant: set[Any] = {("c", k) for k in case.chunk_keys} | {("d", d) for d in case.document_ids}
    ranked: list[Any] = []
    for h in hits:
        key = keys.get(h.chunk_id)
        unit = ("c", key) if key in case.chunk_keys else ("d", h.document_id) if h.document_id in case.document_ids \
            else ("x", h.chunk_id)
        ranked.append(unit)
    return list(dict.fromkeys(ranked)), relevant


def run_cases(
    knowledge_base,
    cases: list[Case],
    *,
    modes: Iterable[str] = ("keyword", "vector", "hybrid"),
    rerank: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Search every case in every mode; return {mode: averaged metrics} plus the hybrid misses."""
    modes = [m for m in modes if m in MODES]
    per_mode: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    misses: list[dict[str, Any]] = []
    for index, case in enumerate(cases, start=1):
        for mode in modes:
            result = search_knowledge(case.query, knowledge_bases=[knowledge_base.slug], top_k=EVAL_DEPTH,
                                      mode=mode, rerank=rerank)
            keys = _chunk_keys(h.chunk_id for h in result.hits) if case.chunk_ids else {}
            ranked, relevant = _ranked_units(case, result.hits, keys)
            m = metrics_for(ranked, relevant)
            per_mode[mode].append(m)
            if mode == "hybrid" and m["recall@5"] < 1.0 and len(misses) < 20:
                misses.append({"case_id": case.case_id, "query": case.query[:200],
                               "top": [h.document_title for h in result.hits[:3]]})
        if progress:
            progress(index, len(cases))
    out: dict[str, Any] = {mode: average(rows) for mode, rows in per_mode.items()}
    out["_misses"] = misses
    return out


def evaluate_knowledge_base(
    knowledge_base,
    *,
    cases: list[Case] | None = None,
    trigger: str = "command",
    modes: Iterable[str] = ("keyword", "vector", "hybrid"),
    progress: Callable[[int, int], None] | None = None,
):
    """Evaluate saved cases (or ``cases``) and store an EvaluationRun; flag a hybrid recall@5 drop."""
    from ..models import EvaluationRun, KnowledgeBaseStats

    if cases is None:
        cases = cases_from_saved(knowledge_base)
    modes = list(modes)
    # Cleared first: a publish during this run asks for another one.
    KnowledgeBaseStats.objects.filter(knowledge_base=knowledge_base).update(evaluation_pending=False)
    previous = (EvaluationRun.objects.for_knowledge_base(knowledge_base).finished()
                .filter(hybrid_recall_at_5__isnull=False).order_by("-started_at", "-id").first())
    run = EvaluationRun.objects.create(knowledge_base=knowledge_base, trigger=trigger, case_count=len(cases),
                                       config={**config_snapshot(), "modes": modes,
                                               "embedding_model": knowledge_base.embedding_model})
    try:
        metrics = run_cases(knowledge_base, cases, modes=modes, progress=progress) if cases else {}
    except Exception as exc:
        EvaluationRun.objects.filter(pk=run.pk).update(status=EvaluationRun.Status.FAILED,
                                                       error=f"{type(exc).__name__}: {exc}"[:2000],
                                                       finished_at=timezone.now())
        raise
    recall5 = (metrics.get("hybrid") or {}).get("recall@5")
    run.metrics = metrics
    run.hybrid_recall_at_5 = recall5
    run.previous_recall_at_5 = previous.hybrid_recall_at_5 if previous else None
    tolerance = app_settings.EVAL_RECALL_DROP_TOLERANCE
    run.recall_dropped = bool(recall5 is not None and previous is not None
                              and recall5 < previous.hybrid_recall_at_5 - tolerance)
    run.status = EvaluationRun.Status.SUCCEEDED
    run.finished_at = timezone.now()
    run.save()
    return run


def request_evaluation(knowledge_base_id: int) -> bool:
    """Mark an evaluation as due after a publish; True when the caller should enqueue one.

    Imports publish document by document; only the first publish of a burst enqueues (the flag
    is cleared when the evaluation runs), and nothing is enqueued for a base without saved cases.
    """
    from ..models import EvaluationCase, KnowledgeBaseStats

    if not EvaluationCase.objects.filter(knowledge_base_id=knowledge_base_id).accepted().exists():
        return False
    with transaction.atomic():
        changed = KnowledgeBaseStats.objects.filter(knowledge_base_id=knowledge_base_id,
                                                    evaluation_pending=False).update(evaluation_pending=True)
    return bool(changed)

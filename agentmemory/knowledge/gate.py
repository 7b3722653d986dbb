"""The publish gate: a new document version is verified against the base's questions before it serves.

With ``KnowledgeBase.publish_gate`` on, an import that completes a version (bulk.py) hands it here
instead of publishing it:

1. the base's accepted evaluation cases are searched as the base is now (their ranks before);
2. in one transaction the version is published (publish.publish_versions: chunks switched, keyword
   statistics updated) and the cases, then the off-topic questions (off_topic.py), are searched again
   through the production path: this connection sees the base *as it would be*, every other reader
   still sees the live version;
3. recall@5 over the cases before and after: if it drops by at most the margin, the transaction
   commits (``published``); otherwise it rolls back and the version is ``held`` with its report (the
   cases it breaks: expected chunk, rank before and after, what ranks first now). Its chunks stay
   pending; the live version keeps serving. The off-topic questions a new chunk answers are listed
   as warnings, not reasons: on a base of a few chunks the floor lets many through (measured: 34 of 60
   for a three-section manual), so holding on them would hold nearly every first import.

A case expecting a chunk of the document being replaced also accepts that chunk's successor: the
new version's chunk under the same headings whose words are most alike (Dice >= SUCCESSOR_MIN), so an
edited answer that is still found counts as found, and a removed section breaks its cases. A worker killed during step 2 leaves nothing behind: the transaction
dies with the connection, the version is still pending and the job's redelivery runs the gate again.

Held versions are the review queue (admin, REST): ``publish_held`` and ``discard_version``.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..audit import record_event
from ..conf import app_settings
from ..exceptions import InvalidInput
from ..models import Chunk, DocumentVersion, EvaluationCase, KnowledgeBase
from ..timestamps import iso
from .evaluate import Case, _chunk_keys, _ranked_units, cases_from_saved, metrics_for
from .off_topic import OFF_TOPIC_QUESTIONS
from .publish import PublishResult, publish_version, publish_versions
from .search import search_knowledge

#: Ranks looked at per case (recall@5 decides; the report shows where a broken case went).
DEPTH = 10
#: A new-version chunk under the same headings this like an expected chunk of the replaced version stands for it.
SUCCESSOR_MIN = 0.5
_WORD_RE = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
#: Words a question and an answer share whatever they say (compared: the rest).
_FUNCTION_WORDS = frozenset(
    "的了是在有和与吗呢吧啊么什怎多少几我你他她它们这那个一不也就都而及或被把给对从到为以之于上下中要会能可请问"
    ) | frozenset("a an the is are was were be been to of in on for at by with and or do does did how what when "
                  "where who which why i you it this that my your can will should would could".split())


@dataclass
class GateOutcome:
    """What the gate did with one version: ``published`` or ``held``, and the report it decided by."""

    version: DocumentVersion
    decision: str
    report: dict[str, Any] = field(default_factory=dict)


class _Hold(Exception):
    """Rolls the trial publish back."""


def margin_of(kb: KnowledgeBase) -> float:
    return kb.publish_gate_margin if kb.publish_gate_margin is not None else app_settings.PUBLISH_GATE_MARGIN


def gate_versions(kb: KnowledgeBase, versions: list[DocumentVersion]) -> list[GateOutcome]:
    """Publish or hold ``versions`` (complete, of distinct documents, of base ``kb``).

    Tried together first (one trial for an import batch); when the batch would be held and holds more
    than one version, each is tried alone, so one bad document does not hold the others.
    """
    if not versions:
        return []
    outcomes = _try(kb, versions)
    if outcomes[0].decision == "held" and len(versions) > 1:
        return [_try(kb, [v])[0] for v in versions]
    return outcomes


def _try(kb: KnowledgeBase, versions: list[DocumentVersion]) -> list[GateOutcome]:
    started = time.perf_counter()
    cases = cases_from_saved(kb)
    before = [_judge(kb, case) for case in cases]
    margin = margin_of(kb)
    report: dict[str, Any] = {}
    try:
        with transaction.atomic():
            results = publish_versions(versions, action="publish")
            if any(isinstance(r, InvalidInput) for r in results):
                raise next(r for r in results if isinstance(r, InvalidInput))
            new_chunks = dict(Chunk.objects.filter(version__in=versions).values_list("pk", "version_id"))
            followed = _add_successors(cases, versions)
            after = [_judge(kb, case) for case in cases]
            _still_answers(cases, before, after, versions)
            off_topic = _off_topic(kb, new_chunks)
            report = _report(kb, cases, before, after, off_topic, margin, versions)
            report["ms"] = round((time.perf_counter() - started) * 1000, 1)
            if report["decision"] == "held":
                raise _Hold
            report["cases_followed"] = _follow(followed)
    except _Hold:
        pass
    if report["decision"] == "published":
        _record(versions, report)
        return [GateOutcome(v, "published", report) for v in versions]
    for version in versions:
        version.refresh_from_db(fields=["status", "error", "published_at"])
    return [_hold(version, report) for version in versions]


def _judge(kb: KnowledgeBase, case: Case) -> dict[str, Any]:
    """One case searched through the production path: its recall@5, rank and top hits, and (document cases)
    the words of the question each expected document's best hit in the top 5 holds."""
    result = search_knowledge(case.query, knowledge_bases=[kb], top_k=DEPTH)
    keys = _chunk_keys(h.chunk_id for h in result.hits) if case.chunk_keys or case.chunk_ids else {}
    ranked, relevant = _ranked_units(case, result.hits, keys)
    rank = next((i for i, unit in enumerate(ranked, start=1) if unit in relevant), None)
    asked = set(_words(case.query))
    held: dict[int, set[str]] = {}
    for hit in result.hits[:5]:
        if hit.document_id in case.document_ids and hit.document_id not in held:
            held[hit.document_id] = asked & set(_words(hit.text))
    return {"recall@5": metrics_for(ranked, relevant)["recall@5"], "rank": rank,
            "top": [h.citation for h in result.hits[:3]], "held": held}


def _still_answers(cases: list[Case], before: list[dict], after: list[dict], versions: list[DocumentVersion]) -> None:
    """A document case whose replaced document is still found, but whose found chunk no longer holds the words
    of the question the old one held ("保修" gone from a manual that still ranks first in a base of one), is
    counted as not found: its recall@5 after becomes 0, with the words it lost."""
    replaced = {v.document_id for v in versions}
    for case, b, a in zip(cases, before, after, strict=True):
        for document in case.document_ids & replaced:
            lost = b["held"].get(document, set()) - a["held"].get(document, set())
            if document in a["held"] and lost:
                a["recall@5"], a["rank"] = 0.0, None
                a["lost_words"] = sorted(lost)


def _add_successors(cases: list[Case], versions: list[DocumentVersion]) -> dict[int, dict[int, int]]:
    """Chunk cases of the replaced documents expect, instead of a chunk the new version no longer holds, its
    successor (``successor``); a case whose expected section is gone keeps expecting the old text: broken.

    Returns, per case id, {expected chunk id: successor chunk id}: what the case follows once published.
    """
    documents = {v.document_id: v.pk for v in versions}
    wanted = {pk for case in cases for pk in case.chunk_ids}
    old = {pk: (doc, digest, path, text) for pk, doc, digest, path, text in Chunk.objects.filter(
        pk__in=wanted, document_id__in=documents).values_list("pk", "document_id", "content_hash", "heading_path",
                                                               "text")}
    followed: dict[int, dict[int, int]] = {}
    if not old:
        return followed
    new: dict[int, list[tuple[int, str, str, str]]] = {}
    for pk, doc, digest, path, text in Chunk.objects.filter(version__in=list(documents.values())).values_list(
            "pk", "document_id", "content_hash", "heading_path", "text"):
        new.setdefault(doc, []).append((pk, digest, path, text))
    for case in cases:
        for pk in case.chunk_ids & old.keys():
            doc, digest, path, text = old[pk]
            same = next((c for c in new.get(doc, []) if c[1] == digest), None)
            found = same or successor(path, text, new.get(doc, []), case.query)
            if found is None:
                continue
            followed.setdefault(case.case_id, {})[pk] = found[0]
            case.chunk_keys.discard((doc, digest))
            case.chunk_keys.add((doc, found[1]))
    return followed


def successor(path: str, text: str, chunks: list[tuple[int, str, str, str]],
              query: str) -> tuple[int, str, str, str] | None:
    """The chunk among ``chunks`` (id, hash, heading path, text) that stands for an edited expected chunk:
    one under the same headings whose words are alike (Dice over words and Chinese characters, heading
    lines left out, >= SUCCESSOR_MIN) and that still holds every word of ``query`` the old chunk held (an
    edit that drops what the question asks about is not the same answer). A section removed has none."""
    words = _words(text)
    asked = set(_words(query)) & set(words)
    same_section = [c for c in chunks if c[2] == path and asked <= set(_words(c[3]))]
    best = max(same_section, key=lambda c: _dice(words, _words(c[3])), default=None)
    if best is None or _dice(words, _words(best[3])) < SUCCESSOR_MIN:
        return None
    return best


def _follow(followed: dict[int, dict[int, int]]) -> int:
    """Published: each case now expects the new version's chunks it was judged by (its answer followed)."""
    for case in EvaluationCase.objects.filter(pk__in=list(followed)):
        mapping = followed[case.pk]
        case.expected_chunk_ids = sorted({mapping.get(int(i), int(i)) for i in case.expected_chunk_ids})
        case.save(update_fields=["expected_chunk_ids"])
    return len(followed)


def _words(text: str) -> list[str]:
    """Latin words and Chinese characters of ``text`` (heading lines left out), without function words."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return [w for w in _WORD_RE.findall(body.casefold()) if w not in _FUNCTION_WORDS]


def _dice(a: list[str], b: list[str]) -> float:
    x, y = set(a), set(b)
    return 2 * len(x & y) / (len(x) + len(y)) if x and y else float(a == b)


def _off_topic(kb: KnowledgeBase, new_chunks: dict[int, int]) -> list[dict[str, Any]]:
    """The off-topic questions a chunk of the new versions answers (searched as the base would be)."""
    answered = []
    for question in OFF_TOPIC_QUESTIONS:
        hits = search_knowledge(question, knowledge_bases=[kb], top_k=3).hits
        hit = next((h for h in hits if h.chunk_id in new_chunks), None)
        if hit is not None:
            answered.append({"question": question, "chunk_id": hit.chunk_id, "citation": hit.citation})
    return answered


def _report(kb, cases, before, after, off_topic, margin, versions) -> dict[str, Any]:
    n = len(cases)
    recall_before = round(sum(b["recall@5"] for b in before) / n, 4) if n else None
    recall_after = round(sum(a["recall@5"] for a in after) / n, 4) if n else None
    broken = [{"case_id": case.case_id, "query": case.query[:200], "expected": _expected(case),
               "rank_before": b["rank"], "rank_after": a["rank"], "top_after": a["top"],
               **({"lost_words": a["lost_words"]} if a.get("lost_words") else {})}
              for case, b, a in zip(cases, before, after, strict=True) if a["recall@5"] < b["recall@5"]]
    reasons = []
    if n and recall_after < recall_before - margin - 1e-9:
        reasons.append(f"recall@5 over {n} accepted case(s) would drop from {recall_before:.3f} to "
                       f"{recall_after:.3f} (margin {margin:.3f}); {len(broken)} case(s) broken")
    warnings = [f"the new content answers {len(off_topic)} of {len(OFF_TOPIC_QUESTIONS)} off-topic question(s): "
                 f"check the base's relevance floor (agentmemory_calibrate_floor)"] if off_topic else []
    return {
        "decision": "held" if reasons else "published", "reasons": reasons, "warnings": warnings,
        "checked_at": iso(timezone.now()),
        "versions": [{"document_id": v.document_id, "version": v.number} for v in versions],
        "cases": n, "recall_before": recall_before, "recall_after": recall_after, "margin": margin,
        "broken": broken[:50],
        "improved": sum(1 for b, a in zip(before, after, strict=True) if a["recall@5"] > b["recall@5"]),
        "off_topic_checked": len(OFF_TOPIC_QUESTIONS), "off_topic": off_topic[:20],
        **({} if n else {"note": "no accepted evaluation cases: only the off-topic checks ran (accept proposed "
                                 "cases, or save some from hit testing, to verify recall)"}),
    }


def _expected(case: Case) -> list[dict[str, Any]]:
    rows = Chunk.objects.filter(pk__in=sorted(case.chunk_ids)).values_list(
        "pk", "document__title", "version__number", "heading_path", "position")
    out: list[dict[str, Any]] = [{"chunk_id": pk, "document_title": title, "version": number,
                                  "heading_path": path, "position": position}
                                 for pk, title, number, path, position in rows]
    out += [{"document_id": d} for d in sorted(case.document_ids)]
    return out


def _record(versions: list[DocumentVersion], report: dict[str, Any]) -> None:
    DocumentVersion.objects.filter(pk__in=[v.pk for v in versions]).update(gate_report=report)
    for version in versions:
        version.gate_report = report


def _hold(version: DocumentVersion, report: dict[str, Any]) -> GateOutcome:
    DocumentVersion.objects.filter(pk=version.pk).update(status=DocumentVersion.Status.HELD, gate_report=report)
    version.status, version.gate_report = DocumentVersion.Status.HELD, report
    record_event("document.hold", object_type="document", object_id=version.document_id,
                 after={"version": version.number, "reasons": report.get("reasons", [])})
    return GateOutcome(version, "held", report)


# --- the review queue -------------------------------------------------------------------------


def held_version(document, number: int | None) -> DocumentVersion:
    """The held version ``number`` of ``document`` (its latest held one when None), or InvalidInput."""
    versions = DocumentVersion.objects.filter(document=document).defer("source_text", "structure")
    version = (versions.filter(number=number) if number else
               versions.filter(status=DocumentVersion.Status.HELD).order_by("-number")).first()
    if version is None:
        raise InvalidInput(f"Document {document.pk} has no {'version ' + str(number) if number else 'held version'}.",
                           field="version")
    if version.status != DocumentVersion.Status.HELD:
        hint = " (use rollback/ to restore a published version)" if version.status == "deprecated" else ""
        raise InvalidInput(f"Version {version.number} is {version.status}, not held for review{hint}.",
                           field="version")
    return version


def publish_held(version: DocumentVersion) -> PublishResult:
    """An operator's decision: publish a held version as it is (atomically, audited)."""
    with transaction.atomic():
        locked = DocumentVersion.objects.select_for_update().defer("source_text", "structure").get(pk=version.pk)
        if locked.status != DocumentVersion.Status.HELD:
            raise InvalidInput(f"Version {locked.number} is {locked.status}, not held for review.", field="version")
        result = publish_version(locked, action="publish_reviewed")
    if KnowledgeBase.objects.filter(pk=locked.document.knowledge_base_id, propose_checks=True).exists():
        from .propose import propose_cases

        propose_cases(locked)
    return result


def discard_version(version: DocumentVersion) -> dict[str, Any]:
    """An operator's decision: drop a held version (its chunks deleted, the row kept as history)."""
    with transaction.atomic():
        locked = DocumentVersion.objects.select_for_update().defer("source_text", "structure").get(pk=version.pk)
        if locked.status != DocumentVersion.Status.HELD:
            raise InvalidInput(f"Version {locked.number} is {locked.status}, not held for review.", field="version")
        deleted, _ = Chunk.objects.filter(version=locked).delete()
        DocumentVersion.objects.filter(pk=locked.pk).update(status=DocumentVersion.Status.DISCARDED)
        record_event("document.discard", object_type="document", object_id=locked.document_id,
                     before={"version": locked.number, "status": "held"}, after={"status": "discarded"})
    return {"document_id": locked.document_id, "version": locked.number, "status": "discarded",
            "deleted_chunks": deleted}

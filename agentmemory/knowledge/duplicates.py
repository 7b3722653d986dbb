"""Copies of one text in a knowledge base: found when a version is imported, served once by search.

Write side, ``find_duplicates``: before a version is published (or gated), each of its chunks is compared
with the nearest active chunks of the base's *other* documents (one nearest-neighbour query for the
whole version). A chunk repeats one of them when their texts are equal after normalisation (NFKC,
case, whitespace and punctuation ignored), or when their cosine is at least DUPLICATE_COSINE *and*
they hold the same numbers and the same Latin words (a changed price, date, model number or name is
not a copy). The chunk is linked to the first copy (``Chunk.duplicate_of``) and the version lists its
duplicates (``DocumentVersion.duplicates``, the import's result).

Read side, ``collapse_copies`` (search, before reranking): hits that are one text (linked, or equal
after normalisation) become one hit; the base's ``duplicate_policy`` says which copy is served:
``keep`` the better-ranked one, ``link`` the first copy (the later cited under the hit's
``duplicates``), ``skip`` the first copy with the later never shown nor cited. A copy whose original is
no longer active serves itself.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass

from django.db import connection, transaction

from ..conf import app_settings
from ..models import Chunk, DocumentVersion, DuplicatePolicy
from ..models.rows import update_rows
from .cite import ChunkRow, hydrate
from .retrieve import _tables, active_chunk_count
from .trace import SearchTrace

#: Nearest active chunks of other documents compared with each new chunk.
NEIGHBOURS = 3
#: Bases with at most this many active chunks are compared exactly (no HNSW walk).
EXACT_MAX = 5000
#: Duplicates listed on a version (the rest are still linked).
LISTED_MAX = 100

_HEADING_RE = re.compile(r"\s{0,3}#{1,6}\s")
_NUMBER_RE = re.compile(r"\d+(?:[.,:/-]\d+)*")
_LATIN_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def normalise(text: str) -> str:
    """The text as a copy is compared: without Markdown heading lines (the heading path holds them), NFKC,
    case folded, without whitespace, punctuation or symbols."""
    text = "\n".join(line for line in (text or "").splitlines() if not _HEADING_RE.match(line))
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PZSC")


def signature(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The numbers and Latin words of a text: two near-identical passages with different ones are not copies."""
    text = unicodedata.normalize("NFKC", text or "")
    return (frozenset(_NUMBER_RE.findall(text)),
            frozenset(w.casefold() for w in _LATIN_RE.findall(text)))


@dataclass(frozen=True)
class Duplicate:
    """A chunk of a new version repeating an active chunk of another document."""

    chunk_id: int
    position: int
    duplicate_of: int
    document_id: int
    document_title: str
    kind: str  # "same_text" | "near"
    cosine: float

    def as_dict(self) -> dict:
        return asdict(self)


def find_duplicates(versions: list[DocumentVersion]) -> dict[int, list[Duplicate]]:
    """Link the chunks of ``versions`` (embedded, not yet active) to the active chunks of other documents
    of their base they repeat; record each version's list; returns it per version id."""
    ids = [v.pk for v in versions]
    if not ids:
        return {}
    threshold = app_settings.DUPLICATE_COSINE
    chunk_t = _tables()["chunk"]
    kb_ids = list(Chunk.objects.filter(version__in=ids).values_list("knowledge_base_id", flat=True).distinct())
    with transaction.atomic(), connection.cursor() as cur:
        active = active_chunk_count(kb_ids)
        if not active:
            return {}
        exact = active <= EXACT_MAX
        if not exact:
            cur.execute("SELECT set_config('hnsw.ef_search', '40', true)")
        order = "(c.embedding <=> n.embedding) + 0" if exact else "c.embedding <=> n.embedding"
        cur.execute(
            f"""
            SELECT n.id, n.version_id, n.position, n.text, c.id, c.document_id, c.text,
                   1 - (c.embedding <=> n.embedding), c.version_id
            FROM {chunk_t} n CROSS JOIN LATERAL (
                SELECT c.id, c.document_id, c.text, c.embedding, c.version_id FROM {chunk_t} c
                WHERE c.knowledge_base_id = n.knowledge_base_id AND c.status = 'active'
                  AND c.document_id <> n.document_id AND c.embedding IS NOT NULL
                  AND c.embedding_model = n.embedding_model AND c.duplicate_of_id IS NULL
                ORDER BY {order} LIMIT {NEIGHBOURS}
            ) c
            WHERE n.version_id = ANY(%s) AND n.embedding IS NOT NULL
            ORDER BY n.id, 8 DESC
            """,
            [ids],
        )
        rows = cur.fetchall()
    found: dict[int, tuple] = {}
    new = set(ids)
    for pk, version_id, position, text, other, document_id, other_text, cosine, other_version in rows:
        # Two documents of one import repeating each other (both already active in the publishing
        # transaction): the earlier chunk is the first copy.
        if pk in found or (other_version in new and other > pk):
            continue
        if normalise(text) == normalise(other_text):
            found[pk] = (version_id, position, other, document_id, "same_text", cosine)
        elif cosine >= threshold and signature(text) == signature(other_text):
            found[pk] = (version_id, position, other, document_id, "near", cosine)
    if not found:
        return {}
    update_rows(Chunk, list(found), {"duplicate_of": [v[2] for v in found.values()]})
    titles = dict(Chunk.objects.filter(pk__in=[v[2] for v in found.values()])
                  .values_list("pk", "document__title"))
    out: dict[int, list[Duplicate]] = {}
    for pk, (version_id, position, other, document_id, kind, cosine) in sorted(found.items()):
        out.setdefault(version_id, []).append(Duplicate(pk, position, other, document_id, titles.get(other, ""),
                                                        kind, round(float(cosine), 4)))
    for version_id, duplicates in out.items():
        DocumentVersion.objects.filter(pk=version_id).update(
            duplicates=[d.as_dict() for d in duplicates[:LISTED_MAX]])
    return out


def collapse_copies(ids: list[int], chunks: dict[int, ChunkRow], trace: SearchTrace) -> tuple[list[int], dict[int, list[int]]]:
    """``ids`` (ranked, hydrated in ``chunks``) with each text once, and per kept chunk the copies it cites.

    The originals of linked copies are hydrated into ``chunks`` when a policy serves them; a served
    original that was not itself a candidate carries its copy's evidence.
    """
    wanted = {row.duplicate_of for cid in ids if (row := chunks[cid]).duplicate_of
              and row.policy != DuplicatePolicy.KEEP and row.duplicate_of not in chunks}
    if wanted:
        chunks.update(hydrate(sorted(wanted)))
    kept: list[int] = []
    copies: dict[int, list[int]] = {}
    group_of: dict[object, int] = {}
    for cid in ids:
        row = chunks[cid]
        original = row.duplicate_of if row.duplicate_of in chunks else None
        keys = [("text", normalise(row.text)), ("chunk", cid)] + ([("chunk", original)] if original else [])
        group = next((group_of[k] for k in keys if k in group_of), None)
        if group is None:
            group = original if original and row.policy != DuplicatePolicy.KEEP else cid
            kept.append(group)
            copies[group] = []
            if group != cid:
                _carry_evidence(trace, cid, group)
                keys.append(("text", normalise(chunks[group].text)))
        for key in keys:
            group_of.setdefault(key, group)
        if cid != group:
            skipped = row.policy == DuplicatePolicy.SKIP and original is not None
            if not skipped:
                copies[group].append(cid)
            trace.collapsed.append({"chunk_id": cid, "into": group,
                                    "why": "linked duplicate" if original else "same text",
                                    "cited": not skipped})
    return kept, copies


def _carry_evidence(trace: SearchTrace, copy: int, original: int) -> None:
    """A served original that was not itself a candidate shows the evidence its copy was found by."""
    if original not in trace.evidence and copy in trace.evidence:
        trace.evidence[original] = trace.evidence[copy]
    if original not in trace.fused and copy in trace.fused:
        trace.fused[original] = trace.fused[copy]

"""Knowledge bases: create, change and delete one, each write with its audit event in one transaction.

The REST API, the admin and ``agentmemory_ingest --create`` write knowledge bases only through here, so
every change is attributed (the actor of ``audit.audit_context``) the same way whoever makes it.
"""
from __future__ import annotations

from typing import Any

from django.db import transaction

from ..audit import record_event
from ..models import KnowledgeBase

#: Fields a knowledge base's owner sets (the rest, such as embedding_model, the services keep).
EDITABLE = ("slug", "name", "description", "chunk_size", "chunk_overlap", "user_dictionary", "floor_cosine",
            "floor_bm25", "floor_bm25_min_cosine", "floor_margin", "publish_gate", "publish_gate_margin",
            "duplicate_policy", "propose_checks")


def _check_fields(fields: dict[str, Any]) -> None:
    unknown = set(fields) - set(EDITABLE)
    if unknown:
        raise TypeError(f"not editable on a knowledge base: {', '.join(sorted(unknown))}")


def create_knowledge_base(**fields: Any) -> KnowledgeBase:
    """Create a knowledge base (``slug``, ``name``, and any other EDITABLE field); audited."""
    _check_fields(fields)
    return add_knowledge_base(KnowledgeBase(**fields))


def add_knowledge_base(kb: KnowledgeBase) -> KnowledgeBase:
    """Save a new, unsaved knowledge base (one a form built); audited."""
    if kb.pk is not None:
        raise ValueError("add_knowledge_base saves a new knowledge base; use update_knowledge_base")
    with transaction.atomic():
        kb.save(force_insert=True)
        record_event("knowledge_base.create", object_type="knowledge_base", object_id=kb.pk,
                     after={"slug": kb.slug, "chunk_size": kb.chunk_size, "chunk_overlap": kb.chunk_overlap})
    return kb


def update_knowledge_base(kb: KnowledgeBase, **changes: Any) -> KnowledgeBase:
    """Apply ``changes`` (EDITABLE fields; none when a form already set them) and save; audited."""
    _check_fields(changes)
    if kb.pk is None:
        raise ValueError("update_knowledge_base changes a saved knowledge base; use add_knowledge_base")
    for name, value in changes.items():
        setattr(kb, name, value)
    with transaction.atomic():
        kb.save()
        record_event("knowledge_base.update", object_type="knowledge_base", object_id=kb.pk,
                     after={"chunk_size": kb.chunk_size, "chunk_overlap": kb.chunk_overlap,
                            "user_dictionary": kb.user_dictionary, "publish_gate": kb.publish_gate,
                            "publish_gate_margin": kb.publish_gate_margin, "duplicate_policy": kb.duplicate_policy,
                            "propose_checks": kb.propose_checks})
    return kb


def save_floors(kb: KnowledgeBase, calibration: Any) -> KnowledgeBase:
    """Store a calibration's chosen relevance floors (and what it measured) on ``kb``; audited."""
    choice = calibration.choice
    kb.floor_cosine, kb.floor_bm25, kb.floor_margin = choice.cosine, choice.bm25, choice.margin
    kb.floor_bm25_min_cosine = choice.bm25_min_cosine
    kb.floor_calibration = calibration.as_dict()
    with transaction.atomic():
        kb.save(update_fields=["floor_cosine", "floor_bm25", "floor_margin", "floor_bm25_min_cosine",
                               "floor_calibration", "updated_at"])
        record_event("floor.calibrate", object_type="knowledge_base", object_id=kb.pk,
                     after={"floor_cosine": choice.cosine, "floor_bm25": choice.bm25,
                            "floor_bm25_min_cosine": choice.bm25_min_cosine, "floor_margin": choice.margin})
    return kb


def delete_knowledge_base(kb: KnowledgeBase) -> None:
    """Delete a knowledge base with its documents, versions, chunks and jobs; audited."""
    with transaction.atomic():
        record_event("knowledge_base.delete", object_type="knowledge_base", object_id=kb.pk,
                     before={"slug": kb.slug, "name": kb.name})
        kb.delete()

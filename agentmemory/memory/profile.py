"""The user's profile: a summary text plus one current value per key of high-confidence active items.

Read without any vector search, so the agent always knows the key facts (company, budget, style),
and cached per user (dropped on every write of that user).
"""
from __future__ import annotations

from dataclasses import asdict

from django.db import transaction
from django.db.models.expressions import RawSQL
from django.utils import timezone

from ..audit import record_event
from ..conf import app_settings
from ..models import MemoryItem, MemoryProfile
from ..timestamps import iso
from ..types import Profile, ProfileFact
from ..validation import validate_user_id
from . import cache

_SOURCE_RANK = {"user_stated": 0, "system_log": 1, "model_inferred": 2}


def _fact(item: MemoryItem) -> ProfileFact:
    return ProfileFact(
        memory_id=item.pk, key=item.key, content=item.content, value=item.value, type=item.type,
        source=item.source, confidence=float(item.confidence), tags=item.tags, agent_id=item.agent_id,
        valid_from=iso(item.valid_from), updated_at=iso(item.updated_at))


def build_profile(user_id: str, *, agent_id: str | None = None) -> dict:
    """The profile computed from the database (no cache)."""
    validate_user_id(user_id)
    min_conf = app_settings.MEMORY_PROFILE_MIN_CONFIDENCE
    items = (MemoryItem.objects.for_user(user_id).active().visible_to_agent(agent_id)
             .exclude(key="").filter(confidence__gte=min_conf)
             .defer("embedding", "search_vector", "provenance", "excerpt"))
    best: dict[tuple[str, str], MemoryItem] = {}
    for item in items:
        slot = (item.key, item.tags_key)
        rank = (_SOURCE_RANK.get(item.source, 3), -(item.valid_from or item.created_at).timestamp(), -item.pk)
        held = best.get(slot)
        if held is None or rank < (_SOURCE_RANK.get(held.source, 3),
                                   -(held.valid_from or held.created_at).timestamp(), -held.pk):
            best[slot] = item
    facts = tuple(sorted((_fact(i) for i in best.values()), key=lambda f: (f.key, f.memory_id)))
    row = MemoryProfile.objects.filter(user_id=user_id).first()
    if row is None or not summary_visible(user_id, row, agent_id):
        return Profile(user_id=user_id, facts=facts).as_dict()
    # With the summary, its provenance: how it was written and from which memories.
    return Profile(user_id=user_id, summary=row.summary, summary_updated_at=iso(row.updated_at),
                   summary_method=row.summary_method, summary_sources=list(row.summary_sources),
                   facts=facts).as_dict()


def summary_visible(user_id: str, row: MemoryProfile, agent_id: str | None) -> bool:
    """Whether a caller limited to ``agent_id`` may read the summary: none of its sources is another
    agent's own memory (distillation writes it from shared memories only; a summary written before that,
    or by hand from another agent's memories, is withheld rather than shown across agents)."""
    if agent_id is None or not row.summary_sources:
        return True
    return not (MemoryItem.objects.for_user(user_id).filter(pk__in=list(row.summary_sources))
                .exclude(agent_id__in=["", agent_id]).exists())


def get_profile(user_id: str, *, agent_id: str | None = None) -> dict:
    """The cached profile of ``user_id`` as the API shows it (``Profile.as_dict()``):
    {user_id, summary, summary_updated_at, summary_method, summary_sources, facts: [...]}."""
    validate_user_id(user_id)
    name = f"profile:{agent_id if agent_id is not None else '*'}"
    return cache.get_or_set(user_id, name, lambda: build_profile(user_id, agent_id=agent_id))


def load_profile(user_id: str, *, agent_id: str | None = None) -> Profile:
    """The cached profile of ``user_id``, typed (what the context assembler reads)."""
    return Profile.from_dict(get_profile(user_id, agent_id=agent_id))


def top_memories(user_id: str, *, agent_id: str | None = None, limit: int = 10) -> list[dict]:
    """The user's most important current memories without a query (confidence x source x decay), cached."""
    validate_user_id(user_id)

    def compute() -> list[dict]:
        # Ranked in SQL, so only ``limit`` rows are loaded: confidence x source weight x time decay,
        # the same factors as recall's (decay_factor) without a query.
        weights = dict(app_settings.MEMORY_SOURCE_WEIGHTS)
        weight = f"(CASE source {' '.join('WHEN %s THEN %s' for _ in weights)} ELSE 1.0 END)" if weights else "1.0"
        # The exponent is capped: 0.5^1000 is already 0 for ranking, and larger ones underflow float8.
        score = RawSQL(
            f"confidence * {weight} * GREATEST(%s, power(0.5, LEAST(1000.0, GREATEST(0.0, "
            "EXTRACT(EPOCH FROM (%s - COALESCE(last_accessed_at, created_at))) / 86400.0) / %s)))",
            [*(x for pair in weights.items() for x in (pair[0], float(pair[1]))),
             app_settings.MEMORY_DECAY_FLOOR, timezone.now(), app_settings.MEMORY_HALF_LIFE_DAYS],
        )
        items = (MemoryItem.objects.for_user(user_id).active().visible_to_agent(agent_id)
                 .exclude(source=MemoryItem.Source.MODEL_INFERRED)
                 .defer("embedding", "search_vector", "provenance")
                 .annotate(rank_score=score).order_by("-rank_score", "-confidence", "-id")[:limit])
        return [asdict(_fact(i)) for i in items]

    return cache.get_or_set(user_id, f"top:{agent_id if agent_id is not None else '*'}:{limit}", compute)


def top_facts(user_id: str, *, agent_id: str | None = None, limit: int = 10) -> list[ProfileFact]:
    """``top_memories``, typed (what the context assembler reads)."""
    return [ProfileFact(**fact) for fact in top_memories(user_id, agent_id=agent_id, limit=limit)]


def set_profile_summary(user_id: str, summary: str, *, reason: str = "") -> MemoryProfile:
    """Replace the user's summary text (the lifecycle job rewrites it); audited, cache dropped."""
    validate_user_id(user_id)
    with transaction.atomic():
        row, _created = MemoryProfile.objects.select_for_update().get_or_create(user_id=user_id)
        before = {"summary": row.summary}
        row.summary = summary or ""
        row.updated_at = timezone.now()
        row.summary_method, row.summary_sources = "manual", []
        row.save(update_fields=["summary", "updated_at", "summary_method", "summary_sources"])
        record_event("edit", object_type="profile", object_id=row.pk, user_id=user_id, before=before,
                     after={"summary": row.summary}, reason=reason)
        cache.invalidate_user(user_id)
        transaction.on_commit(lambda: cache.invalidate_user(user_id))
    return row


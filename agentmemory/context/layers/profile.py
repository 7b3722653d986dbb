"""The profile layer: the user's summary and key facts (one current value per key), always loaded, cached."""
from __future__ import annotations

from django.utils.dateparse import parse_datetime

from ...text import keyword_tokens, query_terms
from ...types import ContextItem, LayerResult


def gather_profile(user_id: str, query: str, *, agent_id: str | None = None) -> LayerResult:
    """Key facts (one current value per key) and the summary: always loaded, cached, no vector search."""
    from ...memory import cache
    from ...memory.profile import load_profile

    name = f"profile:{agent_id if agent_id is not None else '*'}"
    cached = cache.cache_get(user_id, name, None) is not None
    profile = load_profile(user_id, agent_id=agent_id)
    terms = set(query_terms(query))
    items: list[ContextItem] = []
    summary = (profile.summary or "").strip()
    if summary:
        updated = parse_datetime(profile.summary_updated_at) if profile.summary_updated_at else None
        items.append(ContextItem(layer="profile", kind="summary", key=f"profile-summary:{user_id}", text=summary,
                                 relevance=1.0, decay=1.0, timestamp=updated, ref={"source": "profile"}))
    for fact in profile.facts:
        text = (fact.content or "").strip()
        if not text:
            continue
        # Key facts are always relevant (they say who is asking); more so when the message names them.
        relevance = 1.0 if terms & set(keyword_tokens(text)) else 0.7
        confidence = float(fact.confidence or 0.0)
        items.append(ContextItem(
            layer="profile", kind="fact", key=f"memory:{fact.memory_id}", text=text,
            relevance=relevance, decay=max(0.0, min(1.0, confidence)), timestamp=fact.timestamp,
            ref={"memory_id": fact.memory_id, "key": fact.key, "source": fact.source, "type": fact.type,
                 "confidence": confidence},
        ))
    # Only the facts the prompt carries are recorded as accessed (assemble.touch_shown).
    return LayerResult(layer="profile", items=items, detail={"cache": "hit" if cached else "miss"})

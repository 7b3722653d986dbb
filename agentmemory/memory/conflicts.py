"""Conflict resolution between a new memory and the current items of the same slot, in one place.

The slot is (user, key, context tags, agent). Rules, from the seeds:
- a newer ``user_stated`` item supersedes older items of the slot (user_stated or model_inferred):
  they become ``superseded``, get ``valid_to``/``superseded_at`` and the new item links to them;
- a ``model_inferred`` item never supersedes a ``user_stated`` one: both are kept and the inferred one
  ranks lower (source weight); it does supersede an older ``model_inferred`` guess;
- a statement whose event time is older than the current value's is stored as history (superseded
  at once, valid until the current value started), so a late import does not overturn newer facts;
- items with other context tags, or no key, never conflict (they coexist); ``system_log`` events are
  a log and take part in no conflict.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SlotItem:
    """What the rules need to know about an existing item of the slot."""

    id: int
    source: str
    valid_from: dt.datetime | None
    created_at: dt.datetime


@dataclass(frozen=True)
class ConflictDecision:
    supersede_ids: tuple[int, ...] = ()
    #: True when the new item is older than the current value and is stored as history.
    new_is_history: bool = False
    #: The current item that outranks a history item or an inferred guess.
    kept_id: int | None = None
    reason: str = ""
    kept_beside: tuple[int, ...] = field(default_factory=tuple)


def _event_time(item: SlotItem) -> dt.datetime:
    return item.valid_from or item.created_at


def decide(*, source: str, valid_from: dt.datetime | None, now: dt.datetime,
           slot: list[SlotItem]) -> ConflictDecision:
    """Pure rule: what a new item of ``source`` does to the current items of its slot."""
    if source == "system_log" or not slot:
        return ConflictDecision()
    new_time = valid_from or now
    rivals = [s for s in slot if s.source != "system_log"]
    if not rivals:
        return ConflictDecision()
    newer = [s for s in rivals if _event_time(s) > new_time]
    if source == "user_stated":
        stated_newer = [s for s in newer if s.source == "user_stated"]
        if stated_newer:
            latest = max(stated_newer, key=_event_time)
            return ConflictDecision(new_is_history=True, kept_id=latest.id,
                                    reason=f"older than the current value #{latest.id}; stored as history")
        ids = tuple(s.id for s in rivals)
        return ConflictDecision(supersede_ids=ids, reason="a newer user statement replaces the previous value")
    # model_inferred
    stated = [s for s in rivals if s.source == "user_stated"]
    inferred = tuple(s.id for s in rivals if s.source == "model_inferred" and _event_time(s) <= new_time)
    if stated:
        return ConflictDecision(
            supersede_ids=inferred, kept_beside=tuple(s.id for s in stated),
            reason="an inference never overrides what the user stated; both kept, the inference ranks lower",
        )
    return ConflictDecision(supersede_ids=inferred,
                            reason="a newer inference replaces the previous one" if inferred else "")

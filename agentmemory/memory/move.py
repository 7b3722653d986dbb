"""Moving a memory user to another id: every row of every model of the app, in one transaction.

For sites that keyed their logged-in users' memories on a mutable id (the username, often the e-mail
address) and move to an immutable one (the primary key, USER_ID_RESOLVER's default); run by
``manage.py agentmemory_migrate_user_ids``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from ..audit import record_event
from ..validation import validate_user_id
from . import cache
from .forget import holds_data, subject_digest, user_models
from .rows import lock_user
from .snapshot import drop_user


@dataclass(frozen=True)
class MoveResult:
    action: str  # "moved" | "would_move" | "nothing_to_move" | "target_has_data" | "same_id"
    counts: dict[str, int] = field(default_factory=dict)


def move_user(old_id: str, new_id: str, *, dry_run: bool = False) -> MoveResult:
    """Give every row of memory user ``old_id`` the id ``new_id``.

    Refused (nothing changes) when ``new_id`` already holds data: two people's memories are never
    merged by a rename. The audit event names both ids by their SHA-256 digests only.
    """
    validate_user_id(old_id)
    validate_user_id(new_id)
    if old_id == new_id:
        return MoveResult("same_id")
    with transaction.atomic():
        for user_id in sorted((old_id, new_id)):  # a fixed order: two moves never deadlock
            lock_user(user_id)
        if not holds_data(old_id):
            return MoveResult("nothing_to_move")
        if holds_data(new_id):
            return MoveResult("target_has_data")
        counts = {}
        for model in user_models():
            rows = model._base_manager.filter(user_id=old_id)
            n = rows.count() if dry_run else rows.update(user_id=new_id)
            if n:
                counts[model._meta.model_name] = n
        if dry_run:
            return MoveResult("would_move", counts)
        record_event("move_user", object_type="user", object_id=subject_digest(new_id)[:32], user_id=new_id,
                     before={"user": subject_digest(old_id)}, after={"user": subject_digest(new_id),
                                                                     "counts": counts})
        for user_id in (old_id, new_id):
            cache.invalidate_user(user_id)
            transaction.on_commit(lambda u=user_id: (cache.invalidate_user(u), drop_user(u)))
    return MoveResult("moved", counts)

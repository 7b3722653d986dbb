"""Deleting memories and forgetting users: rows gone, history content gone, a receipt without content kept."""
from __future__ import annotations

import hashlib
from collections import Counter

from django.apps import apps
from django.db import transaction
from django.utils import timezone

from ..audit import current_actor, record_event
from ..exceptions import NotFound
from ..identity import resolve_user_id
from ..models import AuditEvent, DeletionReceipt, MemoryItem
from ..validation import validate_user_id
from . import cache
from .rows import lock_user
from .snapshot import drop_user

SCRUBBED = {"scrubbed": True}


def subject_digest(user_id: str) -> str:
    """SHA-256 of a user id: receipts name their subject by it, never by the id itself."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()


def delete_memory(user_id: str, memory_id: int, *, reason: str = "") -> DeletionReceipt:
    """Delete one memory of ``user_id`` with every older version of it, and their content in the audit log.

    The rows become tombstones (status ``deleted``, content, value, excerpt, provenance, tags and
    vectors emptied) so ids in receipts and history still resolve; audit events of those items keep
    who/when/what action but their before/after content is scrubbed.
    """
    validate_user_id(user_id)
    with transaction.atomic():
        lock_user(user_id)
        scope = MemoryItem.objects.for_user(user_id)
        item = scope.filter(pk=memory_id).exclude(status=MemoryItem.Status.DELETED).first()
        if item is None:
            raise NotFound(f"memory {memory_id} not found for this user")
        chain = scope.chain_ids(item.pk)
        # The item and the versions it replaced (their text is the history of the same statement).
        ids = chain[: chain.index(item.pk) + 1]
        now = timezone.now()
        count = scope.filter(pk__in=ids).exclude(status=MemoryItem.Status.DELETED).update(
            status=MemoryItem.Status.DELETED, content="", value=None, excerpt="", provenance=[], tags={},
            tags_key="", key="", embedding=None, search_vector=None, term_count=0, idempotency_key="",
            updated_at=now, valid_to=now,
        )
        scrubbed = (AuditEvent.objects.for_user(user_id).filter(object_type="memory", object_id__in=[str(i) for i in ids])
                    .update(before=SCRUBBED, after=SCRUBBED))
        admin_log = delete_admin_log_entries({MemoryItem: ids})
        receipt = DeletionReceipt.objects.create(
            kind=DeletionReceipt.Kind.MEMORY, subject_digest=subject_digest(user_id), reason=reason[:500],
            actor=current_actor(), counts={"memory_items": count, "audit_events_scrubbed": scrubbed,
                                           "admin_log_entries": admin_log, "memory_ids": ids},
        )
        record_event("delete", object_type="memory", object_id=item.pk, user_id=user_id,
                     after={"receipt_id": receipt.pk, "deleted_ids": ids}, reason=reason)
        cache.invalidate_user(user_id)
        transaction.on_commit(lambda: cache.invalidate_user(user_id))
        # This process's copy for recall goes now; another process's is replaced at that process's next
        # recall of the user (its fingerprint no longer matches) or leaves its LRU.
        transaction.on_commit(lambda: drop_user(user_id))
    return receipt


def user_models() -> list:
    """Every model of the agentmemory app with a ``user_id`` field: all of them hold a user's data."""
    found = []
    for model in apps.get_app_config("agentmemory").get_models():
        try:
            model._meta.get_field("user_id")
        except Exception:
            continue
        found.append(model)
    return found


def delete_admin_log_entries(objects: dict) -> int:
    """Delete Django admin's log entries (``django_admin_log``) about these objects: ``{model: [pk, ...]}``.

    An operator's edit in the admin leaves the object's text in the entry's ``object_repr`` ("[zed] 我的车牌
    是 …") and the changed fields in its message; erasing the object erases them. Nothing when the host
    has no ``django.contrib.admin``.
    """
    if not apps.is_installed("django.contrib.admin"):
        return 0
    from django.contrib.admin.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    total = 0
    for model, pks in objects.items():
        if not pks:
            continue
        content_type = ContentType.objects.get_for_model(model, for_concrete_model=False)
        concrete = ContentType.objects.get_for_model(model)
        ids = [str(pk) for pk in pks]
        for start in range(0, len(ids), 5000):
            deleted, _ = LogEntry.objects.filter(content_type__in={content_type, concrete},
                                                 object_id__in=ids[start:start + 5000]).delete()
            total += deleted
    return total


def _user_objects(user_id: str) -> dict:
    """The primary keys of every row the user has in the app's models (before they are deleted)."""
    return {model: list(model._base_manager.filter(user_id=user_id).values_list("pk", flat=True))
            for model in user_models()}


def holds_data(user_id: str) -> bool:
    """Whether any model of the app has a row of ``user_id``."""
    return any(model._base_manager.filter(user_id=user_id).exists() for model in user_models())


def forget_account(user, *, reason: str = "the site's user account was deleted") -> DeletionReceipt | None:
    """Forget the memory user of a Django user (USER_ID_RESOLVER), when that user has data: the receipt.

    Connected to the deletion of the host's users (``FORGET_ON_USER_DELETE``, on by default), so a
    deleted account leaves nothing behind and its id can never hand the data to a later account.
    """
    user_id = resolve_user_id(user)
    if user_id is None or not holds_data(user_id):
        return None
    return forget_user(user_id, reason=reason)


def forget_user(user_id: str, *, reason: str = "") -> DeletionReceipt:
    """Remove everything agentmemory holds about ``user_id`` and return a receipt (counts, no content).

    Generic on purpose: rows of every agentmemory model with a ``user_id`` field are deleted (with
    their cascades, e.g. turns of sessions), audit events included, with the Django admin's log entries
    about those rows, then the user's cache entries.
    The receipt names the user only by a SHA-256 digest and survives the deletion.
    """
    validate_user_id(user_id)
    counts: Counter[str] = Counter()
    with transaction.atomic():
        lock_user(user_id)
        # The memory rows first, in id order, as the access writer (memory/access.py) takes them: the cascades of the
        # deletes below would otherwise lock them in another order, and the two could deadlock.
        list(MemoryItem._base_manager.filter(user_id=user_id).order_by("pk").select_for_update()
             .values_list("pk", flat=True))
        admin_log = delete_admin_log_entries(_user_objects(user_id))
        if admin_log:
            counts["admin_log_entries"] = admin_log
        for model in user_models():
            _total, per_model = model._base_manager.filter(user_id=user_id).delete()
            for label, n in per_model.items():
                if n:
                    counts[label.split(".", 1)[-1].lower()] += n
        receipt = DeletionReceipt.objects.create(
            kind=DeletionReceipt.Kind.USER, subject_digest=subject_digest(user_id), reason=reason[:500],
            actor=current_actor(), counts=dict(sorted(counts.items())),
        )
        # Recorded without the user id, so the log keeps that a forget happened, not whose.
        record_event("forget_user", object_type="deletion_receipt", object_id=receipt.pk,
                     after={"counts": receipt.counts}, reason=reason)
        cache.invalidate_user(user_id)
        transaction.on_commit(lambda: cache.invalidate_user(user_id))
        # This process's copy for recall goes now; another process's is replaced at that process's next
        # recall of the user (its fingerprint no longer matches) or leaves its LRU.
        transaction.on_commit(lambda: drop_user(user_id))
    return receipt

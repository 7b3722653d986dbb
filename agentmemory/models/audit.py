"""One shared audit table for every write, keyed by object type and id."""
from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AuditEventQuerySet(models.QuerySet):
    def for_object(self, object_type: str, object_id) -> AuditEventQuerySet:
        return self.filter(object_type=object_type, object_id=str(object_id))

    def for_user(self, user_id: str) -> AuditEventQuerySet:
        return self.filter(user_id=user_id)


class AuditEvent(models.Model):
    created_at = models.DateTimeField(_("created at"), default=timezone.now, db_index=True, editable=False)
    actor = models.CharField(_("actor"), max_length=200, blank=True,
                             help_text=_("api_key:NAME, admin:USERNAME, task:NAME or system."))
    action = models.CharField(_("action"), max_length=50, help_text=_("create, merge, supersede, edit, delete, ..."))
    reason = models.CharField(_("reason"), max_length=500, blank=True)
    object_type = models.CharField(_("object type"), max_length=50, help_text=_("e.g. memory, document."))
    object_id = models.CharField(_("object id"), max_length=64)
    user_id = models.CharField(_("user id"), max_length=255, blank=True, db_index=True,
                               help_text=_("The end user the object belongs to, when it belongs to one."))
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"], name="am_audit_object_idx")]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type}:{self.object_id} by {self.actor or 'system'}"

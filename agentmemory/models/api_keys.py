"""API keys of service clients and end-user devices: stored hashed, scoped, revocable, optionally expiring."""
from __future__ import annotations

from datetime import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

#: What a key may do. ``read`` covers every read (memories, sessions, context, knowledge search);
#: ``write`` memory and session writes; ``admin`` knowledge-base writes and forgetting a user.
SCOPES = ("read", "write", "admin")


def all_scopes() -> list[str]:
    return list(SCOPES)


class ApiKeyQuerySet(models.QuerySet):
    def usable(self, now: datetime | None = None) -> ApiKeyQuerySet:
        """Keys neither revoked nor expired at ``now``."""
        now = now or timezone.now()
        return self.filter(revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class ApiKey(models.Model):
    name = models.CharField(_("name"), max_length=100, unique=True, help_text=_("Who or what uses this key."))
    prefix = models.CharField(
        _("prefix"), max_length=16, db_index=True, editable=False,
        help_text=_("First characters of the key, shown to tell keys apart; the key itself is never stored."),
    )
    key_hash = models.CharField(_("key hash"), max_length=64, unique=True, editable=False,
                                help_text=_("SHA-256 of the full key."))
    scopes = models.JSONField(
        _("scopes"), default=all_scopes, blank=True,
        help_text=_("Operations this key may perform: any of read, write, admin (knowledge-base writes, "
                  "forgetting a user)."),
    )
    agent_ids = models.JSONField(
        _("agents"), default=list, blank=True,
        help_text=_("Agent ids this key may act for; empty means every agent."),
    )
    user_ids = models.JSONField(
        _("users"), default=list, blank=True,
        help_text=_("End-user ids this key may act for; empty (and no prefix) means every user."),
    )
    user_id_prefix = models.CharField(
        _("user id prefix"), max_length=255, blank=True,
        help_text=_("The key may also act for every user id that starts with this prefix."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True,
                                      help_text=_("After this moment requests with the key get 401; empty: never."))
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True,
                                      help_text=_("Set to revoke the key; requests with it then get 401."))

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > timezone.now())

    def has_scope(self, scope: str) -> bool:
        return scope in (self.scopes or [])

    def allows_agent(self, agent_id: str | None) -> bool:
        """True when this key may act for ``agent_id`` (an empty agent list allows all)."""
        return not self.agent_ids or (agent_id or "") in self.agent_ids

    @property
    def limits_users(self) -> bool:
        return bool(self.user_ids or self.user_id_prefix)

    def allows_user(self, user_id: str) -> bool:
        """True when this key may act for end user ``user_id`` (no list and no prefix allows all)."""
        if not self.limits_users:
            return True
        return user_id in (self.user_ids or []) or bool(self.user_id_prefix and user_id.startswith(self.user_id_prefix))

"""API keys of service clients: stored hashed, revocable, optionally limited to some agents."""
from __future__ import annotations

from django.db import models
from django.utils import timezone


class ApiKeyQuerySet(models.QuerySet):
    def usable(self) -> ApiKeyQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiKey(models.Model):
    name = models.CharField("name", max_length=100, unique=True, help_text="Who or what uses this key.")
    prefix = models.CharField(
        "prefix", max_length=16, db_index=True, editable=False,
        help_text="First characters of the key, shown to tell keys apart; the key itself is never stored.",
    )
    key_hash = models.CharField("key hash", max_length=64, unique=True, editable=False,
                                help_text="SHA-256 of the full key.")
    agent_ids = models.JSONField(
        "agents", default=list, blank=True,
        help_text="Agent ids this key may act for; empty means every agent.",
    )
    created_at = models.DateTimeField("created at", default=timezone.now, editable=False)
    last_used_at = models.DateTimeField("last used at", null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField("revoked at", null=True, blank=True,
                                      help_text="Set to revoke the key; requests with it then get 401.")

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        verbose_name = "API key"
        verbose_name_plural = "API keys"
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def allows_agent(self, agent_id: str | None) -> bool:
        """True when this key may act for ``agent_id`` (an empty agent list allows all)."""
        return not self.agent_ids or (agent_id or "") in self.agent_ids

    # DRF treats request.user as authenticated through these two attributes.
    is_authenticated = True
    is_staff = False

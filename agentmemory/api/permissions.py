"""Kept for hosts that followed the 0.1 install section, which put these names in REST_FRAMEWORK.

The app no longer needs anything in the host's REST_FRAMEWORK: its views set their own classes
(agentmemory.api.base) and check access through agentmemory.api.access. Remove
``IsApiClientOrStaff`` and ``ApiKeyAuthentication`` from your global settings when you upgrade.
"""
from __future__ import annotations

from rest_framework.permissions import BasePermission

from ..models import ApiKey


def api_key_of(request) -> ApiKey | None:
    return request.auth if isinstance(request.auth, ApiKey) else None


class IsApiClientOrStaff(BasePermission):
    """Deprecated: the 0.1 project-wide default (an API key, or a staff session)."""

    message = "Authenticate with 'Authorization: Bearer <API key>' or as a staff user."

    def has_permission(self, request, view) -> bool:
        from .base import AgentMemoryAPIView

        if api_key_of(request) is not None:
            # A key is never a credential for the host's own views, even under this old global default.
            return isinstance(view, AgentMemoryAPIView)
        user = getattr(request, "user", None)
        return bool(user and user.is_authenticated and user.is_staff)

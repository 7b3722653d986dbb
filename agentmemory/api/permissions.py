"""Who may call the API: service clients with an API key, and staff through their session."""
from __future__ import annotations

from rest_framework.permissions import BasePermission

from ..models import ApiKey


def api_key_of(request) -> ApiKey | None:
    return request.auth if isinstance(request.auth, ApiKey) else None


class IsApiClientOrStaff(BasePermission):
    message = "Authenticate with 'Authorization: Bearer <API key>' or as a staff user."

    def has_permission(self, request, view) -> bool:
        if api_key_of(request) is not None:
            return True
        user = getattr(request, "user", None)
        return bool(user and user.is_authenticated and user.is_staff)


def check_agent_allowed(request, agent_id: str | None) -> bool:
    """False when the request's API key is limited to agents that exclude ``agent_id``."""
    key = api_key_of(request)
    return key is None or key.allows_agent(agent_id)

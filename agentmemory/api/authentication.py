"""DRF authentication with agentmemory API keys sent as ``Authorization: Bearer <key>``."""
from __future__ import annotations

from rest_framework import authentication, exceptions

from ..api_keys import authenticate_key


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        parts = header.split()
        if parts[0].lower() != self.keyword.lower():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: expected 'Bearer <key>'.")
        key = authenticate_key(parts[1])
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        request.api_key = key
        return (key, key)

    def authenticate_header(self, request) -> str:
        return self.keyword

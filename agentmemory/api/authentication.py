"""DRF authentication with agentmemory API keys sent as ``Authorization: Bearer <key>``.

Used only on the app's own views (agentmemory.api.base). A key is not a Django user: the request's
user stays anonymous and the key is ``request.auth``, so nothing of the host that reads
``request.user`` ever sees an object it does not know.
"""
from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from rest_framework import authentication, exceptions

from ..api_keys import KEY_PREFIX, KeyRejected, authenticate_key
from ..conf import app_settings


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        parts = header.split()
        if parts[0].lower() != self.keyword.lower():
            return None  # another scheme (Basic, a host's JWT class...): not ours to judge
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: expected 'Bearer <key>'.")
        try:
            key = authenticate_key(parts[1])
        except KeyRejected as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from None
        if key is None:
            if not parts[1].startswith(KEY_PREFIX) and app_settings.EXTRA_AUTHENTICATION_CLASSES:
                # Not an agentmemory key: leave it to the host's classes added in
                # EXTRA_AUTHENTICATION_CLASSES (e.g. a JWT also sent as Bearer).
                return None
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        request.api_key = key
        return (AnonymousUser(), key)

    def authenticate_header(self, request) -> str:
        return self.keyword

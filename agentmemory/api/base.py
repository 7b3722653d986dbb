"""The one base of every agentmemory view: the app owns its API, whatever the host's REST_FRAMEWORK says.

Authentication, permissions, throttling, parsers, renderers, pagination, the exception handler and the
schema class are set here, not read from the host's global settings; and none of them is installed in
the host's globals, so the host's own views never see the app's classes or credentials.
"""
from __future__ import annotations

from django.utils import timezone
from django.utils.module_loading import import_string
from rest_framework.authentication import SessionAuthentication
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from .. import audit
from ..conf import app_settings
from ..exceptions import NotFound
from ..timestamps import UTC
from ..validation import validate_user_id
from .access import AgentMemoryPermission, Principal, principal_of, require_user
from .authentication import ApiKeyAuthentication
from .errors import exception_handler
from .parsers import PARSERS, check_storable
from .schema import AgentMemoryAutoSchema


def authentication_classes() -> list[type]:
    """API keys, then Django sessions (CSRF-checked), then the host's additions from the app's settings."""
    extra = [import_string(path) for path in app_settings.EXTRA_AUTHENTICATION_CLASSES]
    return [ApiKeyAuthentication, SessionAuthentication, *extra]


class PrincipalRateThrottle(SimpleRateThrottle):
    """AGENTMEMORY['THROTTLE_RATE'] per API key, per user, or per address for the rest."""

    scope = "agentmemory"

    def get_rate(self) -> str | None:
        return app_settings.THROTTLE_RATE or None

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception:  # the cache is down: serve rather than refuse everyone
            return True

    def get_cache_key(self, request, view) -> str:
        principal = principal_of(request)
        if principal.key is not None:
            ident = f"key:{principal.key.pk}"
        elif principal.user is not None:
            ident = f"user:{principal.user.pk}"
        else:
            ident = f"addr:{self.get_ident(request)}"
        return f"agentmemory-throttle:{ident}"


class AgentMemoryAPIView(APIView):
    """Base of every view of the app. Subclasses declare ``rules`` (one access.Rule per method)."""

    rules: dict = {}
    #: Views that take the end user in the URL check it before the handler runs.
    user_kwarg: str | None = "user_id"

    permission_classes = [AgentMemoryPermission]
    renderer_classes = [JSONRenderer]
    parser_classes = PARSERS
    content_negotiation_class = DefaultContentNegotiation
    versioning_class = None
    pagination_class = None  # for generic views mixed in: the app's lists are never paged by the host's class
    filter_backends: list = []
    schema = AgentMemoryAutoSchema()

    def get_authenticators(self):
        return [cls() for cls in authentication_classes()]

    def get_throttles(self):
        return [PrincipalRateThrottle()] if app_settings.THROTTLE_RATE else []

    def get_exception_handler(self):
        return exception_handler

    @property
    def principal(self) -> Principal:
        return principal_of(self.request)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # One timestamp convention (timestamps.py): serialised in UTC, whatever the host activated.
        self._timezone = timezone.override(UTC)
        self._timezone.__enter__()
        # Path and query text reach SQL as it is: refuse what PostgreSQL cannot hold, as a 400.
        check_storable({k: v for k, v in kwargs.items() if isinstance(v, str)})
        check_storable({k: request.query_params.getlist(k) for k in request.query_params})
        if any(isinstance(v, int) and v >= 2**63 for v in kwargs.values()):
            raise NotFound("Not found.")  # no row has an id past PostgreSQL's bigint
        # Every write of this request is attributed to its key or user in the audit trail.
        self._audit_token = audit.set_actor(principal_of(request).actor)
        if self.user_kwarg and self.user_kwarg in kwargs:
            validate_user_id(kwargs[self.user_kwarg])
            require_user(request, kwargs[self.user_kwarg])

    def finalize_response(self, request, response, *args, **kwargs):
        override = getattr(self, "_timezone", None)
        if override is not None:
            override.__exit__(None, None, None)
            self._timezone = None
        token = getattr(self, "_audit_token", None)
        if token is not None:
            audit.reset_actor(token)
            self._audit_token = None
        return super().finalize_response(request, response, *args, **kwargs)

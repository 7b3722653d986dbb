"""Foundation endpoints: who am I (an authenticated ping that shows what the caller may do) and health."""
from __future__ import annotations

from django.db import DatabaseError
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from .. import __version__
from ..api_keys import describe_key
from ..health import pgvector_version
from .access import principal_of
from .base import AgentMemoryAPIView
from .errors import error_body
from .schema import extend_schema


class WhoAmIView(AgentMemoryAPIView):
    """Tell the caller how it is authenticated and what it may do; a cheap way to test an API key."""

    open_to_any_principal = True

    @extend_schema(responses={200: inline_serializer("WhoAmI", {
        "auth": serializers.ChoiceField(choices=["api_key", "session"]),
        "name": serializers.CharField(required=False, help_text="The API key's name."),
        "scopes": serializers.ListField(child=serializers.CharField(), required=False),
        "agent_ids": serializers.ListField(child=serializers.CharField(), required=False),
        "user_ids": serializers.ListField(child=serializers.CharField(), required=False),
        "user_id_prefix": serializers.CharField(required=False),
        "expires_at": serializers.DateTimeField(required=False, allow_null=True),
        "username": serializers.CharField(required=False, help_text="The Django user (session)."),
        "is_staff": serializers.BooleanField(required=False),
        "memory_user_id": serializers.CharField(required=False, allow_null=True,
                                                help_text="The only end user a non-staff account acts as."),
        "version": serializers.CharField(),
    })})
    def get(self, request):
        principal = self.principal
        if principal.key is not None:
            body = {"auth": "api_key", **describe_key(principal.key)}
            body.pop("prefix")
        else:
            body = {"auth": "session", "username": principal.user.get_username(),
                    "is_staff": principal.kind == "staff",
                    "memory_user_id": principal.own_user_id if principal.kind == "user" else None}
        return Response({**body, "version": __version__})


class HealthView(AgentMemoryAPIView):
    """Liveness of the API and its database. Anonymous callers learn only ``ok`` or ``unavailable``; the
    versions (the app's and pgvector's) and, with ``?vectors=1``, the stored vectors' models go to
    authenticated callers (an API key or a logged-in user), never to the open internet."""

    permission_classes: list = []

    def perform_authentication(self, request):
        try:
            request.user  # noqa: B018 - resolves the key or session now
        except Exception:  # a wrong or expired key on a probe: answered as anonymous, never 401
            request._authenticator, request.user, request.auth = None, None, None

    @extend_schema(parameters=[OpenApiParameter("vectors", bool, description=(
        "Authenticated callers only: also report stored vectors of another embedding model (after a "
        "switch, until re-embedded).")), OpenApiParameter("backlog", bool, description=(
        "Authenticated callers only: jobs waiting per workload, the oldest one's age, the broker's queue "
        "depths and warnings past BACKLOG_WARN_SECONDS."))],
        responses={200: inline_serializer("Health", {
            "status": serializers.ChoiceField(choices=["ok", "unavailable"]),
            "pgvector": serializers.CharField(allow_null=True, required=False,
                                              help_text="Authenticated callers only."),
            "version": serializers.CharField(required=False, help_text="Authenticated callers only."),
            "vectors": serializers.DictField(required=False),
            "backlog": serializers.DictField(required=False),
        }), 503: inline_serializer("HealthUnavailable", {"status": serializers.CharField(), "error": serializers.CharField(), "detail": serializers.CharField()})})
    def get(self, request):
        try:
            pgvector = pgvector_version()
        except DatabaseError:  # the database does not answer
            return Response({"status": "unavailable", **error_body("database_unavailable",
                                                                    "The database does not answer.")}, status=503)
        if principal_of(request).kind == "anonymous":
            return Response({"status": "ok"})
        body = {"status": "ok", "pgvector": pgvector, "version": __version__}
        if request.query_params.get("vectors") in ("1", "true"):
            # ?vectors=1: whether stored vectors come from another model than the configured embedder's
            # (counts only; a scan of the memory table, so not on the default, polled path).
            from ..backends import get_embedder
            from ..health import vector_models

            body["vectors"] = vector_models(get_embedder().model_name)
        if request.query_params.get("backlog") in ("1", "true"):
            # ?backlog=1: jobs waiting per workload, the oldest one's age, the broker's queue depths, warnings.
            from ..backlog import backlog

            body["backlog"] = backlog()
        return Response(body)


@csrf_exempt  # a JSON 404 for any method: the CSRF check would otherwise answer a POST with HTML
def unknown_endpoint(request, *args, **kwargs):
    """Any path under the app's prefix that names no endpoint (or an id that is not a number)."""
    return JsonResponse(error_body("not_found", f"No endpoint at {request.path}."), status=404)

"""The app's own OpenAPI schema and Swagger UI, served from its urls, whatever the host's settings.

The schema covers only the app's views (wherever the host mounted them), declares the API-key
security scheme (``Authorization: Bearer``), and is titled and versioned from the package. Swagger UI's
assets come from the installed drf-spectacular-sidecar package, served by the app itself: offline, and
without the host adding apps, static-file settings or ``SPECTACULAR_SETTINGS``.
"""
from __future__ import annotations

import mimetypes
from pathlib import Path

from django.http import FileResponse, Http404
from django.shortcuts import render
from django.urls import reverse
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer
from drf_spectacular.settings import patched_settings
from drf_spectacular.utils import extend_schema as _extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework import serializers

from .. import __version__


class ErrorSerializer(serializers.Serializer):
    """The error envelope of every 4xx and 5xx answer of the API."""

    error = serializers.CharField(help_text="Machine-readable code: invalid, not_authenticated, "
                                            "authentication_failed, permission_denied, not_found, "
                                            "method_not_allowed, too_large, throttled, backend_unavailable, "
                                            "database_unavailable, server_error, ...")
    detail = serializers.CharField(help_text="What went wrong, for a person.")
    field = serializers.CharField(required=False, help_text="The first offending field (validation errors).")
    fields = serializers.DictField(required=False, child=serializers.JSONField(),
                                   help_text="Every offending field with its messages (validation errors).")


#: The error answers every operation may give, besides the ones it declares itself.
ERROR_RESPONSES = {
    "400": "Invalid input.", "401": "No valid credentials (API key or session).",
    "403": "Not allowed for this key or user.", "404": "Not found (or not visible to this caller).",
    "413": "Request body too large.", "429": "Throttled (AGENTMEMORY['THROTTLE_RATE']).",
    "500": "Unexpected error (logged).", "503": "A backend or the database is unavailable.",
}


class AgentMemoryAutoSchema(AutoSchema):
    """The schema class of the app's views: drf-spectacular's, whatever the host's DEFAULT_SCHEMA_CLASS.

    The app's endpoints are documented in the app's own schema; a host generating its own schema
    (its schema view, drf-spectacular's deploy check) does not get them unless it asks with
    AGENTMEMORY['INCLUDE_IN_HOST_SCHEMA'], so the app adds nothing to the host's warnings.
    """

    def is_excluded(self) -> bool:
        from drf_spectacular.settings import spectacular_settings

        from ..conf import app_settings

        own = only_agentmemory_endpoints in (spectacular_settings.PREPROCESSING_HOOKS or [])
        if not own and not app_settings.INCLUDE_IN_HOST_SCHEMA:
            return True
        return super().is_excluded()

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code, description in ERROR_RESPONSES.items():
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                responses[code]["description"] = description
        return responses


def extend_schema(**kwargs):
    """drf-spectacular's extend_schema, built on its AutoSchema whatever the host's DEFAULT_SCHEMA_CLASS.

    The stock decorator subclasses the host's default schema class at import time; under DRF's own
    class that breaks schema generation of the decorated view.
    """
    def decorator(func):
        func.schema = AgentMemoryAutoSchema
        return _extend_schema(**kwargs)(func)
    return decorator


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "agentmemory.api.authentication.ApiKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An agentmemory API key (`agentmemory_create_api_key NAME`), sent as "
                           "`Authorization: Bearer am_...`.",
        }


def only_agentmemory_endpoints(endpoints):
    """Preprocessing hook: keep the app's own views, wherever the host mounted them.

    The app's views are the ones documented by its schema class (``AgentMemoryAPIView.schema``, kept by
    ``extend_schema`` below), so this module needs no view class.
    """
    return [e for e in endpoints if _is_ours(e[-1])]


def _is_ours(callback) -> bool:
    cls = getattr(callback, "cls", None)
    return isinstance(cls, type) and isinstance(getattr(cls, "schema", None), AgentMemoryAutoSchema)


SCHEMA_SETTINGS = {
    "TITLE": "agentmemory API",
    "DESCRIPTION": "Memory of users and a citable knowledge base for LLM agents. Authenticate with an "
                   "API key (`Authorization: Bearer <key>`) or a Django session.",
    "VERSION": __version__,
    "AUTHENTICATION_WHITELIST": None,
    "PARSER_WHITELIST": None,
    "RENDERER_WHITELIST": None,
    "PREPROCESSING_HOOKS": ["agentmemory.api.schema.only_agentmemory_endpoints"],
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums"],
    "SCHEMA_PATH_PREFIX": None,
    "COMPONENT_SPLIT_REQUEST": False,
    # Several models have a "status": name each enum after its model, not a hash.
    "ENUM_NAME_OVERRIDES": {
        "MemoryStatusEnum": "agentmemory.models.memory.MemoryItem.Status",
        "SessionStatusEnum": "agentmemory.models.working.Session.Status",
        "ExtractionRunStatusEnum": "agentmemory.models.working.ExtractionRun.Status",
        "DocumentStatusEnum": "agentmemory.models.knowledge.Document.Status",
        "DocumentVersionStatusEnum": "agentmemory.models.knowledge.DocumentVersion.Status",
        "ChunkStatusEnum": "agentmemory.models.knowledge.Chunk.Status",
        "ImportJobStatusEnum": "agentmemory.models.knowledge.ImportJob.Status",
    },
    "SECURITY": [],
    "SERVERS": [],
}


def generate_schema(request=None) -> dict:
    """The app's OpenAPI document (the same one the schema endpoint serves)."""
    with patched_settings(SCHEMA_SETTINGS):
        return SchemaGenerator().get_schema(request=request, public=True)


class SchemaView(SpectacularAPIView):
    """The OpenAPI 3 schema of the agentmemory API (YAML, or JSON with ?format=json)."""

    authentication_classes: list = []
    permission_classes: list = []
    throttle_classes: list = []
    renderer_classes = [OpenApiYamlRenderer, OpenApiJsonRenderer]
    custom_settings = SCHEMA_SETTINGS
    urlconf = None
    serve_public = True
    schema = None  # not itself part of any schema (the host's included)

    def get_exception_handler(self):
        from .errors import exception_handler

        return exception_handler


_SIDECAR_FILES = ("swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png")


def _sidecar_dir() -> Path:
    import drf_spectacular_sidecar

    return Path(drf_spectacular_sidecar.__file__).parent / "static" / "drf_spectacular_sidecar" / "swagger-ui-dist"


def swagger_ui(request):
    """Swagger UI for the app's schema; "Authorize" takes an API key."""
    namespace = (request.resolver_match.namespace if request.resolver_match else "") or "agentmemory"
    asset = reverse(f"{namespace}:swagger-asset", args=["swagger-ui.css"])
    return render(request, "agentmemory/swagger_ui.html", {
        "title": SCHEMA_SETTINGS["TITLE"],
        "schema_url": reverse(f"{namespace}:schema") + "?format=json",
        "asset_base": asset[: -len("swagger-ui.css")],
    })


def swagger_asset(request, name: str):
    """One of Swagger UI's files from the installed sidecar package (served in any DEBUG mode)."""
    if name not in _SIDECAR_FILES:
        raise Http404(name)
    path = _sidecar_dir() / name
    response = FileResponse(path.open("rb"), content_type=mimetypes.guess_type(name)[0] or "application/octet-stream")
    response["Cache-Control"] = "public, max-age=86400"
    return response

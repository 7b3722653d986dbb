"""One JSON error shape for the API: {"error": code, "detail": message, "field"?: name}."""
from __future__ import annotations

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ..exceptions import (
    AgentMemoryError,
    BackendError,
    ConfigurationError,
    EmbeddingModelMismatch,
    InvalidInput,
    NotFound,
)


def exception_handler(exc, context):
    """DRF's handler, plus agentmemory's own errors mapped to clear 4xx/5xx JSON bodies."""
    if isinstance(exc, InvalidInput):
        body = {"error": "invalid", "detail": exc.detail}
        if exc.field:
            body["field"] = exc.field
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, NotFound):
        return Response({"error": "not_found", "detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, EmbeddingModelMismatch):
        return Response({"error": "embedding_model_mismatch", "detail": str(exc)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, ConfigurationError):
        return Response({"error": "misconfigured", "detail": str(exc)}, status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    if isinstance(exc, BackendError):
        return Response({"error": "backend_unavailable", "detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
    if isinstance(exc, AgentMemoryError):
        return Response({"error": "error", "detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "detail" in response.data:
        code = getattr(response.data["detail"], "code", None) or "error"
        response.data = {"error": str(code), "detail": str(response.data["detail"])}
    elif response is not None and response.status_code == 400:
        response.data = {"error": "invalid", "detail": _flatten(response.data), "fields": response.data}
    return response


def _flatten(data) -> str:
    if isinstance(data, dict):
        return "; ".join(f"{k}: {_flatten(v)}" for k, v in data.items())
    if isinstance(data, list):
        return " ".join(_flatten(v) for v in data)
    return str(data)

"""One JSON error envelope for every failure of the app's API, whatever the host's DEBUG is.

``{"error": code, "detail": message}``, plus ``"field"`` (the first offending field) and ``"fields"``
(every offending field with its messages) on validation errors. 4xx for the caller's mistakes (a document
in an unsupported format 415, one over the size limits 413), 503 when
a backend or the database is unavailable, 500 (logged, with no internals in the body) for the rest.
"""
from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.db import DatabaseError, DataError, InterfaceError, OperationalError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from ..exceptions import (
    AccessDenied,
    AgentMemoryError,
    BackendError,
    ConfigurationError,
    EmbeddingModelMismatch,
    InvalidInput,
    NotFound,
)
from ..knowledge.parse import DocumentTooLarge, UnsupportedFormat

logger = logging.getLogger("agentmemory.api")


def error_body(code: str, detail: str, *, field: str | None = None, fields: dict | None = None) -> dict:
    body: dict = {"error": code, "detail": detail}
    if field or fields:
        fields = fields or {field: [detail]}
        body["field"] = field or next(iter(fields))
        body["fields"] = fields
    return body


def error_response(code: str, detail: str, status_code: int, **kwargs) -> Response:
    return Response(error_body(code, detail, **kwargs), status=status_code)


#: The app's own exceptions, most specific first: (class, error code, status).
_APP_ERRORS: list[tuple[type[Exception], str, int]] = [
    (UnsupportedFormat, "unsupported_media_type", 415),  # kinds of InvalidInput: before it
    (DocumentTooLarge, "too_large", 413),
    (InvalidInput, "invalid", 400),
    (NotFound, "not_found", 404),
    (AccessDenied, "permission_denied", 403),
    (EmbeddingModelMismatch, "embedding_model_mismatch", 409),
    (ConfigurationError, "misconfigured", 500),
    (BackendError, "backend_unavailable", 503),
    (AgentMemoryError, "error", 400),
]


def exception_handler(exc, context):
    """Map every exception raised in the app's views to the envelope."""
    set_rollback()  # under ATOMIC_REQUESTS, a failed request writes nothing
    for kind, code, status_code in _APP_ERRORS:
        if isinstance(exc, kind):
            if kind is ConfigurationError:
                logger.error("agentmemory is misconfigured: %s", exc)
            if isinstance(exc, InvalidInput):
                return error_response(code, exc.detail, status_code, field=exc.field)
            return error_response(code, str(exc), status_code)
    if isinstance(exc, RequestDataTooBig):
        return error_response("too_large", "The request body is larger than the server accepts "
                              "(DATA_UPLOAD_MAX_MEMORY_SIZE); files go as multipart uploads.", 413)
    if isinstance(exc, TooManyFieldsSent):
        return error_response("invalid", "Too many form fields.", 400)
    if isinstance(exc, DataError):
        # A value PostgreSQL cannot store or compare (out of range, invalid text): the caller's input.
        logger.warning("database rejected a value: %s", exc)
        return error_response("invalid", "A value is out of range or cannot be stored.", 400)
    if isinstance(exc, OperationalError | InterfaceError):
        logger.error("database unavailable: %s", exc)
        response = error_response("database_unavailable", "The database is unavailable; try again shortly.", 503)
        response["Retry-After"] = "5"
        return response
    if isinstance(exc, SuspiciousOperation):
        return error_response("bad_request", "The request was refused as malformed.", 400)

    response = drf_exception_handler(exc, context)
    if response is None:
        view = context.get("view")
        logger.exception("unhandled error in %s", type(view).__name__ if view else "agentmemory API", exc_info=exc)
        if isinstance(exc, DatabaseError):
            return error_response("database_error", "The database failed to answer this request.", 503)
        return error_response("server_error", "An unexpected error occurred; it has been logged.", 500)
    data = response.data
    if isinstance(data, dict) and "detail" in data and len(data) == 1:
        code = getattr(data["detail"], "code", None) or "error"
        response.data = error_body(str(code), str(data["detail"]))
    elif response.status_code == status.HTTP_400_BAD_REQUEST:
        fields = data if isinstance(data, dict) else {"non_field_errors": data}
        response.data = error_body("invalid", _flatten(fields), fields=_plain(fields))
    return response


def _plain(data):
    if isinstance(data, dict):
        return {str(k): _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return str(data)


def _flatten(data) -> str:
    if isinstance(data, dict):
        return "; ".join(f"{k}: {_flatten(v)}" for k, v in data.items())
    if isinstance(data, list):
        return " ".join(_flatten(v) for v in data)
    return str(data)

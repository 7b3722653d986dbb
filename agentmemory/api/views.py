"""Foundation endpoints: who am I (an authenticated ping) and service health."""
from __future__ import annotations

from django.db import connection
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import __version__
from .permissions import api_key_of


class WhoAmIView(APIView):
    """Tell the caller how it is authenticated; a cheap way to test an API key."""

    @extend_schema(responses={200: dict})
    def get(self, request):
        key = api_key_of(request)
        if key is not None:
            body = {"auth": "api_key", "name": key.name, "agent_ids": key.agent_ids}
        else:
            body = {"auth": "session", "username": request.user.get_username()}
        return Response({**body, "version": __version__})


class HealthView(APIView):
    """Liveness of the API and its database; open to anyone, reveals nothing."""

    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(responses={200: dict})
    def get(self, request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
        return Response({"status": "ok", "pgvector": row[0] if row else None, "version": __version__})

"""The app documents its endpoints in its own schema; a host's schema gets them only when it asks."""
from __future__ import annotations

from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator

from agentmemory.api.schema import generate_schema


def _host_schema_paths() -> set[str]:
    # What a host's own drf-spectacular schema view or deploy check generates.
    return set(SchemaGenerator().get_schema(request=None, public=True).get("paths", {}))


def test_the_apps_schema_has_every_endpoint_with_the_key_scheme():
    schema = generate_schema()
    paths = schema["paths"]
    assert "/api/agentmemory/context/" in paths and "/api/agentmemory/users/{user_id}/memories/" in paths
    assert "/api/agentmemory/schema/" not in paths  # the schema view documents others, not itself
    secured = [op for item in paths.values() for op in item.values() if isinstance(op, dict) and "security" in op]
    assert secured and all({"ApiKeyAuth": []} in op["security"] for op in secured)


def test_a_hosts_schema_gets_the_apps_endpoints_only_when_it_asks():
    assert not any(p.startswith("/api/agentmemory/") for p in _host_schema_paths())
    with override_settings(AGENTMEMORY={"INCLUDE_IN_HOST_SCHEMA": True}):
        assert "/api/agentmemory/context/" in _host_schema_paths()

"""Property-based API tests: schemathesis over the app's own OpenAPI schema, against a live server.

Bounded and deterministic (a fixed number of examples per operation, derandomized); the longer run is
`manage.py agentmemory_fuzz_api`. Every response must be no 5xx, JSON where the schema says JSON, with
a status code the schema documents and a body that conforms to it.
"""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from agentmemory.api.schema import generate_schema

schema = schemathesis.openapi.from_dict(generate_schema())
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def world(transactional_db, live_server):
    """A key that may do everything, a knowledge base with a document, a user with a memory and a session."""
    from agentmemory.api_keys import create_api_key
    from agentmemory.knowledge.ingest import create_import_job, prepare_document, run_import_job
    from agentmemory.memory.write import write_memory
    from agentmemory.models import KnowledgeBase
    from agentmemory.types import MemoryDraft
    from agentmemory.working.sessions import append_turn, create_session

    _key, raw = create_api_key("fuzz")
    kb = KnowledgeBase.objects.create(slug="kb", name="KB")
    job = create_import_job(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content="# A\nA 的电压是 12V。"),
                            title="A", fmt="markdown")
    run_import_job(job.pk)
    write_memory("u", MemoryDraft(content="公司在杭州", type="fact", key="city", source="user_stated"))
    append_turn(create_session(user_id="u"), role="user", content="你好")
    return live_server.url, {"Authorization": f"Bearer {raw}"}


@schema.parametrize()
@settings(max_examples=6, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case, world):
    base_url, headers = world
    case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS, timeout=60)

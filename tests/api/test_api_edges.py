"""Bad input at the edge: always a JSON envelope, never a 5xx or an HTML page, whatever DEBUG is."""
from __future__ import annotations

import json

import pytest
from django.test import override_settings

from agentmemory.knowledge.ingest import create_import_job, prepare_document, run_import_job
from agentmemory.models import KnowledgeBase
from agentmemory.working.sessions import create_session

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def _envelope(response, status: int) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) >= {"error", "detail"}, body
    return body


@pytest.fixture
def kb(db):
    kb = KnowledgeBase.objects.create(slug="kb", name="KB")
    parsed = prepare_document(fmt="markdown", content="# A\nA-1 的电压是 12V。")
    job = create_import_job(knowledge_base=kb, parsed=parsed, title="A", fmt="markdown")
    return kb, run_import_job(job.pk)["document_id"]


@pytest.mark.parametrize("method,path", [
    ("get", "users/%00/memories/"), ("post", "users/a%00b/memories/"), ("get", "users/%00/profile/"),
    ("delete", "users/%00/"), ("get", "sessions/?user_id=%00"), ("get", "users/u/memories/?key=%00"),
])
def test_nul_in_path_or_query_is_a_400(api_client, method, path):
    body = _envelope(getattr(api_client, method)(API + path, *([{}] if method == "post" else []),
                                                 **({"format": "json"} if method == "post" else {})), 400)
    assert body["error"] == "invalid"


def test_nul_inside_json_fields_is_a_400_naming_the_field(api_client, kb):
    session = create_session(user_id="u")
    cases = [
        ("post", "users/u/memories/", {"content": "住在杭州", "type": "fact", "source": "user_stated",
                                       "value": {"city": "杭\u0000州"}}, "value.city"),
        ("post", "knowledge-bases/kb/documents/", {"title": "B", "content": "# B\nb", "metadata": {"k\u0000": 1}},
         "metadata.k\u0000"),
        ("post", "sessions/", {"user_id": "u", "metadata": {"tags": ["ok", "x\u0000"]}}, "metadata.tags[1]"),
        ("post", f"sessions/{session.pk}/turns/", {"role": "user", "content": "hi", "metadata": {"a": "\u0000"}},
         "metadata.a"),
        ("patch", f"sessions/{session.pk}/", {"task_state": {"step": "\u0000"}}, "task_state.step"),
        ("post", "context/", {"user_id": "u", "query": "\ud800"}, "query"),
    ]
    for method, path, payload, field in cases:
        # json.dumps escapes (\\u0000, \\ud800) as a client would send them
        raw = json.dumps(payload)
        body = _envelope(getattr(api_client, method)(API + path, raw, content_type="application/json"), 400)
        assert body.get("field") == field, (path, body)
        assert body["fields"] == {field: [body["detail"]]}


def test_integers_out_of_range_are_400_or_404(api_client, kb):
    _kb, document_id = kb
    huge = "99999999999999999999"
    assert _envelope(api_client.get(f"{API}users/u/memories/?offset={huge}"), 400)["field"] == "offset"
    assert _envelope(api_client.get(f"{API}knowledge-bases/kb/documents/?offset={huge}"), 400)["field"] == "offset"
    assert _envelope(api_client.get(f"{API}knowledge-bases/kb/documents/{document_id}/chunks/?version={huge}"),
                     400)["field"] == "version"
    _envelope(api_client.get(f"{API}users/u/memories/{huge}/"), 404)
    _envelope(api_client.get(f"{API}knowledge-bases/kb/documents/{huge}/"), 404)
    _envelope(api_client.get(f"{API}import-jobs/{huge}/"), 404)
    session = create_session(user_id="u")
    assert _envelope(api_client.get(f"{API}sessions/{session.pk}/turns/?after={huge}"), 400)["field"] == "after"
    assert _envelope(api_client.post(f"{API}knowledge-bases/kb/documents/{document_id}/rollback/",
                                      {"version": int(huge)}, format="json"), 400)["field"] == "version"


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=50_000)
def test_bodies_over_the_limit_are_413_json_everywhere(api_client, kb):
    big = "很长" * 30_000
    for path, payload in [("users/u/memories/", {"content": big, "type": "fact", "source": "user_stated"}),
                          ("context/", {"user_id": "u", "query": big}),
                          ("knowledge-bases/kb/documents/", {"title": "Big", "content": big}),
                          ("sessions/", {"user_id": "u", "metadata": {"x": big}})]:
        assert _envelope(api_client.post(API + path, payload, format="json"), 413)["error"] == "too_large"


def test_malformed_bodies_are_400(api_client):
    deep = {"task": {}}
    node = deep["task"]
    for _ in range(40):
        node["n"] = {}
        node = node["n"]
    session = create_session(user_id="u")
    body = _envelope(api_client.patch(f"{API}sessions/{session.pk}/", {"task_state": deep}, format="json"), 400)
    assert "nests deeper" in body["detail"]
    assert _envelope(api_client.post(f"{API}users/u/memories/", b"{\"content\": \"\xff\xfe\"}",
                                     content_type="application/json"), 400)["error"] == "parse_error"
    assert _envelope(api_client.post(f"{API}users/u/memories/", b"{not json", content_type="application/json"),
                     400)["error"] == "parse_error"
    assert _envelope(api_client.post(f"{API}context/", "[" * 100_000, content_type="application/json"),
                     400)["error"] in ("invalid", "parse_error")


@pytest.mark.parametrize("debug", [False, True])
def test_unknown_routes_and_methods_are_json_whatever_debug_is(api_client, debug):
    with override_settings(DEBUG=debug):
        for path in ("nope/", "users/u/memories/abc/", "users/u/memories/1/nope/", "sessions/x/y/z/"):
            assert _envelope(api_client.get(API + path), 404)["error"] == "not_found"
        assert _envelope(api_client.post(API + "nope/", {}, format="json"), 404)["error"] == "not_found"
        assert _envelope(api_client.put(API + "whoami/", {}, format="json"), 405)["error"] == "method_not_allowed"
        assert _envelope(api_client.delete(API + "context/"), 405)["error"] == "method_not_allowed"


def test_an_unexpected_error_is_a_logged_500_envelope(api_client, monkeypatch, caplog):
    from agentmemory.api import memory_views

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(memory_views, "get_profile", broken)
    with override_settings(DEBUG=True):
        body = _envelope(api_client.get(f"{API}users/u/profile/"), 500)
    assert body == {"error": "server_error", "detail": "An unexpected error occurred; it has been logged."}
    assert "secret internals" in caplog.text


def test_validation_errors_carry_field_and_fields(api_client):
    body = _envelope(api_client.post(f"{API}users/u/memories/", {"type": "fact"}, format="json"), 400)
    assert body["error"] == "invalid" and body["field"] == "content" and "content" in body["fields"]

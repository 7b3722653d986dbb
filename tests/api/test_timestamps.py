"""One timestamp convention in every API answer: ISO 8601 in UTC with a Z, whatever the host's TIME_ZONE."""
from __future__ import annotations

import re

import pytest
from django.test import override_settings
from django.utils import timezone

API = "/api/agentmemory/"
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$")
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _imports_run_in_the_request(eager_celery):
    """Imports answer with their result (no broker), whatever worker tests earlier in the run switched."""


def _timestamps(value, path=""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _timestamps(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _timestamps(item, f"{path}[{i}]")
    elif isinstance(value, str) and TIMESTAMP.match(value):
        yield path, value


@override_settings(TIME_ZONE="Asia/Shanghai")
def test_every_answer_writes_times_in_utc_with_a_z(api_client):
    timezone.activate("Asia/Shanghai")  # as a host's timezone middleware would
    try:
        answers = []

        def call(method, path, body=None, ok=(200, 201)):
            response = getattr(api_client, method)(API + path, body, format="json")
            assert response.status_code in ok, (path, response.content[:300])
            answers.append((path, response.json()))
            return response.json()

        call("post", "knowledge-bases/", {"slug": "kb", "name": "kb", "publish_gate": True})
        imported = call("post", "knowledge-bases/kb/documents/", {"external_id": "d", "content": "# 手册\n## 保修\n保修两年。"})
        call("get", f"knowledge-bases/kb/documents/{imported['document_id']}/")
        call("get", f"import-jobs/{imported['job']}/")
        memory = call("post", "users/alice/memories/", {"content": "我住在杭州", "type": "fact", "key": "location", "source": "user_stated"})
        call("get", f"users/alice/memories/{memory['memory']['id']}/history/")
        session = call("post", "sessions/", {"user_id": "alice"})
        call("post", f"sessions/{session['id']}/turns/", {"role": "user", "content": "我下周去上海出差"})
        call("get", f"sessions/{session['id']}/")
        call("post", "context/", {"user_id": "alice", "query": "我住在哪里？"})
        call("get", "users/alice/profile/")
        call("get", "whoami/")
        call("post", "v1/memories/", {"messages": "我喜欢喝乌龙茶", "user_id": "alice", "infer": False})
        call("get", "v1/memories/?user_id=alice")
        call("post", "tools/call/", {"name": "recall", "arguments": {"user_id": "alice", "query": "杭州"}})
    finally:
        timezone.deactivate()

    seen = [(path, where, value) for path, body in answers for where, value in _timestamps(body)]
    assert len(seen) >= 15 and {path for path, _w, _v in seen} >= {"knowledge-bases/", "sessions/", "context/"}
    wrong = [(path, where, value) for path, where, value in seen if not value.endswith("Z")]
    assert not wrong, wrong[:10]

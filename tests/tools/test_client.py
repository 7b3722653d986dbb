"""The Python client against a live server: mem0 verbs, typed errors, retries on 503 with Retry-After."""
from __future__ import annotations

import http.server
import json
import threading

import anyio
import pytest

from agentmemory.api_keys import create_api_key
from agentmemory.client import (
    AgentMemory,
    AsyncAgentMemory,
    BadRequestError,
    Memory,
    NotFoundError,
    PermissionDeniedError,
    ServerError,
)

pytestmark = pytest.mark.django_db(transaction=True)
SAY = [{"role": "user", "content": "我们公司是做母婴用品的"}, {"role": "assistant", "content": "好的，记下了。"}]


@pytest.fixture
def api(live_server):
    _key, raw = create_api_key("client-test")
    return f"{live_server.url}/api/agentmemory", raw


def test_mem0_verbs_round_trip_with_the_sync_client(api):
    url, key = api
    with AgentMemory(url, key) as m:
        added = m.add(SAY, user_id="u1")
        assert [r.event for r in added["results"]] == ["ADD"]
        industry = added["results"][0]
        assert isinstance(industry, Memory) and "母婴用品" in industry.memory and industry.source == "user_stated"
        hits = m.search("帮我写一封营销邮件", user_id="u1")
        assert hits[0].id == industry.id and hits[0].score is not None
        assert [x.id for x in m.get_all(user_id="u1")] == [industry.id]
        assert m.get(industry.id).memory == industry.memory
        updated = m.update(industry.id, "我们公司是做跨境电商的")
        assert updated.event == "UPDATE" and updated.supersedes == industry.id
        events = [h["event"] for h in m.history(updated.id)]
        assert events == ["ADD", "UPDATE"]
        stored = m.add("记住我喜欢简短的回答", user_id="u1", infer=False)
        assert stored["results"][0].event == "ADD"
        assert m.delete(stored["results"][0].id)["message"].startswith("Memory deleted")
        assert m.delete_all(user_id="u1")["deleted"] == 1
        assert m.get_all(user_id="u1") == []
        # add as a job: 202 with the extraction to poll (done at once without a broker, by the worker with one).
        queued = m.add([{"role": "user", "content": "我们团队有十二个人"}], user_id="u1", async_mode=True)
        assert queued["status"] == "queued" and queued["poll"].endswith("/extraction/")
        report = m.extraction(queued["session_id"])
        assert report["runs"][0]["id"] == queued["run_id"] and report["status"] in ("pending", "succeeded")
        # The rest of the API is there too.
        assert m.whoami()["name"] == "client-test"
        session = m.create_session("u1")
        m.add_turn(session["id"], "user", "我们的预算是五万元")
        assert "五万" in m.context("u1", "预算是多少？", session_id=session["id"]).prompt
        assert {t["function"]["name"] for t in m.tools()} >= {"remember", "recall"}


def test_the_async_client_does_the_same(api):
    url, key = api

    async def main():
        async with AsyncAgentMemory(url, key) as m:
            added = await m.add(SAY, user_id="u2")
            hits = await m.search("帮我写一封营销邮件", user_id="u2")
            context = await m.context("u2", "我们公司做什么？")
            return added, hits, context

    added, hits, context = anyio.run(main)
    assert hits and hits[0].id == added["results"][0].id
    assert "母婴用品" in context.prompt


def test_errors_are_typed_and_carry_the_api_body(api):
    url, _key = api
    _limited, raw = create_api_key("u9-phone", scopes=["read"], user_ids=["u9"])
    with AgentMemory(url, raw) as m:
        with pytest.raises(PermissionDeniedError) as denied:
            m.search("x", user_id="someone-else")
        assert denied.value.status == 403 and denied.value.error == "permission_denied"
        with pytest.raises(PermissionDeniedError):
            m.add("x", user_id="u9")  # read-only key
        with pytest.raises(NotFoundError):
            m.get(999_999)
        with pytest.raises(BadRequestError) as bad:
            m.search("", user_id="u9")
        assert bad.value.field == "query"


class _Flaky(http.server.BaseHTTPRequestHandler):
    """A server that is unavailable (503, Retry-After: 0) for its first N answers, then answers."""

    failures = 2
    seen = 0

    def do_GET(self):
        type(self).seen += 1
        if type(self).seen <= type(self).failures:
            body, status = {"error": "database_unavailable", "detail": "try again"}, 503
        else:
            body, status = {"auth": "api_key", "name": "flaky"}, 200
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Retry-After", "0")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_503_is_retried_honouring_retry_after_then_raises():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/api"
    try:
        _Flaky.seen, _Flaky.failures = 0, 2
        assert AgentMemory(url, "am_x", max_retries=3).whoami()["name"] == "flaky"
        assert _Flaky.seen == 3
        _Flaky.seen, _Flaky.failures = 0, 10
        with pytest.raises(ServerError) as failed:
            AgentMemory(url, "am_x", max_retries=2).whoami()
        assert failed.value.status == 503 and failed.value.error == "database_unavailable" and _Flaky.seen == 3
    finally:
        server.shutdown()


def test_the_review_queue_and_proposed_checks_through_the_client(api, eager_celery):
    url, key = api
    with AgentMemory(url, key) as m:
        kb = m.create_knowledge_base("gated", "gated", publish_gate=True, propose_checks=True)
        assert (kb["publish_gate"], kb["propose_checks"], kb["duplicate_policy"]) == (True, True, "keep")
        first = m.import_text("gated", "# 售后\n## 保修\n本产品保修两年。\n## 退货\n七天内可以退货。",
                              title="售后", external_id="service")
        assert first["publication"] == "published"
        proposed = m.evaluation_cases("gated", status="proposed")
        warranty = next(c for c in proposed if c["query"] == "保修")
        assert m.accept_evaluation_case("gated", warranty["id"])["accepted"] is True
        held = m.import_text("gated", "# 售后\n## 退货\n七天内可以退货。\n## 配送\n当日送达。", title="售后",
                             external_id="service")
        assert held["publication"] == "held"
        assert [q["version"] for q in m.held_versions("gated")] == [2]
        assert m.publish_version("gated", first["document_id"])["version"] == 2
        with pytest.raises(BadRequestError):
            m.discard_version("gated", first["document_id"], 2)
        assert m.propose_evaluation_cases("gated") is not None


def test_the_ledger_and_feedback_through_the_client(api):
    url, key = api
    with AgentMemory(url, key) as m:
        m.add([{"role": "user", "content": "我在阿里巴巴工作"}], user_id="lin")
        context = m.context("lin", "我在哪家公司工作？")
        assert context.context_id and m.contexts("lin")[0]["id"] == context.context_id
        memory = next(i for s in ("profile", "long_term_memory") for i in context.sections[s]
                      if "阿里巴巴" in i["text"])
        answer = m.feedback(context.context_id, -1, [memory["label"]], correction="我现在在腾讯工作")
        assert answer["effects"][0]["action"] == "corrected"
        assert m.context_record(context.context_id)["feedback"][0]["id"] == answer["id"]
        assert "腾讯" in m.context("lin", "我在哪家公司工作？").prompt
        assert m.token_usage("lin")[0]["contexts"] == 2
        with pytest.raises(BadRequestError):
            m.feedback(context.context_id, 2)

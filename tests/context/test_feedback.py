"""Feedback on a recorded context through REST: a negative mark lowers a memory's confidence and then sends it to
review, a correction supersedes it as the user's own statement, a mark on a knowledge chunk proposes an
evaluation case; the admin shows the feedback per item; token figures per user and day add up."""
from __future__ import annotations

import pytest

from agentmemory.api_keys import create_api_key
from agentmemory.memory.review import approve_memory
from agentmemory.memory.write import write_memory
from agentmemory.models import ContextFeedback, EvaluationCase, MemoryItem
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db
API = "/api/agentmemory/"


def _fact(user: str, text: str, key: str, *, confidence: float = 0.9, source: str = "user_stated") -> int:
    return write_memory(user, MemoryDraft(content=text, type="fact", key=key, source=source,
                                          confidence=confidence)).memory_id


def _context(api_client, user: str, query: str, **extra) -> dict:
    response = api_client.post(f"{API}context/", {"user_id": user, "query": query, **extra}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _marker(body: dict, memory_id: int) -> str:
    for section in ("profile", "long_term_memory"):
        for item in body["sections"][section]:
            if item["ref"].get("memory_id") == memory_id:
                return item["label"]
    raise AssertionError(f"memory {memory_id} not in the context")


def _feedback(api_client, context_id: int, **body):
    return api_client.post(f"{API}contexts/{context_id}/feedback/", body, format="json")


def test_negative_feedback_lowers_a_memory_then_sends_it_to_review(api_client):
    pet = _fact("fiona", "用户养了一只叫年糕的猫", "pet", confidence=0.9)
    body = _context(api_client, "fiona", "我的猫叫什么名字？")
    marker = _marker(body, pet)
    response = _feedback(api_client, body["context_id"], rating=-1, items=[marker], comment="不是这只猫")
    assert response.status_code == 201, response.content
    assert response.json()["effects"] == [{"marker": marker, "memory_id": pet, "action": "lowered",
                                           "confidence": 0.7}]
    assert MemoryItem.objects.for_user("fiona").get(pk=pet).confidence == pytest.approx(0.7)

    body = _context(api_client, "fiona", "我的猫叫什么名字？")
    effects = _feedback(api_client, body["context_id"], rating=-1, items=[_marker(body, pet)]).json()["effects"]
    assert effects[0]["action"] == "review"  # 0.5 is below FEEDBACK_REVIEW_BELOW: out of the prompt
    item = MemoryItem.objects.for_user("fiona").get(pk=pet)
    assert item.status == "quarantined"
    assert "年糕" not in _context(api_client, "fiona", "我的猫叫什么名字？")["prompt"]
    # The operator's approval brings it back as it was written (no quoting: it never instructed anyone).
    approve_memory("fiona", pet)
    assert MemoryItem.objects.for_user("fiona").get(pk=pet).content == "用户养了一只叫年糕的猫"
    assert "年糕" in _context(api_client, "fiona", "我的猫叫什么名字？")["prompt"]


def test_a_correction_supersedes_the_marked_memory_as_the_users_own_words(api_client):
    employer = _fact("gao", "用户在阿里巴巴工作", "employer", source="model_inferred", confidence=0.7)
    body = _context(api_client, "gao", "我在哪家公司工作？")
    marker = _marker(body, employer)
    response = _feedback(api_client, body["context_id"], rating=-1, items=[marker], correction="我现在在腾讯工作")
    assert response.status_code == 201, response.content
    effect = response.json()["effects"][0]
    assert effect["action"] == "corrected" and effect["corrects"] == employer
    new = MemoryItem.objects.for_user("gao").get(pk=effect["memory_id"])
    assert (new.content, new.source, new.status, new.key) == ("我现在在腾讯工作", "user_stated", "active", "employer")
    assert MemoryItem.objects.for_user("gao").get(pk=employer).status == "superseded"
    prompt = _context(api_client, "gao", "我在哪家公司工作？")["prompt"]
    assert "腾讯" in prompt and "阿里巴巴" not in prompt

    # The ledger shows the feedback with the context.
    row = api_client.get(f"{API}contexts/{body['context_id']}/").json()
    assert row["feedback"][0]["items"] == [marker] and row["feedback"][0]["correction"] == "我现在在腾讯工作"


def test_a_correction_without_a_marked_memory_is_kept_for_the_user(api_client):
    body = _context(api_client, "hana", "What is my job title?")
    response = _feedback(api_client, body["context_id"], rating=-1, correction="I am a data engineer at Stripe.")
    assert response.status_code == 201, response.content
    effect = response.json()["effects"][0]
    assert effect["action"] == "correction_created"
    assert MemoryItem.objects.for_user("hana").get(pk=effect["memory_id"]).source == "user_stated"
    assert "Stripe" in _context(api_client, "hana", "Where do I work?")["prompt"]


def test_a_mark_on_a_knowledge_chunk_proposes_an_evaluation_case(api_client, eager_celery):
    assert api_client.post(f"{API}knowledge-bases/", {"slug": "hr", "name": "HR"}, format="json").status_code == 201
    for title, text in (("年假制度", "# 年假\n\n员工入职满一年后每年享有10天带薪年假，需提前三天申请。"),
                        ("报销制度", "# 差旅报销\n\n出差住宿每晚不超过500元，凭发票在30天内报销。")):
        response = api_client.post(f"{API}knowledge-bases/hr/documents/", {"title": title, "content": text},
                                   format="json")
        assert response.status_code in (200, 201, 202), response.content
    body = _context(api_client, "ivan", "年假有几天？", knowledge_bases=["hr"])
    chunks = body["sections"]["knowledge"]
    assert chunks, body["trace"]
    marker, chunk_id = chunks[0]["label"], chunks[0]["ref"]["chunk_id"]
    effects = _feedback(api_client, body["context_id"], rating=-1, items=[marker]).json()["effects"]
    assert effects[0]["action"] == "case_proposed"
    case = EvaluationCase.objects.get(pk=effects[0]["evaluation_case_id"])
    assert (case.query, case.rejected_chunk_ids, case.accepted, case.source) == ("年假有几天？", [chunk_id], False,
                                                                                 "feedback")
    listed = api_client.get(f"{API}knowledge-bases/hr/evaluation-cases/?status=proposed").json()
    assert any(c["id"] == case.pk and c["rejected_chunk_ids"] == [chunk_id] for c in listed)
    # Accepting needs what should answer it.
    accept = f"{API}knowledge-bases/hr/evaluation-cases/{case.pk}/accept/"
    refused = api_client.post(accept, {}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "expected_chunk_ids"
    other = next(c["ref"]["chunk_id"] for c in chunks[1:]) if len(chunks) > 1 else chunk_id
    accepted = api_client.post(accept, {"expected_chunk_ids": [other]}, format="json")
    assert accepted.status_code == 200 and accepted.json()["accepted"] is True


def test_bad_feedback_gets_a_clear_error_and_other_users_contexts_are_hidden(api_client, client):
    _fact("jade", "用户住在苏州", "city")
    body = _context(api_client, "jade", "我住在哪？")
    context_id = body["context_id"]
    for payload, field in (({"items": []}, "rating"), ({"rating": 0}, "rating"), ({"rating": True}, "rating"),
                           ({"rating": -1, "items": ["M99"]}, "items"), ({"rating": -1, "items": "M1"}, "items"),
                           ({"rating": 1, "correction": "其实在杭州"}, "correction")):
        response = _feedback(api_client, context_id, **payload)
        assert response.status_code == 400, (payload, response.content)
        assert response.json()["field"] == field, payload
    assert not ContextFeedback.objects.exists()
    _key, raw = create_api_key("kai-device", scopes=["read", "write"], user_ids=["kai"])
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    hidden = client.post(f"{API}contexts/{context_id}/feedback/", {"rating": -1}, content_type="application/json",
                         **auth)
    assert hidden.status_code == 404
    _key, raw = create_api_key("jade-device", scopes=["read", "write"], user_ids=["jade"])
    own = client.post(f"{API}contexts/{context_id}/feedback/", {"rating": 1}, content_type="application/json",
                      HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert own.status_code == 201 and own.json()["actor"] == "api_key:jade-device"


def test_token_figures_per_user_and_day_add_up_to_the_contexts(api_client, admin_client):
    _fact("lena", "用户在成都工作", "city")
    totals = [_context(api_client, "lena", q)["token_counts"]["total"] for q in ("我在哪工作", "帮我写封信", "成都天气")]
    _context(api_client, "mo", "你好")
    usage = api_client.get(f"{API}contexts/usage/?user_id=lena").json()
    assert len(usage) == 1 and usage[0]["contexts"] == 3 and usage[0]["context_tokens"] == sum(totals)
    assert api_client.get(f"{API}contexts/usage/").status_code == 400
    page = admin_client.get("/admin/agentmemory/contextrecord/usage/?user_id=lena").content.decode()
    assert f'<td class="context-tokens">{sum(totals)}</td>' in page and "mo</td>" not in page
    everyone = admin_client.get("/admin/agentmemory/contextrecord/usage/").content.decode()
    assert "mo</td>" in everyone


def test_the_admin_shows_feedback_per_item(api_client, admin_client):
    city = _fact("nina", "用户住在厦门", "city")
    body = _context(api_client, "nina", "我住在哪？")
    marker = _marker(body, city)
    _feedback(api_client, body["context_id"], rating=-1, items=[marker], comment="搬家了")
    detail = admin_client.get(f"/admin/agentmemory/contextrecord/{body['context_id']}/change/").content.decode()
    assert "👎" in detail and "搬家了" in detail
    listing = admin_client.get("/admin/agentmemory/contextfeedback/").content.decode()
    assert "搬家了" in listing and "lowered" in listing


def test_the_agent_gives_feedback_through_the_tool(api_client, client):
    city = _fact("olga", "用户住在大连", "city")
    call = f"{API}tools/call/"
    got = api_client.post(call, {"name": "get_context", "arguments": {"user_id": "olga", "query": "我住在哪？"}},
                          format="json").json()["result"]
    marker = next(c["label"] for c in got["citations"] if c["ref"].get("memory_id") == city)
    answer = api_client.post(call, {"name": "context_feedback", "arguments": {
        "context_id": got["context_id"], "rating": -1, "items": [marker], "correction": "我搬到青岛了"}},
        format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["result"]["effects"][0]["action"] == "corrected"
    assert "青岛" in _context(api_client, "olga", "我住在哪？")["prompt"]
    _key, raw = create_api_key("pia-device", scopes=["read", "write"], user_ids=["pia"])
    hidden = client.post(call, {"name": "context_feedback", "arguments": {"context_id": got["context_id"],
                                                                          "rating": 1}},
                         content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert hidden.status_code == 404


def test_a_retried_feedback_changes_nothing_twice_and_an_agents_context_is_its_own(api_client, client):
    pet = _fact("quinn", "用户养了一只叫豆豆的狗", "pet", confidence=0.9)
    body = _context(api_client, "quinn", "我的狗叫什么？", agent_id="helper")
    marker = _marker(body, pet)
    first = _feedback(api_client, body["context_id"], rating=-1, items=[marker], comment="不对")
    again = _feedback(api_client, body["context_id"], rating=-1, items=[marker], comment="不对")
    assert first.status_code == again.status_code == 201 and first.json()["id"] == again.json()["id"]
    assert MemoryItem.objects.for_user("quinn").get(pk=pet).confidence == pytest.approx(0.7)  # lowered once
    _key, raw = create_api_key("other-agent", scopes=["read", "write"], agent_ids=["writer"])
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert client.get(f"{API}contexts/{body['context_id']}/", **auth).status_code == 404
    assert client.post(f"{API}contexts/{body['context_id']}/feedback/", {"rating": 1},
                       content_type="application/json", **auth).status_code == 404
    _key, raw = create_api_key("helper-agent", scopes=["read", "write"], agent_ids=["helper"])
    assert client.post(f"{API}contexts/{body['context_id']}/feedback/", {"rating": 1},
                       content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 201
    # The ledger list of an agent-limited key holds its agent's contexts only.
    other = _context(api_client, "quinn", "再问一次", agent_id="writer")["context_id"]
    listed = client.get(f"{API}contexts/?user_id=quinn", HTTP_AUTHORIZATION=f"Bearer {raw}").json()
    assert body["context_id"] in [r["id"] for r in listed] and other not in [r["id"] for r in listed]

"""The seed cases of issue 5 through the REST API: supersede, inferred vs stated, dedup, noise, PII, bad input."""
from __future__ import annotations

import pytest

from agentmemory.models import AuditEvent, MemoryItem

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/users"


def post(client, user, **body):
    return client.post(f"{BASE}/{user}/memories/", body, format="json")


def test_migration_to_postgresql_supersedes_mysql_and_history_shows_both(api_client):
    first = post(api_client, "u1", content="我们在用 MySQL", type="fact", key="tech_stack", value="MySQL",
                 source="user_stated", session_id="s1")
    assert first.status_code == 201, first.json()
    assert first.json()["action"] == "created"
    second = post(api_client, "u1", content="已经全部迁到 PostgreSQL 了", type="fact", key="tech_stack",
                  value="PostgreSQL", source="user_stated", session_id="s2")
    body = second.json()
    assert second.status_code == 201 and body["action"] == "superseded_previous"
    old_id, new_id = first.json()["memory"]["id"], body["memory"]["id"]
    assert body["superseded_ids"] == [old_id]

    active = api_client.get(f"{BASE}/u1/memories/?status=active").json()
    assert [m["content"] for m in active["results"]] == ["已经全部迁到 PostgreSQL 了"]
    old = api_client.get(f"{BASE}/u1/memories/{old_id}/").json()
    assert old["status"] == "superseded" and old["valid_to"] and old["superseded_at"]

    history = api_client.get(f"{BASE}/u1/memories/{new_id}/history/").json()
    assert [v["id"] for v in history["versions"]] == [old_id, new_id]
    assert history["versions"][1]["supersedes"] == old_id
    actions = [(e["memory_id"], e["action"]) for e in history["events"]]
    assert (old_id, "create") in actions and (old_id, "supersede") in actions and (new_id, "create") in actions
    event = next(e for e in history["events"] if e["action"] == "supersede")
    assert event["before"]["status"] == "active" and event["after"]["status"] == "superseded"
    assert event["actor"] == "api_key:test-client"

    hits = api_client.post(f"{BASE}/u1/memories/search/", {"query": "数据库用的是什么"}, format="json").json()
    assert [h["content"] for h in hits["results"]] == ["已经全部迁到 PostgreSQL 了"]


def test_model_inference_never_overrides_what_the_user_said(api_client):
    stated = post(api_client, "u2", content="我更喜欢热闹一点的地方", type="preference", key="place_preference",
                  source="user_stated", confidence=0.9).json()
    inferred = post(api_client, "u2", content="likes quiet places", type="preference", key="place_preference",
                    source="model_inferred", confidence=0.7).json()
    assert inferred["action"] == "created" and inferred["superseded_ids"] == []
    assert "never overrides" in inferred["reason"]
    items = api_client.get(f"{BASE}/u2/memories/?key=place_preference").json()["results"]
    assert {(m["source"], m["status"]) for m in items} == {("user_stated", "active"), ("model_inferred", "active")}

    # Default recall leaves the inference out; asked for, it ranks below the statement.
    plain = api_client.post(f"{BASE}/u2/memories/search/", {"query": "喜欢什么样的地方"}, format="json").json()
    assert [h["id"] for h in plain["results"]] == [stated["memory"]["id"]]
    both = api_client.post(f"{BASE}/u2/memories/search/",
                           {"query": "喜欢什么样的地方", "include_inferred": True}, format="json").json()
    ids = [h["id"] for h in both["results"]]
    assert ids == [stated["memory"]["id"], inferred["memory"]["id"]]
    weights = [h["scores"]["source_weight"] for h in both["results"]]
    assert weights == [1.0, 0.6]
    profile = api_client.get(f"{BASE}/u2/profile/").json()
    assert [f["content"] for f in profile["facts"]] == ["我更喜欢热闹一点的地方"]


def test_same_preference_three_times_is_one_item_and_a_retry_is_a_no_op(api_client):
    results = [post(api_client, "u3", content="喜欢简洁的结论", type="preference", source="user_stated",
                    session_id=f"s{i}", confidence=0.6).json() for i in range(3)]
    assert [r["action"] for r in results] == ["created", "merged", "merged"]
    assert len({r["memory"]["id"] for r in results}) == 1
    merged = results[-1]["memory"]
    assert merged["confidence"] > 0.9  # restating it raised confidence
    assert [p["session_id"] for p in merged["provenance"]] == ["s0", "s1", "s2"]
    retry = post(api_client, "u3", content="喜欢简洁的结论。", type="preference", source="user_stated",
                 session_id="s2", confidence=0.6).json()
    assert retry["action"] == "unchanged" and retry["memory"]["id"] == merged["id"]
    assert retry["memory"]["confidence"] == merged["confidence"]
    assert api_client.get(f"{BASE}/u3/memories/").json()["count"] == 1


def test_small_talk_is_rejected_with_a_reason_and_nothing_is_stored(api_client):
    for text in ("今天天气真热", "用户问了退货政策", "It's raining again today"):
        response = post(api_client, "u4", content=text, type="fact", source="user_stated")
        assert response.status_code == 200
        body = response.json()
        assert body["action"] == "rejected" and body["memory"] is None and "score" in body["reason"]
    # A system_log import is stored as given (after redaction).
    logged = post(api_client, "u4", content="今天天气真热", type="event", source="system_log", session_id="log", turn_id=1)
    assert logged.json()["action"] == "created"
    assert api_client.get(f"{BASE}/u4/memories/").json()["count"] == 1
    # a word that holds a weather word is not one ("training" holds "raining")
    kept = post(api_client, "u4", content="I'm training for a half marathon in October.", type="fact",
                source="user_stated")
    assert kept.json()["action"] == "created", kept.json()


def test_phone_number_is_stored_masked_and_never_in_clear(api_client):
    body = post(api_client, "u5", content="我的手机号是13812345678，邮箱 zhang@example.com", type="fact",
                key="phone", source="user_stated", excerpt="用户说：我的手机号是13812345678",
                value={"phone": "13812345678"}).json()
    assert body["memory"]["content"] == "我的手机号是138****5678，邮箱 z***@example.com"
    assert body["memory"]["value"] == {"phone": "138****5678"}
    assert "13812345678" not in body["memory"]["excerpt"]
    item = MemoryItem.objects.for_user("u5").get()
    assert "13812345678" not in repr([item.content, item.excerpt, item.value, item.provenance])
    assert all("13812345678" not in repr([e.before, e.after]) for e in AuditEvent.objects.for_user("u5"))


@pytest.mark.parametrize(("body", "field"), [
    ({"content": "我们用 Java", "type": "opinion", "source": "user_stated"}, "type"),
    ({"content": "我们用 Java", "type": "fact", "source": "rumour"}, "source"),
    ({"content": "我们用 Java", "type": "fact", "source": "user_stated", "confidence": 1.5}, "confidence"),
    ({"content": "我们用 Java", "type": "fact", "source": "user_stated", "confidence": -0.1}, "confidence"),
    ({"content": "   ", "type": "fact", "source": "user_stated"}, "content"),
    ({"content": "我们用 Java" * 300, "type": "fact", "source": "user_stated"}, "content"),
    ({"content": "我们用 Java", "type": "fact", "source": "user_stated", "tags": ["x"]}, "tags"),
])
def test_bad_input_is_a_400_and_nothing_is_written(api_client, body, field):
    response = post(api_client, "u6", **body)
    assert response.status_code == 400, response.json()
    data = response.json()
    assert field in (data.get("field"), *data.get("fields", {}))
    assert MemoryItem.objects.for_user("u6").count() == 0
    assert AuditEvent.objects.for_user("u6").count() == 0


def test_another_users_memory_id_is_a_404_and_untouched(api_client):
    mine = post(api_client, "alice", content="公司行业是母婴用品", type="fact", key="company_industry",
                source="user_stated").json()["memory"]
    for method in ("get", "patch", "delete"):
        response = getattr(api_client, method)(f"{BASE}/bob/memories/{mine['id']}/", {"content": "改掉"}, format="json")
        assert response.status_code == 404
    assert api_client.get(f"{BASE}/bob/memories/{mine['id']}/history/").status_code == 404
    item = MemoryItem.objects.for_user("alice").get()
    assert item.content == "公司行业是母婴用品" and item.status == "active"


def test_correction_into_an_occupied_slot_supersedes_its_value(api_client):
    old = post(api_client, "u7", content="我们在用 MySQL", type="fact", key="tech_stack", source="user_stated").json()
    loose = post(api_client, "u7", content="数据库换成了 PostgreSQL", type="fact", source="user_stated").json()
    fixed = api_client.patch(f"{BASE}/u7/memories/{loose['memory']['id']}/", {"key": "tech_stack"}, format="json")
    body = fixed.json()
    assert fixed.status_code == 200 and body["action"] == "superseded_previous"
    assert sorted(body["superseded_ids"]) == sorted([loose["memory"]["id"], old["memory"]["id"]])
    assert body["memory"]["supersedes"] == loose["memory"]["id"]
    active = api_client.get(f"{BASE}/u7/memories/?status=active").json()["results"]
    assert [(m["key"], m["content"]) for m in active] == [("tech_stack", "数据库换成了 PostgreSQL")]

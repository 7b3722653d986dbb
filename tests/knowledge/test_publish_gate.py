"""The publish gate, the review queue, duplicate control and proposed checks, through REST (bundled embedder)."""
from __future__ import annotations

import pytest

from agentmemory.models import AuditEvent, Chunk, DocumentVersion, EvaluationCase

BASE = "/api/agentmemory/knowledge-bases/"
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _imports_run_in_the_request(eager_celery):
    """Imports answer with their result (no broker), whatever worker tests earlier in the run switched."""

WARRANTY = """# 售后服务手册

## 保修政策

本产品自购买之日起保修两年。保修期内非人为损坏免费维修，需要出示购买发票。

## 退货政策

签收后七天内可以无理由退货，商品需保持完好，运费由买家承担。

## 联系方式

客服热线每天九点到二十一点在线，也可以发送邮件到售后邮箱。
"""

# v2 drops the warranty section: "保修期多久" no longer finds it.
WITHOUT_WARRANTY = """# 售后服务手册

## 退货政策

签收后七天内可以无理由退货，商品需保持完好，运费由买家承担。

## 联系方式

客服热线每天九点到二十一点在线，也可以发送邮件到售后邮箱。
"""

# v3 keeps every section and adds one.
WITH_INSTALLATION = WARRANTY + """
## 上门安装

购买大件商品可以预约免费上门安装，安装师傅会提前一天电话联系。
"""


def _gated_base(api_client, slug="service", **extra):
    response = api_client.post(BASE, {"slug": slug, "name": "售后"}, format="json")
    assert response.status_code == 201, response.content
    response = api_client.patch(f"{BASE}{slug}/", {"publish_gate": True, **extra}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["publish_gate"] is True


def _import(api_client, content, slug="service", external_id="manual", title="售后服务手册"):
    response = api_client.post(f"{BASE}{slug}/documents/", {"external_id": external_id, "title": title,
                                                          "content": content}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def _search(api_client, query, slug="service"):
    response = api_client.post(f"{BASE}{slug}/search/", {"query": query, "top_k": 5}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["hits"]


def _save_case(api_client, query, chunk_text, slug="service"):
    hits = _search(api_client, query, slug)
    chunk_id = next(h["chunk_id"] for h in hits if chunk_text in h["text"])
    response = api_client.post(f"{BASE}{slug}/evaluation-cases/", {"query": query, "expected_chunk_ids": [chunk_id]},
                               format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_version_that_breaks_a_saved_case_is_held_and_the_old_text_keeps_serving(api_client):
    _gated_base(api_client)
    first = _import(api_client, WARRANTY)
    assert first["publication"] == "published"
    case = _save_case(api_client, "保修期是多久？", "保修两年")

    held = _import(api_client, WITHOUT_WARRANTY)
    assert (held["action"], held["version"], held["publication"]) == ("updated", 2, "held")
    report = held["gate"]
    assert report["decision"] == "held" and report["cases"] == 1
    assert (report["recall_before"], report["recall_after"]) == (1.0, 0.0)
    [broken] = report["broken"]
    assert broken["case_id"] == case["id"] and broken["rank_before"] == 1 and broken["rank_after"] is None
    assert broken["expected"][0]["heading_path"].endswith("保修政策")
    assert "recall@5" in report["reasons"][0]

    # Search keeps serving the live version: the warranty text, version 1.
    hits = _search(api_client, "保修期是多久？")
    assert hits[0]["version"] == 1 and "保修两年" in hits[0]["text"]
    assert not Chunk.objects.filter(version__number=2, status="active").exists()

    document = api_client.get(f"{BASE}service/documents/{first['document_id']}/").json()
    assert (document["active_version"], document["publication"]) == (1, "held")
    assert [(v["number"], v["status"]) for v in document["versions"]] == [(2, "held"), (1, "active")]
    assert document["versions"][0]["gate_report"]["broken"][0]["case_id"] == case["id"]
    queue = api_client.get(f"{BASE}service/held-versions/").json()
    assert [(q["document_id"], q["version"]) for q in queue] == [(first["document_id"], 2)]
    job = api_client.get(f"/api/agentmemory/import-jobs/{held['job']}/").json()
    assert job["publication"] == "held"

    # The operator publishes it: the switch is atomic and audited.
    response = api_client.post(f"{BASE}service/documents/{first['document_id']}/publish/", {"version": 2},
                               format="json")
    assert response.status_code == 200, response.content
    assert response.json()["version"] == 2 and response.json()["previous_version"] == 1
    assert all(h["version"] == 2 for h in _search(api_client, "退货要求是什么？"))
    assert AuditEvent.objects.filter(action="document.hold", object_id=str(first["document_id"])).exists()
    assert AuditEvent.objects.filter(action="document.publish_reviewed", actor="api_key:test-client").exists()
    assert api_client.get(f"{BASE}service/held-versions/").json() == []
    # Nothing left to decide.
    again = api_client.post(f"{BASE}service/documents/{first['document_id']}/publish/", {"version": 2}, format="json")
    assert again.status_code == 400 and "not held" in again.json()["detail"]


def test_a_version_that_keeps_the_cases_publishes_by_itself(api_client):
    _gated_base(api_client)
    _import(api_client, WARRANTY)
    _save_case(api_client, "保修期是多久？", "保修两年")
    _save_case(api_client, "几天内可以退货", "七天内")

    result = _import(api_client, WITH_INSTALLATION)
    assert (result["version"], result["publication"]) == (2, "published")
    report = result["gate"]
    assert (report["decision"], report["cases"], report["broken"]) == ("published", 2, [])
    assert report["recall_after"] == 1.0 and report["reasons"] == []
    hits = _search(api_client, "上门安装需要预约吗")
    assert hits[0]["version"] == 2 and "上门安装" in hits[0]["heading_path"]


def test_an_edited_answer_still_found_counts_as_kept(api_client):
    _gated_base(api_client)
    _import(api_client, WARRANTY)
    _save_case(api_client, "保修期是多久？", "保修两年")
    edited = WARRANTY.replace("保修两年", "保修三年")
    result = _import(api_client, edited)
    assert result["publication"] == "published", result["gate"]
    assert "保修三年" in _search(api_client, "保修期是多久？")[0]["text"]


def test_discarding_a_held_version_keeps_the_live_one_and_a_reimport_is_gated_again(api_client):
    _gated_base(api_client)
    first = _import(api_client, WARRANTY)
    _save_case(api_client, "保修期是多久？", "保修两年")
    assert _import(api_client, WITHOUT_WARRANTY)["publication"] == "held"

    doc = first["document_id"]
    response = api_client.post(f"{BASE}service/documents/{doc}/discard/", {}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "discarded" and response.json()["deleted_chunks"] > 0
    assert DocumentVersion.objects.get(document_id=doc, number=2).status == "discarded"
    assert not Chunk.objects.filter(version__document_id=doc, version__number=2).exists()
    assert "保修两年" in _search(api_client, "保修期是多久？")[0]["text"]
    rollback = api_client.post(f"{BASE}service/documents/{doc}/rollback/", {"version": 2}, format="json")
    assert rollback.status_code == 400

    again = _import(api_client, WITHOUT_WARRANTY)
    assert (again["version"], again["publication"]) == (3, "held")
    # Re-posting a held version's content meets the gate again (same version, still held).
    assert _import(api_client, WITHOUT_WARRANTY)["version"] == 3


def test_review_decisions_need_the_publish_permission(api_client, django_user_model, client):
    from django.contrib.auth.models import Permission

    from agentmemory.api_keys import create_api_key

    _gated_base(api_client)
    first = _import(api_client, WARRANTY)
    _save_case(api_client, "保修期是多久？", "保修两年")
    assert _import(api_client, WITHOUT_WARRANTY)["publication"] == "held"
    url = f"{BASE}service/documents/{first['document_id']}/publish/"

    _key, raw = create_api_key("writer", scopes=["read", "write"])
    response = client.post(url, {"version": 2}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 403

    staff = django_user_model.objects.create_user("editor", password="pw", is_staff=True)
    client.force_login(staff)
    response = client.post(url, {"version": 2}, content_type="application/json")
    assert response.status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="publish_version"))
    staff = django_user_model.objects.get(pk=staff.pk)
    client.force_login(staff)
    response = client.post(url, {"version": 2}, content_type="application/json")
    assert response.status_code == 200, response.content


def test_off_topic_questions_the_new_content_answers_are_reported(api_client):
    _gated_base(api_client)
    _import(api_client, WARRANTY)
    chatter = "# 寒暄\n\n## 天气\n\n今天天气怎么样？今天天气晴朗，气温二十度，适合出门。\n"
    result = _import(api_client, chatter, external_id="chatter", title="寒暄")
    assert result["publication"] == "published"  # no saved case drops: a warning, not a hold
    assert any(o["question"] == "今天天气怎么样" and "寒暄" in o["citation"] for o in result["gate"]["off_topic"])
    assert "off-topic" in result["gate"]["warnings"][0]
    assert result["gate"]["note"].startswith("no accepted evaluation cases")


def test_the_same_paragraph_in_two_documents_is_reported_and_served_once(api_client):
    api_client.post(BASE, {"slug": "service", "name": "售后"}, format="json")
    _import(api_client, WARRANTY)
    other = "# 会员手册\n\n## 会员权益\n\n会员享受生日双倍积分。\n\n## 保修政策\n\n" \
            "本产品自购买之日起保修两年。保修期内非人为损坏免费维修，需要出示购买发票。\n"
    result = _import(api_client, other, external_id="members", title="会员手册")
    assert result["publication"] == "published"
    [duplicate] = result["duplicates"]
    assert duplicate["kind"] == "same_text" and duplicate["document_title"] == "售后服务手册"

    hits = _search(api_client, "保修期是多久？")
    copies = [h for h in hits if "保修两年" in h["text"]]
    assert len(copies) == 1
    cited = copies[0]["duplicates"]
    assert len(cited) == 1 and {copies[0]["document_title"], cited[0]["document_title"]} == {"售后服务手册", "会员手册"}

    # link: the first copy is served, the later cited; skip: the later is never shown nor cited.
    api_client.patch(f"{BASE}service/", {"duplicate_policy": "link"}, format="json")
    [served] = [h for h in _search(api_client, "会员手册 保修政策 保修两年") if "保修两年" in h["text"]]
    assert served["document_title"] == "售后服务手册" and served["duplicates"][0]["document_title"] == "会员手册"
    api_client.patch(f"{BASE}service/", {"duplicate_policy": "skip"}, format="json")
    [served] = [h for h in _search(api_client, "会员手册 保修政策 保修两年") if "保修两年" in h["text"]]
    assert served["document_title"] == "售后服务手册" and served["duplicates"] == []


def test_a_near_copy_with_a_different_number_is_not_a_duplicate(api_client):
    api_client.post(BASE, {"slug": "service", "name": "售后"}, format="json")
    _import(api_client, WARRANTY)
    changed = WARRANTY.replace("保修两年", "保修2年").replace("七天", "15天")
    result = _import(api_client, changed, external_id="v2-copy", title="售后服务手册（新）")
    kinds = {d["position"]: d["kind"] for d in result["duplicates"]}
    chunks = {c.position: c.text for c in Chunk.objects.filter(document_id=result["document_id"])}
    assert all("2年" not in chunks[p] and "15天" not in chunks[p] for p in kinds)


def test_an_import_proposes_checks_that_count_once_accepted(api_client):
    _gated_base(api_client, propose_checks=True)
    _import(api_client, WARRANTY)
    proposed = api_client.get(f"{BASE}service/evaluation-cases/?status=proposed").json()
    assert 1 <= len(proposed) <= 3
    assert all(c["source"] == "proposed" and c["accepted"] is False for c in proposed)
    assert any(c["query"] == "保修政策" for c in proposed)
    assert api_client.get(f"{BASE}service/evaluation-cases/?status=accepted").json() == []

    # Not yet accepted: the gate has nothing to check the next version against.
    assert _import(api_client, WITHOUT_WARRANTY)["publication"] == "published"
    api_client.post(f"{BASE}service/documents/", {"external_id": "manual", "content": WARRANTY}, format="json")
    warranty = next(c for c in api_client.get(f"{BASE}service/evaluation-cases/").json() if c["query"] == "保修政策")
    response = api_client.post(f"{BASE}service/evaluation-cases/{warranty['id']}/accept/")
    assert response.status_code == 200 and response.json()["accepted"] is True
    assert _import(api_client, WITHOUT_WARRANTY)["publication"] == "held"

    # A rejected proposal is deleted; proposals can be asked for the base's existing documents too.
    other = next(c for c in api_client.get(f"{BASE}service/evaluation-cases/?status=proposed").json())
    assert api_client.delete(f"{BASE}service/evaluation-cases/{other['id']}/").status_code == 204
    EvaluationCase.objects.filter(source="proposed").delete()
    response = api_client.post(f"{BASE}service/evaluation-cases/propose/", {}, format="json")
    assert response.status_code == 201 and response.json()


RETURNS = ("# Returns policy\n## Return window\nYou can return any item within 30 days of delivery.\n"
           "## Refunds\nRefunds are paid to the original card within 5 business days.")


def test_an_english_section_removed_breaks_its_case_and_one_edited_keeps_it(api_client):
    _gated_base(api_client, slug="shop")
    _import(api_client, RETURNS, slug="shop", external_id="returns", title="Returns policy")
    _save_case(api_client, "How long do I have to return an item?", "30 days", slug="shop")

    edited = RETURNS.replace("within 30 days of delivery", "within 30 days of delivery, unused")
    assert _import(api_client, edited, slug="shop", external_id="returns")["publication"] == "published"
    removed = ("# Returns policy\n## Refunds\nRefunds are paid to the original card within 5 business days.\n"
               "## Exchanges\nExchanges are free for a different size.")
    held = _import(api_client, removed, slug="shop", external_id="returns")
    assert held["publication"] == "held"
    assert held["gate"]["broken"][0]["expected"][0]["heading_path"] == "Returns policy > Return window"


def test_a_document_case_in_a_base_of_one_document_still_needs_its_answer(api_client):
    """The only document always ranks first; what decides is whether it still says what the question asks."""
    _gated_base(api_client)
    first = _import(api_client, WARRANTY)
    response = api_client.post(f"{BASE}service/evaluation-cases/", {
        "query": "保修期是多久？", "expected_document_ids": [first["document_id"]]}, format="json")
    assert response.status_code == 201, response.content

    edited = _import(api_client, WARRANTY.replace("保修两年", "保修三年"))
    assert edited["publication"] == "published", edited["gate"]
    held = _import(api_client, WITHOUT_WARRANTY)
    assert held["publication"] == "held"
    [broken] = held["gate"]["broken"]
    assert broken["rank_before"] == 1 and set(broken["lost_words"]) >= {"保", "修"}


def test_one_import_can_ask_for_proposed_checks(api_client):
    api_client.post(BASE, {"slug": "service", "name": "售后"}, format="json")
    response = api_client.post(f"{BASE}service/documents/", {"external_id": "manual", "content": WARRANTY,
                                                            "propose_checks": True}, format="json")
    assert response.status_code == 201, response.content
    proposed = api_client.get(f"{BASE}service/evaluation-cases/?status=proposed").json()
    assert proposed and all(c["note"].startswith("proposed from") for c in proposed)
    api_client.post(f"{BASE}service/documents/", {"external_id": "other", "content": "# 会员\n## 积分\n积分一年有效。"},
                    format="json")
    assert len(api_client.get(f"{BASE}service/evaluation-cases/?status=proposed").json()) == len(proposed)

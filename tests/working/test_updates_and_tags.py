"""Updates that stick: the labelled correction set, paraphrase merges, the LLM's "existing" verdict,
context tags from extraction to filtered recall. Through the API, the command and the real write path."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from agentmemory.models import MemoryItem
from agentmemory.testing.openai_server import OpenAIChatServer

pytestmark = pytest.mark.django_db

SESSIONS = "/api/agentmemory/sessions/"
USERS = "/api/agentmemory/users"
CASES = Path(__file__).resolve().parent.parent / "data" / "extraction_cases.jsonl"


def _row(output: str, name: str) -> dict[str, str]:
    lines = [line for line in output.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == name:
            return dict(zip(header, cells, strict=True))
    raise AssertionError(f"no row {name!r} in:\n{output}")


def test_labelled_corrections_reach_090_recall_and_small_talk_stores_nothing():
    cases = [json.loads(line) for line in CASES.open(encoding="utf-8")]
    assert len(cases) >= 60
    assert {c["lang"] for c in cases} == {"zh", "en"}
    assert sum(1 for c in cases if c.get("before")) >= 40 and sum(1 for c in cases if c.get("small_talk")) >= 10
    out = io.StringIO()
    call_command("agentmemory_bench_sessions", "--cases-only", "--cases", str(CASES), "--show-misses", stdout=out)
    row = _row(out.getvalue(), "rules")
    assert int(row["cases"]) == len(cases)
    assert float(row["recall"]) >= 0.9, out.getvalue()
    assert float(row["recall zh"]) >= 0.85 and float(row["recall en"]) >= 0.85, out.getvalue()
    assert row["small talk with memories"].startswith("0/"), out.getvalue()
    assert int(row["old still active"]) <= 0.05 * int(row["corrections"]), out.getvalue()
    # The bench users are forgotten afterwards.
    from agentmemory.models import Session

    assert not Session.objects.filter(user_id__startswith="bench-cases-").exists()
    assert not MemoryItem._base_manager.filter(user_id__startswith="bench-cases-").exists()


def _post(api_client, user, content, **extra):
    body = {"content": content, "type": extra.pop("type", "preference"), "source": "user_stated", **extra}
    response = api_client.post(f"{USERS}/{user}/memories/", body, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()


def test_paraphrases_merge_other_values_and_other_slot_values_do_not(api_client):
    first = _post(api_client, "para", "用户喜欢喝咖啡")
    again = _post(api_client, "para", "用户平时很爱喝咖啡")
    assert again["action"] == "merged" and again["memory"]["id"] == first["memory"]["id"]
    assert len(MemoryItem.objects.for_user("para").get(pk=first["memory"]["id"]).provenance) == 2
    english = _post(api_client, "para", "The user works at Stripe", type="fact")
    restated = _post(api_client, "para", "The user is employed by Stripe", type="fact")
    assert restated["action"] == "merged" and restated["memory"]["id"] == english["memory"]["id"]
    # Another value is not a paraphrase, however close the vectors ("简洁" / "详细" 0.976).
    short = _post(api_client, "para", "用户希望回答简洁")
    detailed = _post(api_client, "para", "用户希望回答详细")
    assert detailed["action"] == "created" and detailed["memory"]["id"] != short["memory"]["id"]
    # Two values of a multi-valued slot stay two items even when most words are shared.
    celery = _post(api_client, "para", "用户不喜欢芹菜", key="dislikes:芹菜", value="芹菜")
    cilantro = _post(api_client, "para", "用户不喜欢香菜", key="dislikes:香菜", value="香菜")
    assert cilantro["action"] == "created" and cilantro["memory"]["id"] != celery["memory"]["id"]
    # The same slot with the same value written differently is a restatement.
    pg = _post(api_client, "para", "技术栈是PostgreSQL", type="fact", key="tech_stack", value="PostgreSQL")
    again_pg = _post(api_client, "para", "我们数据库用 postgresql", type="fact", key="tech_stack", value=" postgresql ")
    assert again_pg["action"] == "merged" and again_pg["memory"]["id"] == pg["memory"]["id"]
    assert MemoryItem.objects.for_user("para").active().count() == 7


def _llm(settings, server):
    settings.AGENTMEMORY = {"LLM_URL": server.url, "LLM_MODEL": "test-model",
                            "EXTRACTOR": "agentmemory.backends.extractors.llm.LLMExtractor"}


def test_llm_existing_verdict_updates_or_merges_the_named_item_and_keeps_context_tags(
        api_client, settings, django_capture_on_commit_callbacks):
    industry = _post(api_client, "verdict", "用户的公司做跨境物流", type="fact", key="industry", value="跨境物流")
    style = _post(api_client, "verdict", "用户希望回答简洁", key="reply_style", value="简洁")
    theirs = _post(api_client, "someone-else", "用户的公司做母婴用品", type="fact", key="industry", value="母婴用品")
    answer = {"items": [
        # An update of the item it names, under another key than the old one: still its new version.
        {"type": "fact", "key": "company_industry", "value": "跨境电商", "content": "用户的公司现在做跨境电商",
         "source": "user_stated", "confidence": 0.9, "quality": 0.9, "turn": 1, "status": "existing",
         "existing_id": industry["memory"]["id"]},
        # The same thing said again: merged into it.
        {"type": "preference", "key": "reply_style", "value": "简洁", "content": "用户希望回答简洁",
         "source": "user_stated", "confidence": 0.9, "quality": 0.9, "turn": 1, "status": "existing",
         "existing_id": style["memory"]["id"]},
        # An id the model was not shown (another user's) is ignored: a new item, theirs untouched.
        {"type": "decision", "key": "database", "value": "PostgreSQL", "content": "java-billing 项目决定用 PostgreSQL",
         "source": "user_stated", "confidence": 0.9, "quality": 0.9, "turn": 1, "status": "existing",
         "existing_id": theirs["memory"]["id"], "tags": {"project": "java-billing"}},
    ]}
    sid = api_client.post(SESSIONS, {"user_id": "verdict"}, format="json").json()["id"]
    api_client.post(f"{SESSIONS}{sid}/turns/", {"role": "user", "content": "公司现在转做跨境电商了，回答还是简洁些。"
                                                "java-billing 项目定了用 PostgreSQL。"}, format="json")
    with OpenAIChatServer([json.dumps(answer, ensure_ascii=False)]) as server:
        _llm(settings, server)
        with django_capture_on_commit_callbacks(execute=True):
            assert api_client.post(f"{SESSIONS}{sid}/end/").status_code == 202
        shown = server.requests[0]["messages"][1]["content"]
    assert f'"id": {industry["memory"]["id"]}' in shown  # the model saw the memory it named
    report = api_client.get(f"{SESSIONS}{sid}/extraction/").json()
    assert report["status"] == "succeeded", report
    # The model's verdicts (the message is also kept as an episode in the user's words, beside them).
    actions = [row["action"] for group in report["memories"].values() for row in group if row["type"] != "episode"]
    assert sorted(actions) == ["created", "merged", "superseded_previous"], report["memories"]
    old = MemoryItem.objects.for_user("verdict").get(pk=industry["memory"]["id"])
    assert old.status == "superseded"
    new = MemoryItem.objects.for_user("verdict").get(supersedes=old)
    assert new.value == "跨境电商" and new.status == "active"
    history = api_client.get(f"{USERS}/verdict/memories/{new.pk}/history/").json()
    assert [v["content"] for v in history["versions"]] == ["用户的公司做跨境物流", "用户的公司现在做跨境电商"]
    merged = MemoryItem.objects.for_user("verdict").get(pk=style["memory"]["id"])
    assert merged.status == "active" and len(merged.provenance) == 2
    decision = MemoryItem.objects.for_user("verdict").get(key="database")
    assert decision.tags == {"project": "java-billing"}  # context tags kept, the extractor's markers not
    assert MemoryItem.objects.for_user("someone-else").get(pk=theirs["memory"]["id"]).status == "active"


def test_context_tags_from_the_session_and_the_text_filter_recall(api_client, django_capture_on_commit_callbacks):
    bad = api_client.post(SESSIONS, {"user_id": "tags", "metadata": {"tags": {"product": 5}}}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "metadata.tags"
    sid = api_client.post(SESSIONS, {"user_id": "tags", "metadata": {"tags": {"product": "atlas"}}},
                          format="json").json()["id"]
    for text in ("java-billing项目的数据库已经迁到PostgreSQL了。", "我们的预算是5万元。"):
        api_client.post(f"{SESSIONS}{sid}/turns/", {"role": "user", "content": text}, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        assert api_client.post(f"{SESSIONS}{sid}/end/").status_code == 202
    memories = {m.key: m for m in MemoryItem.objects.for_user("tags").active()}
    assert memories["tech_stack"].tags == {"product": "atlas", "project": "java-billing"}
    assert memories["budget"].tags == {"product": "atlas"}
    # Recall filtered by tags: the REST search, the list, the mem0 search.
    search = api_client.post(f"{USERS}/tags/memories/search/", {"query": "数据库 预算", "top_k": 10,
                                                                "tags": {"project": "java-billing"}}, format="json")
    # (each message is also an episode in the user's words, with the same tags: the slots are compared here)
    assert search.status_code == 200 and [r["key"] for r in search.json()["results"] if r["key"]] == ["tech_stack"]
    unfiltered = api_client.post(f"{USERS}/tags/memories/search/", {"query": "数据库 预算", "top_k": 10}, format="json")
    assert {r["key"] for r in unfiltered.json()["results"] if r["key"]} == {"tech_stack", "budget"}
    listed = api_client.get(f"{USERS}/tags/memories/?tag=project:java-billing").json()
    assert [m["key"] for m in listed["results"] if m["key"]] == ["tech_stack"]
    both = api_client.get(f"{USERS}/tags/memories/?tag=product:atlas&tag=project:java-billing").json()
    assert [m["key"] for m in both["results"] if m["key"]] == ["tech_stack"]
    assert api_client.get(f"{USERS}/tags/memories/?tag=nocolon").status_code == 400
    mem0 = api_client.post("/api/agentmemory/v1/memories/search/", {
        "query": "预算", "user_id": "tags", "filters": {"metadata": {"product": "atlas"}}}, format="json").json()
    assert {r["metadata"].get("product") for r in mem0["results"]} == {"atlas"}
    assert api_client.post(f"{USERS}/tags/memories/search/", {"query": "x", "tags": ["project"]},
                           format="json").status_code == 400


@pytest.mark.parametrize("infer", [True, False])
def test_mem0_add_keeps_metadata_as_context_tags_with_and_without_infer(api_client, infer):
    added = api_client.post("/api/agentmemory/v1/memories/", {
        "messages": [{"role": "user", "content": "我们公司是做母婴用品的，主打安全环保。"}], "user_id": f"meta-{infer}",
        "metadata": {"project": "spring-launch"}, "infer": infer}, format="json")
    assert added.status_code in (200, 201), added.json()
    stored = list(MemoryItem.objects.for_user(f"meta-{infer}").current())
    assert stored and all(m.tags.get("project") == "spring-launch" for m in stored), [(m.content, m.tags) for m in stored]
    found = api_client.post("/api/agentmemory/v1/memories/search/", {
        "query": "公司做什么", "user_id": f"meta-{infer}", "filters": {"metadata": {"project": "spring-launch"}}},
        format="json").json()
    assert found["results"] and {r["metadata"]["project"] for r in found["results"]} == {"spring-launch"}

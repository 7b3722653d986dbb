"""The operator's flows in a real browser against the live server: log in; find a user's memories with
filters; open a memory's history; correct it and see the supersession; confirm an inferred memory;
forget a user and see the receipt; run a hit test and read the per-channel scores; roll back a document
version; a view-only operator sees no action buttons. Failures keep a screenshot in .agentmemory/screenshots/."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from agentmemory.knowledge.ingest import create_import_job, prepare_document, run_import_job
from agentmemory.memory.write import write_memory
from agentmemory.models import DeletionReceipt, Document, KnowledgeBase, MemoryItem
from agentmemory.types import MemoryDraft
from tests.browser import browser, needs_browser  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db(transaction=True), needs_browser]


def _login(driver, base: str, username: str, password: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{base}/admin/login/")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    # Wait for the logged-in page before navigating on: a new get() would race the login's redirect.
    WebDriverWait(driver, 30).until(ec.presence_of_element_located((By.ID, "user-tools")))


def _action(driver, name: str, ids: list[int]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    for pk in ids:
        driver.find_element(By.CSS_SELECTOR, f"input.action-select[value='{pk}']").click()
    Select(driver.find_element(By.NAME, "action")).select_by_value(name)
    driver.find_element(By.NAME, "index").click()


def _kb_with_two_versions() -> Document:
    kb = KnowledgeBase.objects.create(slug="manual", name="产品手册")
    for text in ("# X-200\n## 参数\nX-200 的功率是 15W。", "# X-200\n## 参数\nX-200 的功率是 20W。"):
        job = create_import_job(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content=text),
                                title="X-200", fmt="markdown", external_id="x200")
        run_import_job(job.pk)
    return Document.objects.get(knowledge_base=kb)


def test_an_operator_runs_the_product_from_the_admin(live_server, browser):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    get_user_model().objects.create_superuser("ops", password="ops-pass-1")
    budget = write_memory("alice", MemoryDraft(content="我们的预算是五万元", type="fact", key="budget",
                                               source="user_stated")).memory_id
    inferred = write_memory("alice", MemoryDraft(content="用户可能喜欢简短的回答", type="preference", key="reply_style",
                                                 source="model_inferred", confidence=0.6)).memory_id
    write_memory("bob", MemoryDraft(content="bob 住在宁波", type="fact", source="user_stated"))
    document = _kb_with_two_versions()
    base = live_server.url
    wait = WebDriverWait(browser, 30)
    _login(browser, base, "ops", "ops-pass-1")

    # Find alice's memories: "=alice" and the filters.
    browser.get(f"{base}/admin/agentmemory/memoryitem/?q=%3Dalice")
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 2 and "bob" not in browser.find_element(By.ID, "result_list").text
    browser.get(f"{base}/admin/agentmemory/memoryitem/?user_id=alice&source__exact=model_inferred&confidence=medium")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")) == 1

    # Confirm the inferred one.
    _action(browser, "confirm", [inferred])
    assert "Confirmed 1 inferred" in wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".messagelist"))).text
    assert MemoryItem.objects.for_user("alice").get(pk=inferred).source == "user_stated"

    # Correct the budget: a form, then the new version's page with the chain and the audit events.
    browser.get(f"{base}/admin/agentmemory/memoryitem/?user_id=alice")
    _action(browser, "correct", [budget])
    box = wait.until(ec.presence_of_element_located((By.NAME, "content")))
    box.clear()
    box.send_keys("我们的预算改成八万元了")
    browser.find_element(By.NAME, "reason").send_keys("用户在电话里更正")
    browser.find_element(By.ID, "apply-correction").click()
    history = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".field-history"))).text
    assert "我们的预算是五万元" in history and "我们的预算改成八万元了" in history and "superseded" in history
    assert "用户在电话里更正" in history and "admin:ops" in history

    # Run a hit test and read the per-channel scores.
    browser.get(f"{base}/admin/agentmemory/knowledgebaseretrieval/{document.knowledge_base_id}/hit-test/")
    query = wait.until(ec.presence_of_element_located((By.NAME, "query")))
    query.send_keys("X-200 的功率")
    query.submit()
    wait.until(ec.presence_of_element_located((By.NAME, "expected_chunk")))
    results = browser.find_element(By.CSS_SELECTOR, "table.hits").text
    assert "20W" in results and "#1 ·" in results  # each channel's rank and score
    assert "keyword #1 (BM25" in results and "vector #1 (cosine" in results

    # Roll back the document to version 1, after a confirmation.
    browser.get(f"{base}/admin/agentmemory/documentversion/?document__id__exact={document.pk}")
    v1 = document.versions.get(number=1)
    _action(browser, "make_active", [v1.pk])
    wait.until(ec.element_to_be_clickable((By.ID, "confirm-rollback"))).click()
    assert "version 1 is active (was 2)" in wait.until(
        ec.presence_of_element_located((By.CSS_SELECTOR, ".messagelist"))).text
    document.refresh_from_db()
    assert document.active_version.number == 1

    # The user's page: forget alice, see the counts first, then the receipt.
    browser.get(f"{base}/admin/agentmemory/memoryitem/users/alice/")
    assert "我们的预算改成八万元了" in wait.until(ec.presence_of_element_located((By.ID, "memories-active"))).text
    browser.find_element(By.ID, "forget-user").click()
    counts = wait.until(ec.presence_of_element_located((By.ID, "counts"))).text
    assert "memory items" in counts
    browser.find_element(By.ID, "reason").send_keys("deletion request #42")
    browser.find_element(By.ID, "confirm-forget").click()
    receipt = wait.until(ec.presence_of_element_located((By.ID, "receipt"))).text
    assert DeletionReceipt.objects.get(pk=int(receipt.lstrip("#"))).reason == "deletion request #42"
    assert not MemoryItem.objects.for_user("alice").exclude(status="deleted").exists()
    assert MemoryItem.objects.for_user("bob").count() == 1


def test_a_view_only_operator_sees_no_action_buttons(live_server, browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    viewer = get_user_model().objects.create_user("viewer", password="view-pass-1", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(
        content_type__app_label="agentmemory", codename__startswith="view_"))
    memory = write_memory("carol", MemoryDraft(content="carol 住在苏州", type="fact", source="user_stated")).memory_id
    document = _kb_with_two_versions()
    _login(browser, live_server.url, "viewer", "view-pass-1")

    browser.get(f"{live_server.url}/admin/agentmemory/memoryitem/")
    assert "carol 住在苏州" in browser.page_source
    assert not browser.find_elements(By.NAME, "action")  # no action menu at all
    browser.get(f"{live_server.url}/admin/agentmemory/memoryitem/{memory}/change/")
    assert not browser.find_elements(By.NAME, "_save") and not browser.find_elements(By.CSS_SELECTOR, ".deletelink")
    browser.get(f"{live_server.url}/admin/agentmemory/documentversion/?document__id__exact={document.pk}")
    assert not browser.find_elements(By.NAME, "action")
    browser.get(f"{live_server.url}/admin/agentmemory/memoryitem/users/carol/")
    assert "carol 住在苏州" in browser.page_source
    assert not browser.find_elements(By.ID, "forget-user") and not browser.find_elements(By.ID, "regenerate")


def test_an_operator_reviews_a_held_version_in_the_admin(live_server, browser):  # noqa: F811
    """The review queue: the report says which case the version breaks; publishing switches atomically; a
    staff user without agentmemory.publish_version sees no decision."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from agentmemory.knowledge.evaluate import create_case
    from agentmemory.knowledge.search import search_knowledge
    from agentmemory.models import DocumentVersion

    kb = KnowledgeBase.objects.create(slug="service", name="售后", publish_gate=True)

    def _import(text):
        job = create_import_job(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content=text),
                                title="售后手册", fmt="markdown", external_id="service")
        return run_import_job(job.pk)

    assert _import("# 售后手册\n## 保修\n本产品保修两年。\n## 退货\n签收后七天内可以退货。")["publication"] == "published"
    warranty = search_knowledge("保修期多久", knowledge_bases=["service"]).hits[0]
    create_case(knowledge_base=kb, query="保修期多久", expected_chunk_ids=[warranty.chunk_id])
    assert _import("# 售后手册\n## 退货\n签收后七天内可以退货。\n## 配送\n同城当日送达。")["publication"] == "held"
    held = DocumentVersion.objects.get(status="held")

    viewer = get_user_model().objects.create_user("viewer", password="viewer-pass-1", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_heldversion"))
    get_user_model().objects.create_superuser("ops", password="ops-pass-1")
    base = live_server.url
    wait = WebDriverWait(browser, 30)

    _login(browser, base, "viewer", "viewer-pass-1")
    browser.get(f"{base}/admin/agentmemory/heldversion/")
    assert "recall@5" in browser.find_element(By.ID, "result_list").text
    assert not browser.find_elements(By.NAME, "action")
    browser.delete_all_cookies()

    _login(browser, base, "ops", "ops-pass-1")
    browser.get(f"{base}/admin/agentmemory/heldversion/{held.pk}/change/")
    report = browser.find_element(By.CSS_SELECTOR, "table.am-gate").text
    assert "保修期多久" in report and "保修" in report and "not in the top 10" in report
    browser.get(f"{base}/admin/agentmemory/heldversion/")
    _action(browser, "publish", [held.pk])
    assert "1 version(s) published" in wait.until(
        ec.presence_of_element_located((By.CSS_SELECTOR, ".messagelist"))).text
    assert DocumentVersion.objects.get(pk=held.pk).status == "active"
    assert search_knowledge("同城送达要多久", knowledge_bases=["service"]).hits[0].version == 2


def test_an_operator_reads_the_context_ledger_with_its_feedback_and_token_usage(live_server, browser):  # noqa: F811
    """The ledger in a browser: a user's contexts, one opened with its items and the 👎 a user gave on one of
    them, a sample of the period, and token usage per day that adds up to the contexts' totals."""
    from rest_framework.test import APIClient
    from selenium.webdriver.common.by import By

    from agentmemory.context.feedback import give_feedback
    from agentmemory.models import ContextRecord

    city = write_memory("ruth", MemoryDraft(content="用户住在青岛", type="fact", key="city",
                                            source="user_stated")).memory_id
    api = APIClient()
    api.force_authenticate(get_user_model().objects.create_superuser("ops", password="ops-pass-1"))
    totals = []
    for query in ("我住在哪个城市？", "帮我写一封请假邮件", "青岛明天天气"):
        body = api.post("/api/agentmemory/context/", {"user_id": "ruth", "query": query}, format="json").json()
        totals.append(body["token_counts"]["total"])
    record = ContextRecord.objects.for_user("ruth").order_by("created_at").first()
    marker = next(i["marker"] for i in record.items if i["ref"].get("memory_id") == city)
    give_feedback(record, rating=-1, items=[marker], comment="已经搬到上海", actor="user:1")
    base = live_server.url

    _login(browser, base, "ops", "ops-pass-1")
    browser.get(f"{base}/admin/agentmemory/contextrecord/?q=ruth")
    rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    assert len(rows) == 3 and "−1" in browser.find_element(By.ID, "result_list").text
    browser.get(f"{base}/admin/agentmemory/contextrecord/{record.pk}/change/")
    page = browser.find_element(By.ID, "content-main").text
    assert "我住在哪个城市" in page and f"memory:{city}" in page and "👎" in page and "已经搬到上海" in page
    browser.get(f"{base}/admin/agentmemory/contextrecord/sample/?n=2&days=1")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#sample tbody tr")) == 2
    browser.get(f"{base}/admin/agentmemory/contextrecord/usage/?user_id=ruth")
    total = browser.find_element(By.CSS_SELECTOR, "#usage-total .context-tokens").text
    assert int(total) == sum(totals)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_admin_and_the_users_page_speak_the_hosts_language(live_server, browser, language, settings):  # noqa: F811
    """Under the host's LANGUAGE_CODE the admin (model names, columns, actions, filters) and the user's page
    come from the message catalogues; screenshots of both are kept in .agentmemory/screenshots/."""
    from django.utils import translation
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.browser import SCREENSHOTS

    settings.LANGUAGE_CODE = language
    admin = get_user_model().objects.create_superuser("ops", password="ops-pass-1")
    write_memory(str(admin.pk), MemoryDraft(content="用户在腾讯工作", type="fact", key="employer", source="user_stated"))
    with translation.override(language):
        plural = str(MemoryItem._meta.verbose_name_plural)
        status = str(MemoryItem._meta.get_field("status").verbose_name)
        confirm = str(_action_label("confirm"))
    if language == "zh-hans":
        assert plural != "memory items" and status != "status"  # translated, not the English source

    _login(browser, live_server.url, "ops", "ops-pass-1")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
    browser.get(f"{live_server.url}/admin/agentmemory/memoryitem/")
    page = browser.find_element(By.TAG_NAME, "body").text
    assert plural.lower() in page.lower() and status.lower() in page.lower(), page[:500]
    options = [o.text for o in Select(browser.find_element(By.NAME, "action")).options]
    assert confirm in options, options
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.set_window_size(1400, 900)
    browser.save_screenshot(str(SCREENSHOTS / f"i18n-admin-memory-{language}.png"))

    browser.get(f"{live_server.url}/memory/{admin.pk}/")
    body = browser.find_element(By.TAG_NAME, "body").text
    title = "我记得的关于你的事" if language == "zh-hans" else "What I remember about you"
    assert title in body and "你在腾讯工作" in body, body[:300]
    browser.save_screenshot(str(SCREENSHOTS / f"i18n-user-page-{language}.png"))


def _action_label(name: str):
    from django.contrib import admin as django_admin

    model_admin = django_admin.site._registry[MemoryItem]
    return getattr(model_admin, name).short_description

"""In a real browser, under the host's login: a user sees only their memories, corrects one, exports,
and forgets themselves; another user's page is not found. Screenshots of failures: .agentmemory/screenshots/."""
from __future__ import annotations

import json
import os

import pytest
from django.contrib.auth import get_user_model

from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft
from tests.browser import browser, needs_browser  # noqa: F401  (fixture)

pytestmark = [pytest.mark.django_db(transaction=True), needs_browser]


def test_a_user_corrects_exports_and_forgets_in_the_browser(live_server, browser):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    # The memory knows the host's users by their primary keys (USER_ID_RESOLVER's default).
    alice = str(get_user_model().objects.create_user("alice", password="alice-pass-1").pk)
    bob = str(get_user_model().objects.create_user("bob", password="bob-pass-1").pk)
    budget = write_memory(alice, MemoryDraft(content="我们的预算是五万元", type="fact", key="budget",
                                               source="user_stated")).memory_id
    write_memory(alice, MemoryDraft(content="我喜欢简短的回答", type="preference", key="reply_style",
                                      source="user_stated"))
    write_memory(bob, MemoryDraft(content="BOB 的公司在宁波", type="fact", source="user_stated"))
    wait = WebDriverWait(browser, 30)

    # The host's own login page, then the user's page.
    browser.get(f"{live_server.url}/memory/")
    wait.until(ec.presence_of_element_located((By.NAME, "username"))).send_keys("alice")
    browser.find_element(By.NAME, "password").send_keys("alice-pass-1")
    browser.find_element(By.ID, "login").click()
    wait.until(ec.presence_of_element_located((By.ID, "summary")))
    assert browser.current_url.endswith(f"/memory/{alice}/")
    # The host is en-us: the page is English (its labels; the memories as written), and switches to Chinese.
    assert "What I remember about you" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(f"{live_server.url}/memory/{alice}/?lang=zh")
    wait.until(ec.presence_of_element_located((By.ID, "summary")))
    page = browser.find_element(By.TAG_NAME, "body").text
    assert "我记得的关于你的事" in page and "我们的预算是五万元" in page and "我喜欢简短的回答" in page
    assert "BOB" not in page
    if os.environ.get("AGENTMEMORY_SCREENSHOT_DIR"):
        browser.save_screenshot(os.path.join(os.environ["AGENTMEMORY_SCREENSHOT_DIR"], "user_page.png"))

    # Correct the budget: a new version supersedes it, both shown.
    item = browser.find_element(By.ID, f"memory-{budget}")
    item.find_element(By.TAG_NAME, "summary").click()
    box = item.find_element(By.NAME, "content")
    box.clear()
    box.send_keys("我们的预算改成八万元了")
    item.find_element(By.CSS_SELECTOR, "button.save").click()
    wait.until(ec.presence_of_element_located((By.ID, "notice")))
    assert "我们的预算改成八万元了" in browser.find_element(By.TAG_NAME, "body").text
    assert "superseded" in browser.find_element(By.ID, f"memory-{budget}").get_attribute("class")
    current = MemoryItem.objects.for_user(alice).filter(status="active", key="budget").get()
    assert current.supersedes_id == budget and current.source == "user_stated"

    # Export everything (the same request the link makes, with the page's session).
    exported = browser.execute_async_script(
        "const done = arguments[0]; fetch(document.getElementById('export').href, {credentials: 'same-origin'})"
        ".then(r => r.text()).then(done);")
    data = json.loads(exported)
    assert {m["content"] for m in data["memories"]} >= {"我们的预算是五万元", "我们的预算改成八万元了"}
    assert all(m["content"] != "BOB 的公司在宁波" for m in data["memories"])

    # Another user's page is not found.
    browser.get(f"{live_server.url}/memory/{bob}/")
    assert "BOB" not in browser.page_source and "Not Found" in browser.page_source

    # Forget me: the confirmation shows what will go, then the receipt.
    browser.get(f"{live_server.url}/memory/")
    wait.until(ec.element_to_be_clickable((By.ID, "forget"))).click()
    counts = wait.until(ec.presence_of_element_located((By.ID, "counts"))).text
    assert "3 条记忆" in counts
    browser.find_element(By.ID, "confirm").click()
    receipt = wait.until(ec.presence_of_element_located((By.ID, "receipt"))).text
    assert receipt.startswith("#")
    assert not MemoryItem.objects.for_user(alice).exclude(status="deleted").exists()
    assert MemoryItem.objects.for_user(bob).count() == 1

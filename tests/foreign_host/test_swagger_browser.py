"""A real browser on the host's live server: Swagger UI loads offline, "Authorize" takes a key, a call works."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentmemory.api_keys import create_api_key
from agentmemory.memory.write import write_memory
from agentmemory.types import MemoryDraft

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
                       reason="Debian's chromium and chromium-driver are not installed (make test installs them "
                              "as root)"),
]


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def test_swagger_authorize_takes_an_api_key_and_calls_the_api(live_server, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    write_memory("ann", MemoryDraft(content="ann 的公司在宁波 SWAGGERSECRET", type="fact", key="city",
                                    source="user_stated"))
    _key, raw = create_api_key("swagger-user", scopes=["read"], user_ids=["ann"])
    wait = WebDriverWait(browser, 60)

    browser.get(f"{live_server.url}/api/agentmemory/docs/")
    wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "button.btn.authorize"))).click()
    field = wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, ".auth-container input")))
    field.send_keys(raw)
    browser.find_element(By.CSS_SELECTOR, ".auth-btn-wrapper button.authorize").click()
    browser.find_element(By.CSS_SELECTOR, ".auth-btn-wrapper button.btn-done").click()

    path = "/api/agentmemory/users/{user_id}/memories/"
    summary = wait.until(ec.element_to_be_clickable((
        By.XPATH, f"//div[contains(@class,'opblock-get')]//*[@data-path='{path}']/ancestor::button[1]"
                  f" | //div[contains(@class,'opblock-get')]//span[@data-path='{path}']")))
    summary.click()
    block = summary.find_element(By.XPATH, "./ancestor::div[contains(@class,'opblock-get')][1]")
    wait.until(lambda _d: block.find_element(By.CSS_SELECTOR, ".try-out__btn")).click()
    block.find_element(By.CSS_SELECTOR, "input[placeholder='user_id']").send_keys("ann")
    block.find_element(By.CSS_SELECTOR, "button.execute").click()
    status = wait.until(lambda _d: block.find_element(By.CSS_SELECTOR, ".live-responses-table tbody .response-col_status"))
    wait.until(lambda _d: "SWAGGERSECRET" in block.text or status.text.strip() not in ("", "undefined"))
    Path(os.environ.get("AGENTMEMORY_SCREENSHOT_DIR", tmp_path)).mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(Path(os.environ.get("AGENTMEMORY_SCREENSHOT_DIR", tmp_path)) / "swagger.png"))
    assert status.text.strip().startswith("200"), block.text[:2000]
    assert "SWAGGERSECRET" in block.text
    # The request Swagger sent carried the key as a Bearer token (shown in its curl line).
    assert f"Authorization: Bearer {raw}" in block.text

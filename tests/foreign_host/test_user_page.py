"""The end user's page, under the host's own login: permissions, language, export, corrections."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client, override_settings

from agentmemory.memory.write import write_memory
from agentmemory.models import MemoryItem
from agentmemory.types import MemoryDraft

from .conftest_data import uid

pytestmark = pytest.mark.django_db
PAGE = "/memory/"


def _login(username: str, **flags) -> Client:
    User = get_user_model()
    user = User.objects.filter(username=username).first() or User.objects.create_user(username, **flags)
    client = Client()
    client.force_login(user)
    return client


def _memory(name: str, content: str, **kw) -> int:
    """A memory of the host's user ``name``, whose memory user id is their primary key."""
    kw.setdefault("type", "fact")
    return write_memory(uid(name), MemoryDraft(content=content, source="user_stated", **kw)).memory_id


def test_anonymous_goes_to_the_hosts_login_and_others_pages_are_not_found():
    assert Client().get("/memory/").url.startswith("/accounts/login/?next=")
    _memory("bob", "bob 的预算是五万")
    alice = _login("alice")
    assert alice.get("/memory/").url == f"{PAGE}{uid('alice')}/"
    bob = uid("bob")
    other = alice.get(f"{PAGE}{bob}/")
    assert other.status_code == 404 and "五万" not in other.content.decode()
    assert alice.get(f"{PAGE}{bob}/export/").status_code == 404
    assert alice.post(f"{PAGE}{bob}/forget/").status_code == 404
    assert alice.get(f"{PAGE}bob/").status_code == 404  # nor by bob's username
    assert MemoryItem.objects.for_user(bob).count() == 1


def test_staff_need_the_model_permissions():
    _memory("carol", "carol 住在苏州")
    carol = uid("carol")
    staff = _login("ops", is_staff=True)
    assert staff.get(f"{PAGE}{carol}/").status_code == 403
    user = get_user_model().objects.get(username="ops")
    user.user_permissions.add(Permission.objects.get(codename="view_memoryitem"))
    staff = Client()
    staff.force_login(user)
    assert "苏州" in staff.get(f"{PAGE}{carol}/").content.decode()
    assert staff.post(f"{PAGE}{carol}/forget/").status_code == 403


def test_the_page_in_english_and_chinese_and_the_export():
    first = _memory("dan", "dan 喜欢简短的回答", type="preference", key="reply_style")
    client, dan = _login("dan"), uid("dan")
    client.post(f"{PAGE}{dan}/{first}/correct/", {"content": "dan 喜欢详细的回答"})
    # This host is en-us without LocaleMiddleware: its page is English, whatever the browser asks.
    default = client.get(f"{PAGE}{dan}/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert '<html lang="en">' in default and "What I remember about you" in default
    with override_settings(LANGUAGE_CODE="zh-hans"):  # a Chinese host
        zh = _login("dan").get(f"{PAGE}{dan}/").content.decode()
    assert '<html lang="zh-Hans">' in zh
    assert "我记得的关于你的事" in zh and "偏好" in zh and "已被更正" in zh
    en = client.get(f"{PAGE}{dan}/?lang=en").content.decode()
    assert "What I remember about you" in en and "Preferences" in en
    exported = client.get(f"{PAGE}{dan}/export/")
    assert exported["Content-Disposition"].startswith("attachment")
    data = json.loads(exported.content)
    assert [(m["content"], m["status"]) for m in data["memories"]] == [
        ("dan 喜欢简短的回答", "superseded"), ("dan 喜欢详细的回答", "active")]
    assert data["memories"][1]["supersedes"] == first and data["user_id"] == dan


def test_a_host_overrides_the_template_by_name(tmp_path, settings):
    folder = tmp_path / "agentmemory"
    folder.mkdir()
    (folder / "remembered.html").write_text(
        '{% extends "agentmemory/page_base.html" %}{% block content %}<h1>Host styled</h1>'
        "{% for label, items in groups %}{% for item in items %}<p>{{ item.content }}</p>{% endfor %}{% endfor %}"
        "{% endblock %}", encoding="utf-8")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
    _memory("erin", "erin 住在厦门")
    page = _login("erin").get(f"{PAGE}{uid('erin')}/").content.decode()
    assert "Host styled" in page and "erin 住在厦门" in page


def test_the_page_speaks_to_the_user():
    _memory("fay", "用户在腾讯工作", type="fact", key="employer")
    _memory("fay", "The user's dog is named Max", type="fact", key="pet")
    page = _login("fay").get(f"{PAGE}{uid('fay')}/").content.decode()
    assert '<div class="content">你在腾讯工作</div>' in page and '<div class="content">Your dog is named Max</div>' in page
    assert MemoryItem.objects.for_user(uid("fay")).filter(content="用户在腾讯工作").exists()  # stored as written

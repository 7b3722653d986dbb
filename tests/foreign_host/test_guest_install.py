"""agentmemory as a guest: the host's own API is unchanged, keys are scoped, installation is merge-safe."""
from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from agentmemory.api_keys import create_api_key
from agentmemory.memory.write import write_memory
from agentmemory.models import AuditEvent, MemoryItem
from agentmemory.types import MemoryDraft

from .conftest_data import API
from .notes.models import Note

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


def _key_client(**options) -> tuple[APIClient, str]:
    _key, raw = create_api_key(options.pop("name", "bot"), **options)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client, raw


# --- the host's own API ------------------------------------------------------------------------

def test_the_hosts_own_api_behaves_as_before():
    owner = get_user_model().objects.create_user("hana", password="s3cret-pass")
    Note.objects.create(owner=owner, text="host data")
    _client, raw = _key_client(name="agent")

    basic = APIClient()
    basic.credentials(HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"hana:s3cret-pass").decode())
    listed = basic.get("/api/notes/")
    assert listed.status_code == 200 and listed.json() == [{"id": Note.objects.get().pk, "text": "host data"}]

    # An agentmemory key is not a credential on the host's views: refused, never a 500.
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    refused = bearer.get("/api/notes/")
    assert refused.status_code in (401, 403)
    # ...and the error body keeps the host's (DRF's default) shape, not the app's.
    assert refused.json() == {"detail": "Authentication credentials were not provided."}
    assert APIClient().get("/api/notes/").json() == {"detail": "Authentication credentials were not provided."}


def test_a_host_that_kept_the_old_global_settings_does_not_let_keys_into_its_views():
    """0.1's README had hosts set the app's classes globally; with them kept, a key still cannot reach
    the host's viewset (it used to reach it as request.user and crash with a 500)."""
    get_user_model().objects.create_user("hana", password="pw")
    _client, raw = _key_client(name="agent")
    old = {
        "DEFAULT_AUTHENTICATION_CLASSES": ["agentmemory.api.authentication.ApiKeyAuthentication",
                                           "rest_framework.authentication.SessionAuthentication"],
        "DEFAULT_PERMISSION_CLASSES": ["agentmemory.api.permissions.IsApiClientOrStaff"],
        "EXCEPTION_HANDLER": "agentmemory.api.errors.exception_handler",
    }
    with override_settings(REST_FRAMEWORK=old):
        bearer = APIClient()
        bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert bearer.get("/api/notes/").status_code == 403
        assert bearer.get(f"{API}whoami/").status_code == 200


# --- keys: scopes, users, agents, expiry, attribution -------------------------------------------------

def test_a_key_for_one_user_and_one_agent_with_read_only():
    write_memory("u1", MemoryDraft(content="u1 喜欢靠窗的座位", type="preference", key="seat", source="user_stated"))
    write_memory("u1", MemoryDraft(content="u1 在 a1 里的订单号 8812", type="fact", key="order",
                                   source="user_stated", agent_id="a1"))
    write_memory("u1", MemoryDraft(content="u1 在 a2 里的工单 77", type="fact", key="ticket",
                                   source="user_stated", agent_id="a2"))
    write_memory("u2", MemoryDraft(content="u2 的预算是 5 万", type="fact", key="budget", source="user_stated"))
    client, _raw = _key_client(name="u1-phone", scopes=["read"], user_ids=["u1"], agent_ids=["a1"])

    listed = client.get(f"{API}users/u1/memories/")
    assert listed.status_code == 200
    assert sorted(m["content"] for m in listed.json()["results"]) == ["u1 喜欢靠窗的座位", "u1 在 a1 里的订单号 8812"]
    context = client.post(f"{API}context/", {"user_id": "u1", "agent_id": "a1", "query": "我的订单号是多少？"},
                          format="json")
    assert context.status_code == 200
    assert "8812" in context.content.decode() and "工单 77" not in context.content.decode()

    # A key for one agent acts for it when the request names none.
    implicit = client.post(f"{API}context/", {"user_id": "u1", "query": "我的订单号是多少？"}, format="json")
    assert implicit.status_code == 200 and "8812" in implicit.content.decode()
    assert "工单 77" not in implicit.content.decode()

    assert client.get(f"{API}users/u2/memories/").status_code == 403
    assert client.post(f"{API}context/", {"user_id": "u2", "agent_id": "a1", "query": "预算"},
                       format="json").status_code == 403
    denied_write = client.post(f"{API}users/u1/memories/", {"content": "x", "type": "fact", "agent_id": "a1",
                                                            "source": "user_stated"}, format="json")
    assert denied_write.status_code == 403 and "write" in denied_write.json()["detail"]
    assert client.post(f"{API}sessions/", {"user_id": "u1", "agent_id": "a1"}, format="json").status_code == 403
    assert client.post(f"{API}context/", {"user_id": "u1", "agent_id": "a2", "query": "工单"},
                       format="json").status_code == 403
    assert client.get(f"{API}users/u1/memories/?agent_id=a2").status_code == 403
    assert "5 万" not in listed.content.decode()


def test_user_prefix_keys_act_for_a_tenant_only():
    client, _raw = _key_client(name="tenant-42", scopes=["read", "write"], user_id_prefix="t42:")
    assert client.post(f"{API}users/t42:ann/memories/", {"content": "住在苏州", "type": "fact",
                                                         "source": "user_stated"}, format="json").status_code == 201
    assert client.get(f"{API}users/t43:bo/memories/").status_code == 403


def test_writes_are_attributed_to_the_key_that_made_them():
    client, _raw = _key_client(name="crm-sync", scopes=["read", "write"])
    made = client.post(f"{API}users/ann/memories/", {"content": "公司做跨境电商", "type": "fact",
                                                     "source": "user_stated"}, format="json")
    assert made.status_code == 201
    event = AuditEvent.objects.for_object("memory", made.json()["memory"]["id"]).get(action="create")
    assert event.actor == "api_key:crm-sync"
    session = client.post(f"{API}sessions/", {"user_id": "ann"}, format="json").json()
    client.post(f"{API}sessions/{session['id']}/turns/", {"role": "user", "content": "记住：我们的预算是 8 万元"},
                format="json")
    remembered = MemoryItem.objects.for_user("ann").exclude(pk=made.json()["memory"]["id"])
    assert remembered.exists()
    assert {e.actor for e in AuditEvent.objects.for_user("ann").filter(object_type="memory")} == {"api_key:crm-sync"}


def test_keys_from_the_command_carry_their_limits_and_expire():
    out = io.StringIO()
    call_command("agentmemory_create_api_key", "ann-phone", "--scope", "read", "--scope", "write",
                 "--user", "ann", "--expires-in", "1h", stdout=out)
    raw = out.getvalue().strip().splitlines()[-1]
    assert "scopes read, write" in out.getvalue() and "users ann" in out.getvalue()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    me = client.get(f"{API}whoami/").json()
    assert me["scopes"] == ["read", "write"] and me["user_ids"] == ["ann"] and me["expires_at"]
    assert client.get(f"{API}users/bo/memories/").status_code == 403

    from django.utils import timezone

    from agentmemory.models import ApiKey
    ApiKey.objects.filter(name="ann-phone").update(expires_at=timezone.now())
    expired = client.get(f"{API}users/ann/memories/")
    assert expired.status_code == 401 and expired.json() == {"error": "authentication_failed",
                                                            "detail": "This API key has expired."}


# --- the host adds its own authentication; throttling ------------------------------------------------

def test_a_host_adds_its_own_authentication_for_the_apps_views():
    staff = get_user_model().objects.create_user("ops", password="ops-pass", is_staff=True, is_superuser=True)
    assert staff.is_superuser
    basic = APIClient()
    basic.credentials(HTTP_AUTHORIZATION="Basic " + base64.b64encode(b"ops:ops-pass").decode())
    # The host's Basic auth is the host's: the app's views do not take it unless the host says so.
    assert basic.get(f"{API}whoami/").status_code == 401
    with override_settings(AGENTMEMORY={"EXTRA_AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.BasicAuthentication"]}):
        me = basic.get(f"{API}whoami/")
        assert me.status_code == 200 and me.json()["username"] == "ops" and me.json()["is_staff"] is True


def test_throttling_is_the_apps_own_setting():
    from django.core.cache import cache

    cache.clear()
    client, _raw = _key_client(name="chatty")
    with override_settings(AGENTMEMORY={"THROTTLE_RATE": "3/min"}):
        codes = [client.get(f"{API}whoami/").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        throttled = client.get(f"{API}whoami/")
        assert throttled.json()["error"] == "throttled" and int(throttled["Retry-After"]) > 0
    cache.clear()


# --- schema and Swagger UI from the app's own urls ------------------------------------------------------

def test_the_apps_schema_declares_the_key_and_only_its_own_endpoints():
    schema = APIClient().get(f"{API}schema/?format=json")
    assert schema.status_code == 200
    doc = schema.json()
    assert doc["info"]["title"] == "agentmemory API"
    from agentmemory import __version__
    assert doc["info"]["version"] == __version__
    assert doc["components"]["securitySchemes"]["ApiKeyAuth"] == {
        "type": "http", "scheme": "bearer", "description": doc["components"]["securitySchemes"]["ApiKeyAuth"]
        ["description"]}
    assert all(path.startswith(API) for path in doc["paths"])  # nothing of the host's
    assert {"ApiKeyAuth": []} in doc["paths"][f"{API}context/"]["post"]["security"]


def test_schema_validates_with_zero_warnings_under_drfs_own_schema_class():
    out = io.StringIO()
    call_command("agentmemory_schema", "--validate", stdout=out)
    assert "0 warnings, 0 errors" in out.getvalue()


def test_swagger_ui_is_served_with_its_assets_offline():
    page = APIClient().get(f"{API}docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"{API}schema/?format=json" in html.encode().decode("unicode_escape")  # escapejs
    for asset in ("swagger-ui.css", "swagger-ui-bundle.js"):
        assert f"{API}docs/assets/{asset}" in html
        response = APIClient().get(f"{API}docs/assets/{asset}")
        assert response.status_code == 200 and b"".join(response.streaming_content)
    assert APIClient().get(f"{API}docs/assets/..%2Fsettings.py").status_code == 404


# --- checks and schedules --------------------------------------------------------------------------

def _manage(*args: str, spectacular: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.foreign_host.settings",
           "FOREIGN_HOST_USES_SPECTACULAR": "1" if spectacular else ""}
    return subprocess.run([sys.executable, "-m", "django", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("spectacular", [False, True], ids=["plain-host", "host-documenting-its-api-with-spectacular"])
def test_check_deploy_raises_nothing_of_ours_but_the_hosts_decisions(spectacular):
    result = _manage("check", "--deploy", "--fail-level", "ERROR", spectacular=spectacular)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    ours = [line for line in output.splitlines() if "agentmemory" in line and "(" in line and ")" in line]
    # The only things of ours: tasks run eagerly here and the cache is per process, both the host's choices
    # (their hints say so; the second is a note, correct either way).
    assert all("agentmemory.W001" in line or "agentmemory.I001" in line for line in ours), ours
    assert "host" in output.split("agentmemory.W001", 1)[1].split("\n", 2)[1].lower()
    assert "drf_spectacular" not in output  # its deploy check generates the host's schema: ours included


def test_schedules_are_created_idempotently_and_keep_operator_edits(admin_client):
    from django_celery_beat.models import PeriodicTask

    from agentmemory.schedules import BEAT_SCHEDULE

    out = io.StringIO()
    call_command("agentmemory_setup_schedules", stdout=out)
    assert f"{len(BEAT_SCHEDULE)} created, 0 updated, 0 unchanged" in out.getvalue()
    rows = {t.name: t for t in PeriodicTask.objects.filter(name__in=BEAT_SCHEDULE)}
    assert {n: r.task for n, r in rows.items()} == {n: e["task"] for n, e in BEAT_SCHEDULE.items()}

    PeriodicTask.objects.filter(name="agentmemory-decay-memories").update(enabled=False)
    out = io.StringIO()
    call_command("agentmemory_setup_schedules", stdout=out)
    assert f"0 created, 0 updated, {len(BEAT_SCHEDULE)} unchanged" in out.getvalue()
    assert PeriodicTask.objects.get(name="agentmemory-decay-memories").enabled is False
    call_command("agentmemory_setup_schedules", "--reset", stdout=io.StringIO())
    assert PeriodicTask.objects.get(name="agentmemory-decay-memories").enabled is True
    assert PeriodicTask.objects.filter(name__startswith="agentmemory-").count() == len(BEAT_SCHEDULE)

    page = admin_client.get("/admin/django_celery_beat/periodictask/")
    assert page.status_code == 200 and b"agentmemory-decay-memories" in page.content


# --- evaluation over REST -------------------------------------------------------------------------

def test_an_operator_key_saves_a_case_and_runs_an_evaluation():
    from .conftest_data import build_world

    world = build_world(with_knowledge=True)
    client, _raw = _key_client(name="ops", scopes=["read", "admin"])
    case = client.post(f"{API}knowledge-bases/manual/evaluation-cases/",
                       {"query": "X-200 的功率是多少", "expected_document_ids": [world.document]}, format="json")
    assert case.status_code == 201 and case.json()["source"] == "api"
    bad = client.post(f"{API}knowledge-bases/manual/evaluation-cases/", {"query": "x", "expected_document_ids":
                                                                          [world.document + 999]}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "expected_document_ids"

    run = client.post(f"{API}knowledge-bases/manual/evaluations/")
    assert run.status_code == 201, run.json()
    body = run.json()
    assert body["status"] == "succeeded" and body["trigger"] == "api" and body["case_count"] == 1
    assert body["hybrid_recall_at_5"] == 1.0
    assert [r["id"] for r in client.get(f"{API}knowledge-bases/manual/evaluations/").json()] == [body["id"]]

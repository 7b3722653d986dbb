"""The installed package holds the product: the benchmarks live beside it, in this repository's project only."""
from __future__ import annotations

import tomllib
from pathlib import Path

from django.core.management import get_commands
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]


def test_agentmemory_holds_no_benchmark_code():
    package = ROOT / "agentmemory"
    offenders = [str(p.relative_to(ROOT)) for p in package.rglob("*.py")
                 if "bench" in p.name or "import benchmarks" in p.read_text(encoding="utf-8")
                 or "from benchmarks" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_the_wheel_selects_only_the_agentmemory_packages():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = find_packages(where=str(ROOT), include=include)
    assert "agentmemory" in packages and "agentmemory.management.commands" in packages
    assert not [p for p in packages if p.split(".")[0] != "agentmemory"]  # no benchmarks, project or tests


def test_the_benchmarks_still_run_as_management_commands_of_the_project():
    commands = get_commands()
    for name in ("agentmemory_bench_memory", "agentmemory_bench_search", "agentmemory_bench_relevance",
                 "agentmemory_bench_sessions", "agentmemory_bench_context", "agentmemory_bench_ingest",
                 "agentmemory_bench_load"):
        assert commands[name] == "benchmarks", name
    assert commands["agentmemory_eval"] == "agentmemory"  # the product's own commands stay in the package

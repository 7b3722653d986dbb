"""Every setting is documented, and README gives the two commands that CI runs."""
from __future__ import annotations

from pathlib import Path

from agentmemory.conf import DEFAULTS

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_is_in_the_configuration_doc():
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [key for key in DEFAULTS if f"`{key}`" not in doc]
    assert missing == []


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in readme and "make test" in ci
    assert "make run" in readme

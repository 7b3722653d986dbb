"""Every setting is documented, and README gives the two commands that CI runs."""
from __future__ import annotations

from pathlib import Path

from agentmemory.conf import DEFAULTS

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_in_the_configuration_doc():
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [key for key in DEFAULTS if f"`{key}`" not in doc]
    assert missing == []


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in readme and "make test" in ci
    assert "make run" in readme


def _documented_defaults(doc: str) -> dict[str, str]:
    """``| `KEY` | `default` | ... |`` rows of docs/configuration.md: key -> the default as written."""
    import re

    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([A-Z][A-Z0-9_]+)` \| `(.*?)` \|", doc, re.M)}


def test_the_configuration_doc_gives_every_declared_default():
    import ast

    from agentmemory.conf import DECLARATIONS

    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    written = _documented_defaults(doc)
    wrong = {}
    for key, declaration in DECLARATIONS.items():
        text = written.get(key)
        literal = None if text is None else text.replace("null", "None").replace("true", "True").replace(
            "false", "False")
        try:
            value = ast.literal_eval(literal) if literal is not None else KeyError
        except (ValueError, SyntaxError):
            value = SyntaxError
        if value != declaration.default or type(value) is not type(declaration.default):
            wrong[key] = (text, declaration.default)
    assert wrong == {}

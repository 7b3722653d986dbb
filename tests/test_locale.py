"""The message catalogues: complete in zh-hans, compiled (.mo matches .po), and covering every model label."""
from __future__ import annotations

import gettext
import re
from pathlib import Path

from django.apps import apps
from django.utils import translation

LOCALE = Path(__file__).resolve().parents[1] / "agentmemory" / "locale"
# Labels that read the same in both languages (names of algorithms, formats, identifiers).
SAME = {"BM25 k1", "BM25 b", "id", "ID", "pk", "API", "JSON", "RRF", "HNSW", "URL", "LLM"}


def _entries(po: Path) -> list[tuple[str, str, str, bool]]:
    """(msgctxt, msgid, msgstr, fuzzy) of a PO file, the header left out."""
    out = []
    for block in po.read_text(encoding="utf-8").split("\n\n"):
        fuzzy = "#, fuzzy" in block
        parts = {"msgctxt": "", "msgid": "", "msgstr": ""}
        current = None
        for line in block.splitlines():
            match = re.match(r'^(msgctxt|msgid|msgstr|msgid_plural|msgstr\[0\]) "(.*)"$', line)
            if match:
                current = {"msgctxt": "msgctxt", "msgid": "msgid"}.get(match.group(1), "msgstr")
                parts[current] += match.group(2)
            elif line.startswith('"') and current:
                parts[current] += line[1:-1]
        if parts["msgid"]:
            out.append((parts["msgctxt"], parts["msgid"], parts["msgstr"], fuzzy))
    return out


def test_the_chinese_catalogue_is_complete_and_compiled():
    po = LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po"
    entries = _entries(po)
    assert len(entries) > 500
    assert not [m for _c, m, s, fuzzy in entries if fuzzy], "fuzzy entries left"
    assert not [m for _c, m, s, _f in entries if not s], "untranslated entries left"
    with (LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.mo").open("rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    # Entries without escapes compare as written (the rest would need the PO unescaping rules).
    stale = [m for c, m, s, _f in entries
             if "\\" not in m + s and (compiled.pgettext(c, m) if c else compiled.gettext(m)) != s]
    assert not stale, f"the .mo is older than the .po: {stale[:3]} (run make messages)"


def test_every_model_label_reads_in_chinese():
    missing = []
    with translation.override("zh-hans"):
        for model in apps.get_app_config("agentmemory").get_models():
            meta = model._meta
            labels = [str(meta.verbose_name), str(meta.verbose_name_plural)]
            labels += [str(f.verbose_name) for f in meta.get_fields() if hasattr(f, "verbose_name")
                       and not f.auto_created]
            with translation.override("en"):
                english = [str(meta.verbose_name), str(meta.verbose_name_plural)]
                english += [str(f.verbose_name) for f in meta.get_fields() if hasattr(f, "verbose_name")
                            and not f.auto_created]
            missing += [e for zh, e in zip(labels, english, strict=True) if zh == e and e not in SAME]
    assert not missing, f"labels without a Chinese translation: {sorted(set(missing))[:20]}"

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


def _entries(po: Path) -> list[tuple[str, str, str, str, bool]]:
    """(msgctxt, msgid, msgid_plural, msgstr or msgstr[0], fuzzy) of a PO file, the header left out."""
    out = []
    for block in po.read_text(encoding="utf-8").split("\n\n"):
        fuzzy = "#, fuzzy" in block
        parts = {"msgctxt": "", "msgid": "", "msgid_plural": "", "msgstr": ""}
        current = None
        for line in block.splitlines():
            match = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr|msgstr\[0\]) "(.*)"$', line)
            if match:
                current = "msgstr" if match.group(1).startswith("msgstr") else match.group(1)
                parts[current] += match.group(2)
            elif line.startswith("msgstr["):
                current = None  # the other plural forms: msgstr[0] stands for them
            elif line.startswith('"') and current:
                parts[current] += line[1:-1]
        if parts["msgid"]:
            out.append((parts["msgctxt"], parts["msgid"], parts["msgid_plural"], parts["msgstr"], fuzzy))
    return out


def _compiled(catalogue: gettext.GNUTranslations, context: str, msgid: str, plural: str) -> str:
    if plural:
        return catalogue.ngettext(msgid, plural, 1)
    return catalogue.pgettext(context, msgid) if context else catalogue.gettext(msgid)


def test_the_chinese_catalogue_is_complete_and_compiled():
    po = LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po"
    entries = _entries(po)
    assert len(entries) > 500
    assert not [m for _c, m, _p, s, fuzzy in entries if fuzzy], "fuzzy entries left"
    assert not [m for _c, m, _p, s, _f in entries if not s], "untranslated entries left"
    with (LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.mo").open("rb") as fh:
        compiled = gettext.GNUTranslations(fh)
    # Entries without escapes compare as written (the rest would need the PO unescaping rules).
    stale = [m for c, m, plural, s, _f in entries if "\\" not in m + s and _compiled(compiled, c, m, plural) != s]
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

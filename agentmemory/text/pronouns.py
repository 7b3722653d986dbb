"""Regional and spoken forms of the Chinese first person, read as the standard ones.

Voice-typed and northern Chinese says "俺" and "咱" for "我" ("俺在淮滨一家饺子馆当帮厨", "咱家猫叫麦芽") and "俺们",
"咱们" for "我们". What the user says of themselves is read by the words it uses; a message that says "俺" says the
same as one that says "我", so the extraction reads (and keeps) it with the standard form.
"""
from __future__ import annotations

import re

_FIRST_PERSON_RE = re.compile(r"(俺|咱)(们)?")


def standard_first_person(text: str) -> str:
    """``text`` with "俺"/"咱" as "我" and "俺们"/"咱们" as "我们"; anything else unchanged."""
    return _FIRST_PERSON_RE.sub(lambda m: "我们" if m.group(2) else "我", text or "")

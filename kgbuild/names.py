"""How names are shown: shared by the offline rules and the LLM extraction, below both.

Example:
    >>> display_name("CLARICE STARLING")
    'Clarice Starling'
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff]")


def has_cjk(text: str) -> bool:
    """Whether `text` has a CJK ideograph ('程勇', 'Dr. 王')."""
    return _CJK.search(text) is not None


def display_name(name: str) -> str:
    """How a name is shown: capitals become title case ('CLARICE STARLING' -> 'Clarice Starling')."""
    if _CJK.search(name) or not name.isupper():
        return name
    words = []
    for word in name.split():
        if re.fullmatch(r"(?:[A-Z]\.)+|[IVX]+|#\d+", word):
            words.append(word)
        else:
            titled = "-".join(p[:1] + p[1:].lower() for p in word.split("-"))
            words.append(re.sub(r"^([OD]')([a-z])", lambda m: m.group(1) + m.group(2).upper(), titled))
    return " ".join(words).replace("'S ", "'s ").replace("’S ", "’s ")

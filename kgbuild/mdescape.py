"""Text taken from a script, made safe inside a Markdown report: it renders as the text it is.

A title, a name or a quote can hold Markdown (`*`, `_x_`, `[x](url)`, backticks) or HTML
(`<img onerror=...>`); written raw into report.md it would render as markup in any Markdown
viewer. `md_text` backslash-escapes the characters that open inline Markdown or HTML (CommonMark
lets any ASCII punctuation be escaped so; an underscore inside a word, as in `neil_perry`, opens
nothing and stays as it is) and turns line breaks into spaces, so the text can neither start a
block of its own nor end a table row.

Example:
    >>> print(md_text("<b>Up</b> *now* _x_ neil_perry"))
    \\<b>Up\\</b> \\*now\\* \\_x\\_ neil_perry
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"[\\`*\[\]<&|~#]|(?<![^\W_])_|_(?![^\W_])")
_BREAKS = re.compile(r"[\r\n\u2028\u2029]+")


def md_text(text: str) -> str:
    """`text` escaped for Markdown: shown as written, never read as markup."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), _BREAKS.sub(" ", text))

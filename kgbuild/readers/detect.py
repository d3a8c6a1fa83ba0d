"""Decide a file's format from its content; the extension is only a tie-breaker."""

from __future__ import annotations

import re

from kgbuild.model import SourceFormat

_FOUNTAIN_EXTENSIONS = {".fountain", ".spmd"}
_TITLE_KEY = re.compile(r"^(Title|Credit|Author|Authors|Source|Draft date|Contact)\s*:", re.IGNORECASE)
_FOUNTAIN_MARKS = re.compile(
    r"^(?:\.[A-Z0-9][^.]|!|@|~|>.*<\s*$|#{1,6}\s|=(?!=)|={3,}\s*$)|\[\[|/\*", re.MULTILINE
)
_INDENTED = re.compile(r"^(?: {10,}|\t{2,})\S", re.MULTILINE)


def sniff_binary(head: bytes, suffix: str = "") -> SourceFormat | None:
    """Recognise the formats that announce themselves in their first bytes (PDF, FDX, JSON).

    XML goes to the FDX reader when it says FinalDraft or the file is named .fdx, so that a
    broken .fdx gets the FDX reader's message rather than a plain-text guess.
    """
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"%PDF-"):
        return SourceFormat.PDF
    if stripped.startswith(b"<") and (b"<FinalDraft" in head or suffix.lower() == ".fdx"):
        return SourceFormat.FDX
    if stripped.startswith(b"["):
        return SourceFormat.STAGE_JSON
    return None


def detect_text_format(text: str, suffix: str) -> SourceFormat:
    """Choose between Fountain and plain text for a text file.

    Indented layouts (IMSDb, text exported from PDF) are plain text whatever the extension;
    a title page or Fountain markup makes it Fountain; otherwise the extension decides, and
    plain text (the most forgiving reader) is the fallback.
    """
    sample = text[:200_000]
    lines = [ln for ln in sample.split("\n") if ln.strip()]
    if not lines:
        return SourceFormat.PLAIN
    indented = len(_INDENTED.findall(sample))
    if indented > 0.2 * len(lines):
        return SourceFormat.PLAIN
    if suffix.lower() in _FOUNTAIN_EXTENSIONS or _TITLE_KEY.match(lines[0].strip()):
        return SourceFormat.FOUNTAIN
    if len(_FOUNTAIN_MARKS.findall(sample)) >= 3:
        return SourceFormat.FOUNTAIN
    return SourceFormat.PLAIN

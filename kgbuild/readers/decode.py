"""Bytes to text: BOMs, UTF-16, cp1252, GB18030; refuse binary data with a clear message.

The order of attempts matters more than any detector: UTF-8 (with or without BOM) and the
UTF-16 forms are recognised exactly; then GB18030 and cp1252 are tried with plausibility checks
(a short Chinese scene is otherwise easily taken for Korean or Urdu by statistical detectors);
charset-normalizer decides only what is left.
"""

from __future__ import annotations

import codecs
import logging
import re
import unicodedata

import charset_normalizer

from kgbuild.errors import InputError

logger = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
# charset-normalizer names the Chinese encodings by their subsets; GB18030 decodes all of them.
_ENCODING_PREFERENCE = {"gb2312": "gb18030", "gbk": "gb18030", "cp936": "gb18030"}
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
_READABLE = re.compile(
    r"[\t\n\r\f\x20-\x7e\u00a0-\u024f\u2000-\u206f\u2190-\u27bf"
    r"\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]"
)
_BINARY_MESSAGE = (
    "this is a binary file, not a screenplay; give a Fountain, Final Draft (.fdx), PDF, "
    "plain-text or STAGE script.json file"
)


def _mostly_text(text: str) -> bool:
    """True when nearly every character is printable text (letters, punctuation, spaces)."""
    if not text:
        return False
    bad = sum(
        1 for ch in text
        if ch not in "\n\r\t\f" and unicodedata.category(ch) in {"Cc", "Cs", "Co", "Cn"}
    )
    return bad <= 0.001 * len(text)


def _readable(text: str) -> float:
    """The share of characters that are usual in a screenplay: ASCII, Latin, CJK, punctuation."""
    if not text:
        return 0.0
    return len(_READABLE.findall(text)) / len(text)


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' for UTF-16 text without a BOM, else None.

    English UTF-16 has a NUL in every other byte; Chinese UTF-16 has few (its ASCII, and
    characters such as U+4E00 '一') or none, so the byte order is chosen by which decoding
    reads as text, not by counting NULs. 8-bit text (GB18030, cp1252) decoded as UTF-16 reads
    as Hangul, private-use and unassigned characters, so it is not taken for UTF-16.
    """
    sample = data[:65536]
    sample = sample[: len(sample) // 2 * 2]
    if len(sample) < 4 or (b"\x00" not in sample and len(data) % 2):
        return None
    scores = {}
    for encoding in ("utf-16-le", "utf-16-be"):
        try:
            scores[encoding] = _readable(sample.decode(encoding))
        except UnicodeDecodeError:
            continue
    if not scores:
        return None
    encoding = max(scores, key=lambda e: scores[e])
    return encoding if scores[encoding] >= 0.97 else None


def _plausible_chinese(text: str) -> bool:
    """Chinese text: its non-ASCII characters are mostly common CJK (in GB2312)."""
    wide = [ch for ch in text if ord(ch) > 0x7F]
    if len(wide) < 2 or not _mostly_text(text):
        return False
    cjk = sum(1 for ch in wide if _CJK.match(ch))
    common = 0
    for ch in wide:
        try:
            ch.encode("gb2312")
            common += 1
        except UnicodeEncodeError:
            pass
    return cjk >= 0.6 * len(wide) and common >= 0.9 * len(wide)


def _plausible_western(text: str) -> bool:
    """cp1252 text: a few accented letters and typographic marks among ASCII letters."""
    if not _mostly_text(text):
        return False
    wide = [ch for ch in text if ord(ch) > 0x7F]
    letters = sum(1 for ch in text if ch.isalpha())
    odd = sum(1 for ch in wide if not (ch.isalpha() or unicodedata.category(ch)[0] in "PSZ"))
    return letters > 0 and len(wide) <= 0.3 * letters and odd == 0


def _try(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def _decode(data: bytes, encoding: str, path: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise InputError(
            f"the file claims {encoding} but byte {e.start} does not decode; re-save it as UTF-8",
            path=path,
        ) from e


def _legacy(data: bytes, path: str) -> tuple[str, str]:
    """Decode text that is neither UTF-8 nor UTF-16."""
    for encoding, plausible in (("gb18030", _plausible_chinese), ("cp1252", _plausible_western)):
        text = _try(data, encoding)
        if text is not None and plausible(text):
            return text, encoding
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        return _decode(data, utf16, path), utf16
    best = charset_normalizer.from_bytes(data[:2_000_000]).best()
    if best is None:
        raise InputError(
            "could not recognise the text encoding; re-save the file as UTF-8", path=path
        )
    decoded = str(best)
    wide = sum(1 for ch in decoded if ord(ch) > 0x7F)
    if best.coherence < 0.05 and wide > 0.05 * max(len(decoded), 1):
        raise InputError(
            f"could not recognise the text encoding (the best guess, {best.encoding}, reads as "
            "no known language); re-save the file as UTF-8",
            path=path,
        )
    encoding = _ENCODING_PREFERENCE.get(best.encoding, best.encoding)
    logger.debug("%s: charset-normalizer chose %s", path, encoding)
    return _decode(data, encoding, path), encoding


def decode_text(data: bytes, path: str) -> tuple[str, str]:
    """Decode a screenplay file's bytes and normalize line ends to '\\n'.

    Args:
        data: The raw file content.
        path: The file's path, for messages.

    Returns:
        The text and the name of the encoding it was read with ('utf-8', 'utf-8-sig',
        'utf-16', 'utf-16-le', 'utf-16-be', 'gb18030', 'cp1252', or what charset-normalizer
        found).

    Raises:
        InputError: the data is empty, binary, or in no encoding that can be recognised.

    Example:
        >>> decode_text("王掌柜：今天没客人。".encode("gb18030"), "a.txt")
        ('王掌柜：今天没客人。', 'gb18030')
    """
    if not data:
        raise InputError("the file is empty", path=path)
    if data.startswith(codecs.BOM_UTF8):
        text, encoding = _decode(data[3:], "utf-8", path), "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text, encoding = _decode(data, "utf-16", path), "utf-16"
    elif b"\x00" in data[:65536]:
        utf16 = _utf16_without_bom(data)
        if utf16 is None:
            raise InputError(_BINARY_MESSAGE, path=path)
        text, encoding = _decode(data, utf16, path), utf16
    elif (utf8 := _try(data, "utf-8")) is not None:
        text, encoding = utf8, "utf-8"
    else:
        text, encoding = _legacy(data, path)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    sample = text[:65536]
    if sample and len(_CONTROL.findall(sample)) > 0.01 * len(sample):
        raise InputError(
            "this looks like binary data, not text; give a Fountain, Final Draft (.fdx), PDF, "
            "plain-text or STAGE script.json file",
            path=path,
        )
    return text, encoding

"""Bytes to text: BOMs, UTF-16, cp1252, GB18030; refuse binary data with a clear message."""

from __future__ import annotations

import codecs
import re

import charset_normalizer

from kgbuild.errors import InputError

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
# charset-normalizer names the Chinese encodings by their subsets; GB18030 decodes all of them.
_ENCODING_PREFERENCE = {"gb2312": "gb18030", "gbk": "gb18030", "cp936": "gb18030"}


def _utf16_without_bom(data: bytes) -> str | None:
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even_zero = sample[0::2].count(0) / len(sample[0::2])
    odd_zero = sample[1::2].count(0) / len(sample[1::2])
    if odd_zero > 0.3 and even_zero < 0.05:
        return "utf-16-le"
    if even_zero > 0.3 and odd_zero < 0.05:
        return "utf-16-be"
    return None


def _decode(data: bytes, encoding: str, path: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise InputError(
            f"the file claims {encoding} but byte {e.start} does not decode; re-save it as UTF-8",
            path=path,
        ) from e


def decode_text(data: bytes, path: str) -> tuple[str, str]:
    """Decode a screenplay file's bytes and normalize line ends to '\\n'.

    Args:
        data: The raw file content.
        path: The file's path, for messages.

    Returns:
        The text and the name of the encoding it was read with.

    Raises:
        InputError: the data is binary or in no encoding that can be recognised.
    """
    if data.startswith(codecs.BOM_UTF8):
        text, encoding = _decode(data[3:], "utf-8", path), "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text, encoding = _decode(data, "utf-16", path), "utf-16"
    elif (utf16 := _utf16_without_bom(data)) is not None:
        text, encoding = _decode(data, utf16, path), utf16
    elif b"\x00" in data[:65536]:
        raise InputError(
            "this is a binary file, not a screenplay; give a Fountain, Final Draft (.fdx), "
            "PDF, plain-text or STAGE script.json file",
            path=path,
        )
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            best = charset_normalizer.from_bytes(data[:2_000_000]).best()
            if best is None:
                raise InputError(
                    "could not recognise the text encoding; re-save the file as UTF-8",
                    path=path,
                ) from None
            encoding = _ENCODING_PREFERENCE.get(best.encoding, best.encoding)
            text = _decode(data, encoding, path)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    sample = text[:65536]
    if sample and len(_CONTROL.findall(sample)) > 0.01 * len(sample):
        raise InputError(
            "this looks like binary data, not text; give a Fountain, Final Draft (.fdx), PDF, "
            "plain-text or STAGE script.json file",
            path=path,
        )
    return text, encoding

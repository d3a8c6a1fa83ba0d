"""kgbuild's exceptions: one root, narrow subclasses.

Library code raises these; only the CLI turns them into messages and exit codes.
"""

from __future__ import annotations


class KgbuildError(Exception):
    """Root of every error kgbuild raises on purpose."""


class InputError(KgbuildError):
    """The user's input cannot be used; the message says which file, where, and what to do.

    Args:
        message: What is wrong and what to do about it.
        path: The offending file, if any.
        line: The 1-based line in that file, if known.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = path or ""
        if where and line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}" if where else message)


class NotAScreenplayError(InputError):
    """The file decodes as text but does not look like a screenplay."""


class OcrNeededError(InputError):
    """A PDF without a text layer: it needs OCR first."""


class OutputError(KgbuildError):
    """An output file or folder, or the cache folder, cannot be written; the message says which."""

"""The rich console the commands print tables with."""

from __future__ import annotations

import sys

from rich.console import Console


def stdout_console(*, width: int = 120, stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that keeps whole lines: the terminal's width, or `width`
    columns when writing to a file or pipe (rich assumes 80 there, which cuts table labels)."""
    return Console(highlight=False, soft_wrap=True, stderr=stderr, width=None if sys.stdout.isatty() else width)

"""`kgbuild ARGS` run in the test's own process, as the console script runs it.

A new Python process per command costs seconds before the command starts (torch, the readers,
every subcommand's imports); most CLI tests only need what the command prints, the exit status
and the files it leaves. `run_cli` calls the console script's entry point (`kgbuild.cli.main`,
which settles named folders and turns kgbuild's errors into one line and exit status 2) inside
click's `CliRunner` isolation: its own stdin, stdout, stderr and environment. What reaches stderr
is what a new process would show there: kgbuild's log warnings (Python's last-resort handler,
not pytest's log capture) and Python warnings under the interpreter's default filters. An
exception that escapes `main` is printed as a traceback with exit status 1, as the interpreter
does, and what the command left open is collected when it returns, as at a process's end.
Tests where the process itself is the point (killed, stopped, crashing in the middle of a write,
started without a module) still start one.

Example:
    >>> result = run_cli("parse", "examples/lizard-people.fountain")
    >>> result.returncode, "98 scenes" in result.stdout
    (0, True)
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from kgbuild.cli import main


@dataclass(frozen=True)
class Ran:
    """What a command left: its exit status and its output (the fields of `subprocess.CompletedProcess`)."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, env: Mapping[str, str | None] | None = None, cwd: Path | None = None) -> Ran:
    """Run `kgbuild ARGS` in this process.

    Args:
        args: The command line after `kgbuild`.
        env: Variables set (a value) or removed (None) for the command; the rest of the
            environment is this process's.
        cwd: The folder to run in (default: the current one).

    Returns:
        The exit status, stdout and stderr.
    """
    runner = CliRunner()
    # A process that ends closes what it left open: SQLite connections that objects of the command
    # still hold in reference cycles would otherwise keep their files locked. What lived before the
    # command is no leftover of it: frozen, the collection after it skips those objects (torch's
    # among them) and takes a fraction of the time.
    gc.freeze()
    try:
        with (runner.isolation(env=env) as (out, err, _), _argv(["kgbuild", *args]), _in(cwd),
              _fresh_process_reporting()):
            code = _exit_status()
            sys.stdout.flush()
            sys.stderr.flush()
            stdout, stderr = out.getvalue(), err.getvalue()
        gc.collect()
    finally:
        gc.unfreeze()
    return Ran(args=args, returncode=code, stdout=stdout.decode("utf-8", "replace"),
               stderr=stderr.decode("utf-8", "replace"))


def _exit_status() -> int:
    try:
        main()
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except Exception:  # what the interpreter does with an exception nobody caught
        traceback.print_exc()
        return 1
    return 0


@contextmanager
def _argv(argv: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved


@contextmanager
def _in(cwd: Path | None) -> Iterator[None]:
    saved = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


#: The warning filters of a Python started without -W or PYTHONWARNINGS (`sys.warnoptions` empty).
_DEFAULT_FILTERS = [("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                    ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                    ("ignore", ResourceWarning, "")]


@contextmanager
def _fresh_process_reporting() -> Iterator[None]:
    """Log records and Python warnings reach stderr as in a new process: the root logger has no
    handler of pytest's (so the last-resort handler writes WARNING and above to sys.stderr) and
    the warning filters are the interpreter's defaults."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers = []
    root.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in reversed(_DEFAULT_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)  # type: ignore[arg-type]
            warnings.showwarning = _show_on_stderr
            yield
    finally:
        root.handlers = handlers
        root.setLevel(level)


def _show_on_stderr(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    file: object = None, line: str | None = None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

"""Several processes opening the same new file at one moment: the harness of the cache race tests."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable


def _open(open_one: Callable[[str], None], path: str, barrier, errors) -> None:
    barrier.wait()
    try:
        open_one(path)
    except Exception as e:
        errors.put(repr(e))


def open_at_once(open_one: Callable[[str], None], paths: Iterable[str], copies: int = 3) -> list[str]:
    """Open each path from `copies` forked processes released together; return the errors raised.

    A process that dies without raising (a crash) fails the call's assertion on its exit code.
    """
    context = multiprocessing.get_context("fork")
    errors = context.Queue()
    for path in paths:
        barrier = context.Barrier(copies)
        processes = [context.Process(target=_open, args=(open_one, path, barrier, errors)) for _ in range(copies)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(60)
        assert [p.exitcode for p in processes] == [0] * copies
    found = []
    while not errors.empty():
        found.append(errors.get())
    return found

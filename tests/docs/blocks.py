"""The code blocks of the README and the docs pages, and how their shown output is checked.

A block is a fenced code block (three or more backticks) with its language. HTML comments on
the lines right before its fence give directives: `<!-- skip: REASON -->` (the block is not run;
the test reports REASON) and `<!-- exit: N -->` (its commands end with status N, not 0).

A `console` block holds commands (`$ ` lines) each followed by the output it shows; the output
is checked loosely by `missing_output`: whitespace runs count as one space, `...` stands for
anything, and the shown lines must appear in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"

_FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
_DIRECTIVE = re.compile(r"^<!--\s*(skip|exit):\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    skip: str | None = None
    exit_status: int = 0

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


@dataclass(frozen=True)
class Command:
    """One `$ ` line of a console block and the output shown after it."""

    command: str
    shown: list[str] = field(default_factory=list)


def pages() -> list[Path]:
    """The README and every docs page, in a fixed order."""
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def read_blocks(path: Path) -> list[Block]:
    """Every fenced code block of `path`, with the directives of the comments before it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, lang = opening.groups()
        end = i + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        if end == len(lines):
            raise ValueError(f"{path}:{i + 1}: a code block that is never closed")
        directives: dict[str, str] = {}
        j = i - 1
        while j >= 0 and (found := _DIRECTIVE.match(lines[j].strip())):
            directives.setdefault(found.group(1), found.group(2))
            j -= 1
        blocks.append(Block(path=path, line=i + 1, lang=lang.lower(), text="\n".join(lines[i + 1:end]) + "\n",
                            skip=directives.get("skip"), exit_status=int(directives.get("exit", "0"))))
        i = end + 1
    return blocks


def console_commands(text: str) -> list[Command]:
    """The commands of a console block, each with the output lines shown after it."""
    commands: list[Command] = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            commands.append(Command(line[2:]))
        elif not commands:
            raise ValueError(f"console output before any command: {line!r}")
        else:
            commands[-1].shown.append(line)
    return commands


def _squash(text: str) -> str:
    return " ".join(text.split())


def missing_output(shown: list[str], output: str) -> str | None:
    """The first piece of the shown output that the real output lacks (in order), or None."""
    actual = _squash(output)
    at = 0
    for line in shown:
        for piece in line.split("..."):
            piece = _squash(piece)
            if not piece:
                continue
            found = actual.find(piece, at)
            if found < 0:
                return piece
            at = found + len(piece)
    return None

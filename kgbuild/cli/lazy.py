"""A click group whose subcommands are imported on first use.

Each command is named by "module:attribute" with its one-line summary beside it, so
`kgbuild --help` lists every command without importing one (a command's module pulls in
pydantic, rich, torch ...), and `kgbuild build ...` imports only the build command's module.
`LazyGroup.commands` is a mapping that imports a command when it is looked up, so click's own
`get_command` and any `group.commands[name]` work unchanged.

Example:
    >>> group = LazyGroup(name="demo", lazy={
    ...     "parse": LazyCommand("kgbuild.cli.parse:parse", "Parse SCRIPT and summarize it.")})
    >>> sorted(group.commands)           # nothing imported yet
    ['parse']
    >>> group.commands["parse"].name     # imported now
    'parse'
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, NamedTuple

import click


class LazyCommand(NamedTuple):
    """Where a command is and what `--help` says of it before it is imported."""

    target: str
    """'package.module:attribute', the click command object."""
    summary: str
    """The command's one-line help; a test checks it against the command's own."""


class LazyCommands(MutableMapping[str, click.Command]):
    """Commands by name; a lazy one is imported when it is first looked up."""

    def __init__(self, lazy: Mapping[str, LazyCommand]) -> None:
        self._lazy = dict(lazy)
        self._loaded: dict[str, click.Command] = {}

    def summary(self, name: str) -> str | None:
        """The stored summary of a command not imported yet (None once it is, or for an added one)."""
        spec = self._lazy.get(name)
        return spec.summary if spec is not None and name not in self._loaded else None

    def __getitem__(self, name: str) -> click.Command:
        if name in self._loaded:
            return self._loaded[name]
        spec = self._lazy[name]  # KeyError: click reports 'No such command'
        module_name, _, attribute = spec.target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{spec.target} is not a click command")
        self._loaded[name] = command
        return command

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        found = self._lazy.pop(name, None) is not None
        found = self._loaded.pop(name, None) is not None or found
        if not found:
            raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._lazy, *self._loaded]))

    def __len__(self) -> int:
        return len(self._lazy.keys() | self._loaded.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._lazy or name in self._loaded


class LazyGroup(click.Group):
    """A `click.Group` taking `lazy={name: LazyCommand(...)}` besides ordinary commands."""

    def __init__(self, *args: Any, lazy: Mapping[str, LazyCommand], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        commands = LazyCommands(lazy)
        for name, command in self.commands.items():
            commands[name] = command
        self.commands = commands

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The "Commands" section of `--help`, from the stored summaries of commands not imported."""
        commands = self.commands
        rows: list[tuple[str, str]] = []
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(name) for name in names), default=0)
        for name in names:
            summary = commands.summary(name) if isinstance(commands, LazyCommands) else None
            if summary is not None:
                rows.append((name, click.Command(name, help=summary).get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

"""Errors of the graph stores and exports."""

from __future__ import annotations

from kgbuild.errors import KgbuildError


class StoreError(KgbuildError):
    """A graph store cannot be opened, written or read; the message says what to do next."""


class QueryError(StoreError):
    """A Cypher query was refused or failed; the message points at the position and the fix."""

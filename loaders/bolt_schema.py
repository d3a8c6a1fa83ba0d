"""What a Bolt server supports, found by trying: its parameters, its schema statements.

Parameters: Neo4j takes them as values. FalkorDB writes them into the query text unescaped, into
a 4,096-byte buffer, so a string holding `'` or a backslash breaks the query (and could rewrite
it), and a longer statement crashes the server. `parameters_in_text` asks the server to echo a
probe value holding both characters; a server that fails on it but echoes the escaped form gets
every string escaped (`escape_for_text`) and statements kept small.

Schema: the plan asks, per label, for a uniqueness constraint on `key` and a named index on `movie`
(`plan_constraints`); Neo4j takes both. Other Bolt servers speak a subset: FalkorDB refuses
`CREATE CONSTRAINT` and the named `IF NOT EXISTS` index form but takes
`CREATE INDEX FOR (n:Label) ON (n.prop)`, and it reports itself as "Neo4j/5.13.0", so its agent
string cannot tell it apart. So every statement is tried; a refused one falls back to the plain
index (an index on `key` stands in for the constraint: loads merge on `key`, which keeps keys
unique), and whatever the server would not do comes back as a note, never hidden.

Example:
    >>> adapt_schema(server).notes  # doctest: +SKIP
    ['no uniqueness constraint on key for any label: the server refused CREATE CONSTRAINT ...']
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.loaders.errors import StoreError
from kgbuild.loaders.plan import constraint_cypher, movie_index_cypher, plain_index_cypher
from kgbuild.loaders.records import node_labels
from kgbuild.schema import Schema, load_schema

logger = logging.getLogger(__name__)


#: Comes back unchanged from a server with real parameters; breaks one that writes them into the
#: query text without escaping.
PARAMETER_PROBE = "kgbuild's probe: \\ '"


def escape_for_text(value: Any) -> Any:
    """`value` with every string escaped for a server that writes parameters into the query text.

    Example:
        >>> print(escape_for_text({"name": "O'Brien"})["name"])
        O\\'Brien

    Raises:
        StoreError: a string holds a NUL character, which such a server cuts off.
    """
    if isinstance(value, str):
        if "\x00" in value:
            raise StoreError(f"{value[:40]!r} holds a NUL character, which this server cannot store")
        return value.replace("\\", "\\\\").replace("'", "\\'")
    if isinstance(value, list):
        return [escape_for_text(v) for v in value]
    if isinstance(value, dict):
        return {k: escape_for_text(v) for k, v in value.items()}
    return value


def parameters_in_text(echo: Callable[[str], str | None]) -> bool:
    """Whether the server writes parameters into the query text (FalkorDB) rather than binding them.

    Args:
        echo: Returns what the server answers to `RETURN $value`, or None when it refuses.

    Raises:
        StoreError: neither the probe nor its escaped form comes back intact.
    """
    if echo(PARAMETER_PROBE) == PARAMETER_PROBE:
        return False
    if echo(escape_for_text(PARAMETER_PROBE)) == PARAMETER_PROBE:
        return True
    raise StoreError(f"the server garbles query parameters (it does not echo {PARAMETER_PROBE!r}, "
                     "escaped or not); kgbuild cannot store text there")


class SchemaServer(Protocol):
    """The two things `adapt_schema` asks of a server."""

    def attempt(self, cypher: str) -> str | None:
        """Run one schema statement; None when the server took it, else its reason for refusing."""

    def indexes(self) -> set[tuple[str, str]] | None:
        """(label, property) of every index, or None when the server cannot list them."""


class SchemaAdaptation(BaseModel):
    """What `adapt_schema` found out about a server."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    takes_constraints: bool = Field(description="The server took Neo4j's CREATE CONSTRAINT.")
    notes: list[str] = Field(default_factory=list, description="What the server would not do.")


def _refused(server: SchemaServer, statements: dict[str, str]) -> dict[str, str]:
    """Label -> the server's reason, for each statement it refused."""
    refusals = {}
    for label, cypher in statements.items():
        reason = server.attempt(cypher)
        if reason is not None:
            refusals[label] = reason
    return refusals


def _which(refused: dict[str, str], labels: list[str]) -> str:
    return "any label" if len(refused) == len(labels) > 1 else ", ".join(refused)


def adapt_schema(server: SchemaServer, schema: Schema | None = None) -> SchemaAdaptation:
    """Create the constraints and indexes a load wants, in the forms the server takes.

    Args:
        server: Runs schema statements and lists indexes.
        schema: The schema whose entity types are the labels; the default STAGE-KG schema when None.

    Returns:
        Whether the server took Neo4j's constraints, and one note per thing it would not do
        (none on Neo4j).

    Raises:
        Whatever `server` raises for a lost connection (a refusal is not an error).
    """
    labels = node_labels(schema or load_schema())
    notes: list[str] = []
    wanted: list[tuple[str, str]] = []
    refused = _refused(server, {label: constraint_cypher(label) for label in labels})
    takes_constraints = not refused
    if refused:
        reason = next(iter(refused.values()))
        notes.append(f"no uniqueness constraint on key for {_which(refused, labels)}: the server refused "
                     f"CREATE CONSTRAINT ({reason}); key is indexed instead, and loads merge on it")
        wanted += [(label, "key") for label in refused]
    refused = _refused(server, {label: movie_index_cypher(label) for label in labels})
    if refused:
        logger.info("the server refused named indexes (%s); trying the plain form",
                    next(iter(refused.values())))
        wanted += [(label, "movie") for label in refused]
    if not wanted:
        return SchemaAdaptation(takes_constraints=takes_constraints, notes=notes)
    existing = server.indexes() or set()
    failed: dict[tuple[str, str], str | None] = {}
    for label, prop in wanted:
        if (label, prop) not in existing:
            refusal = server.attempt(plain_index_cypher(label, prop))
            if refusal is not None:
                failed[(label, prop)] = refusal
    for prop in ("key", "movie"):
        missing = [label for label, p in failed if p == prop]
        if missing:
            notes.append(f"no index on {prop} for {', '.join(missing)}: the server refused "
                         f"{plain_index_cypher(missing[0], prop)} ({failed[(missing[0], prop)]}); "
                         f"lookups by {prop} scan the label")
    return SchemaAdaptation(takes_constraints=takes_constraints, notes=notes)

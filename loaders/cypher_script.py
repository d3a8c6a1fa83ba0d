"""A self-contained Cypher script of a graph, replayable on Neo4j and on the embedded store.

One statement per line, parameter-free: values are string literals with every quote, backslash
and control character escaped, so a name like `'}) DETACH DELETE (n` stays a name. Labels and
types come from the schema only. Statements `MERGE` on the store key, so replaying twice changes
nothing. The script holds every layer a store holds: entities and relations, then the scene layer
(`Scene` nodes and the `in_scene` relationships of who is in each scene).

Example:
    >>> cypher_literal("it's")
    "'it\\\\'s'"
"""

from __future__ import annotations

import os
from pathlib import Path

from kgbuild.atomic import write_text_atomic
from kgbuild.loaders.records import (
    IN_SCENE,
    NODE_PROPERTIES,
    PRESENCE_PROPERTIES,
    RELATION_PROPERTIES,
    SCENE_LABEL,
    SCENE_PROPERTIES,
    NodeRow,
    PresenceRow,
    Refusal,
    RelationRow,
    SceneRow,
    prepare_rows,
    safe_identifier,
)
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema
from kgbuild.version import __version__

#: The script's file name in the folder `kgbuild export --format cypher` writes.
SCRIPT_FILE = "graph.cypher"
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    if code < 0x20 or code in (0x7F, 0x85, 0x2028, 0x2029):
        return f"\\u{code:04x}"
    return ch


def cypher_literal(value: str | int | list | None) -> str:
    """A value as a Cypher literal: quoted, escaped strings; integers; lists; null.

    Raises:
        TypeError: a value of another kind.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "'" + "".join(_escape_char(ch) for ch in value) + "'"
    if isinstance(value, list):
        return "[" + ", ".join(cypher_literal(v) for v in value) + "]"
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


_Row = NodeRow | RelationRow | SceneRow | PresenceRow


def _sets(var: str, row: _Row, properties: tuple[tuple[str, str], ...]) -> str:
    data = row.model_dump()
    return ", ".join(f"{var}.{name} = {cypher_literal(data[name])}" for name, _ in properties
                     if name != "key")


def node_statement(label: str, row: NodeRow | SceneRow,
                   properties: tuple[tuple[str, str], ...] = NODE_PROPERTIES) -> str:
    """The statement that creates or updates one node (an entity, or with `SCENE_PROPERTIES` a scene)."""
    return (f"MERGE (n:{safe_identifier(label)} {{key: {cypher_literal(row.key)}}}) "
            f"SET {_sets('n', row, properties)};")


def relation_statement(rel_type: str, source: str, target: str, row: RelationRow | PresenceRow,
                       properties: tuple[tuple[str, str], ...] = RELATION_PROPERTIES) -> str:
    """The statement that creates or updates one relationship between existing nodes (a relation, or
    with `PRESENCE_PROPERTIES` a character's presence in a scene)."""
    return (f"MATCH (a:{safe_identifier(source)} {{key: {cypher_literal(row.source_key)}}}) "
            f"MATCH (b:{safe_identifier(target)} {{key: {cypher_literal(row.target_key)}}}) "
            f"MERGE (a)-[r:{safe_identifier(rel_type)} {{key: {cypher_literal(row.key)}}}]->(b) "
            f"SET {_sets('r', row, properties)};")


def render_script(graph: KnowledgeGraph, *, movie: str | None = None,
                  schema: Schema | None = None) -> tuple[str, list[Refusal]]:
    """The graph as a Cypher script.

    Args:
        graph: The graph; items the schema does not admit are left out and returned.
        movie: The movie name on every row; the graph's title when None.
        schema: The schema; the default STAGE-KG schema when None.

    Returns:
        The script text and the refused items.
    """
    rows = prepare_rows(graph, movie=movie, schema=schema)
    lines = [
        (f"// kgbuild {__version__} Cypher script of movie {cypher_literal(rows.movie)}: "
         f"{rows.node_count()} nodes, {rows.relation_count()} relationships."),
        ("// One statement per line. Neo4j: cypher-shell -f this file (after constraints.cypher "
         "from 'kgbuild export --format csv', for speed)."),
    ]
    for label, node_rows in rows.nodes.items():
        lines += [node_statement(label, r) for r in node_rows]
    for group in rows.relations:
        lines += [relation_statement(group.type, group.source_type, group.target_type, r)
                  for r in group.rows]
    lines += [node_statement(SCENE_LABEL, r, SCENE_PROPERTIES) for r in rows.scenes]
    if rows.presence_subject is not None:
        lines += [relation_statement(IN_SCENE, rows.presence_subject, SCENE_LABEL, r, PRESENCE_PROPERTIES)
                  for r in rows.presence]
    return "\n".join(lines) + "\n", rows.refused


def export_cypher(graph: KnowledgeGraph, path: str | os.PathLike[str], *, movie: str | None = None,
                  schema: Schema | None = None) -> tuple[Path, list[Refusal]]:
    """Write the Cypher script atomically; returns its path and the refused items."""
    text, refused = render_script(graph, movie=movie, schema=schema)
    return write_text_atomic(path, text), refused

"""Cypher as the embedded store speaks it: parameter checks and Neo4j-only constructs.

The embedded store (LadybugDB) treats a missing parameter as null instead of an error, so
parameters are checked here before a query runs. It also differs from Neo4j in a few places;
`neo4j_only_constructs` finds them and says what to write instead.

Example:
    >>> query_parameters("MATCH (c:Character {name: $name}) RETURN c.name // $not_this")
    {'name'}
    >>> [h.feature for h in neo4j_only_constructs("MATCH (n) SET n += $props")]
    ['SET n += map']
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.loaders.errors import QueryError

_PARAM = re.compile(r"\$(?:`([^`]+)`|([A-Za-z_][A-Za-z0-9_]*|\d+))")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class DialectHint(BaseModel):
    """A Neo4j-only construct found in a query, where, and what the embedded store wants."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    feature: str
    line: int
    column: int
    instead: str
    silent: bool = Field(default=False, description="The query runs, but answers unlike Neo4j.")

    def message(self) -> str:
        """'line 1, column 12: labels(n) ...: write ...'."""
        return f"line {self.line}, column {self.column}: {self.feature} is Neo4j's; {self.instead}"


def mask_literals(cypher: str) -> str:
    """The query with string literals and comments blanked out (same length, newlines kept)."""
    out = list(cypher)
    i, n = 0, len(cypher)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ch = cypher[i]
        if ch in "'\"":
            j = i + 1
            while j < n and cypher[j] != ch:
                j += 2 if cypher[j] == "\\" else 1
            blank(i + 1, min(j, n))
            i = j + 1
        elif cypher.startswith("//", i):
            j = cypher.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif cypher.startswith("/*", i):
            j = cypher.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif ch == "`":
            j = cypher.find("`", i + 1)
            i = n if j < 0 else j + 1
        else:
            i += 1
    return "".join(out)


def query_parameters(cypher: str) -> set[str]:
    """Every `$name` the query uses (outside string literals and comments)."""
    return {m.group(1) or m.group(2) for m in _PARAM.finditer(mask_literals(cypher))}


def check_parameters(cypher: str, params: dict[str, Any]) -> None:
    """Refuse a query whose parameters are missing or unused.

    Raises:
        QueryError: a `$name` has no value, or a value has no `$name`.
    """
    used = query_parameters(cypher)
    missing = sorted(used - params.keys())
    extra = sorted(params.keys() - used)
    problems = []
    if missing:
        problems.append("missing " + ", ".join(f"${m}" for m in missing) + " (pass "
                        + " ".join(f"--param {m}=VALUE" for m in missing) + ")")
    if extra:
        problems.append("not used by the query: " + ", ".join(extra) + " (check the spelling)")
    if problems:
        raise QueryError("query parameters: " + "; ".join(problems))


#: How deep a --param value may nest lists and maps ([ ] and { }).
MAX_PARAM_DEPTH = 100


def json_nesting(text: str) -> int:
    """The deepest nesting of [ ] and { } in `text`, not counting brackets inside JSON strings.

    Example:
        >>> json_nesting('[1, {"a": "[["}]')
        2
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_param(text: str) -> tuple[str, Any]:
    """`name=value` from the command line; the value is JSON when it parses, else a string.

    Example:
        >>> parse_param("scene=12"), parse_param("name=Anna"), parse_param('ids=["a","b"]')
        (('scene', 12), ('name', 'Anna'), ('ids', ['a', 'b']))

    Raises:
        QueryError: no '=', the name is not an identifier, or the value nests lists and maps
            deeper than `MAX_PARAM_DEPTH`.
    """
    name, sep, raw = text.partition("=")
    if not sep or not _NAME.match(name):
        raise QueryError(f"--param {text!r}: write NAME=VALUE, e.g. --param scene=12")
    if json_nesting(raw) > MAX_PARAM_DEPTH:
        raise QueryError(f"--param {name}: the value nests more than {MAX_PARAM_DEPTH} levels of [ ] and {{ }}; "
                         "give a flatter value, or the text as a JSON string in double quotes")
    try:
        return name, json.loads(raw)
    except json.JSONDecodeError:
        return name, raw


_RETURN = re.compile(r"\bRETURN\b", re.IGNORECASE)
_PROJECTION_END = re.compile(r"\b(?:ORDER\s+BY|SKIP|LIMIT)\b|;", re.IGNORECASE)
_DISTINCT = re.compile(r"\s*DISTINCT\b", re.IGNORECASE)
_ALIAS = re.compile(r"\sAS\s+(`[^`]+`|\w+)\s*\Z", re.IGNORECASE)


def _depths(masked: str) -> list[int]:
    """The bracket depth ((), [], {}) at every character of a masked query."""
    depths, depth = [], 0
    for ch in masked:
        if ch in ")]}":
            depth -= 1
        depths.append(depth)
        if ch in "([{":
            depth += 1
    return depths


def returned_columns(cypher: str) -> list[str] | None:
    """The column names Neo4j gives a query's final RETURN: the alias, else the item as written.

    Example:
        >>> returned_columns("MATCH (a)-[r]->(b) RETURN type(r), b.name AS other ORDER BY other")
        ['type(r)', 'other']

    Returns:
        One name per returned item; None when there is no top-level RETURN or it returns `*`.
    """
    masked = mask_literals(cypher)
    depths = _depths(masked)
    starts = [m.end() for m in _RETURN.finditer(masked) if depths[m.start()] == 0]
    if not starts:
        return None
    start = starts[-1]
    distinct = _DISTINCT.match(masked, start)
    start = distinct.end() if distinct else start
    end = next((m.start() for m in _PROJECTION_END.finditer(masked, start) if depths[m.start()] == 0),
               len(masked))
    cuts = [start, *(i + 1 for i in range(start, end) if masked[i] == "," and depths[i] == 0), end + 1]
    names = []
    for left, right in zip(cuts, cuts[1:], strict=False):
        item = masked[left:right - 1].strip()
        if not item or item == "*":
            return None
        alias = _ALIAS.search(item)
        if alias:
            names.append(alias.group(1).strip("`"))
        else:  # the item as written, without the comments around it
            first = left + len(masked[left:right - 1]) - len(masked[left:right - 1].lstrip())
            names.append(cypher[first:first + len(item)])
    return names


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_CONSTRUCTS: tuple[tuple[re.Pattern[str], str, str, bool], ...] = (
    (re.compile(r"\bSET\s+\w+\s*\+=", re.IGNORECASE), "SET n += map",
     "write one SET n.key = value per property", False),
    (re.compile(r"\b(?:all)?shortestPath\s*\(", re.IGNORECASE), "shortestPath(...)",
     "write MATCH p = (a)-[* SHORTEST 1..6]-(b)", False),
    (re.compile(r"\[\s*\w+\s+IN\s+(?:[^\[\]]|\[[^\[\]]*\])*?(?:\||\bWHERE\b)", re.IGNORECASE),
     "a list comprehension",
     "write list_transform(list, x -> expr) or list_filter(list, x -> condition)", False),
    (re.compile(r"\blabels\s*\(", re.IGNORECASE), "labels(n)",
     "here it returns one label as a string; compare n.type (stored on every node) instead", True),
    (re.compile(r"\[\s*0\s*\]"), "list index [0]",
     ("lists are 1-based here (x[1] is the first element); compare n.first_scene or use "
      "size()/IN instead of indexing"), True),
    (re.compile(r"\bapoc\.", re.IGNORECASE), "an APOC procedure",
     "APOC is a Neo4j plugin; run this query on Neo4j (kgbuild query --neo4j URI)", False),
    (re.compile(r"\bCREATE\s+(?:CONSTRAINT|INDEX)\b", re.IGNORECASE), "CREATE CONSTRAINT/INDEX",
     "the embedded store keys every node on `key` already; nothing to create", False),
    (re.compile(r"\bIN\s+TRANSACTIONS\b", re.IGNORECASE), "CALL { ... } IN TRANSACTIONS",
     "write the statement without it (the embedded store has one writer)", False),
)


def neo4j_only_constructs(cypher: str) -> list[DialectHint]:
    """Neo4j-only constructs in a query, each with its position and the embedded store's form."""
    masked = mask_literals(cypher)
    hints = []
    for pattern, construct, instead, silent in _CONSTRUCTS:
        for m in pattern.finditer(masked):
            line, column = _position(cypher, m.start())
            hints.append(DialectHint(feature=construct, line=line, column=column,
                                     instead=instead, silent=silent))
    return sorted(hints, key=lambda h: (h.line, h.column))


_ERROR_POSITION = re.compile(r"\(line: (\d+), offset: (\d+)\)")
_MISSING_TABLE = re.compile(r"Table \S+ does not exist", re.IGNORECASE)
_MISSING_FUNCTION = re.compile(r"function (\w+) does not exist", re.IGNORECASE)


def explain_error(cypher: str, message: str, *, tables: list[str] | None = None) -> str:
    """A store's error message rewritten for a person: position, a caret, and Neo4j hints.

    Args:
        cypher: The query that failed.
        message: The store's error message.
        tables: The store's labels and relationship types, listed when the query names another.
    """
    first = message.strip().splitlines()[0] if message.strip() else "query failed"
    parts = [first]
    m = _ERROR_POSITION.search(message)
    if m:
        line, offset = int(m.group(1)), int(m.group(2))
        lines = cypher.split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        detail = _ERROR_POSITION.sub("", first).replace("Parser exception:", "").strip()
        parts = [f"syntax error at line {line}, column {offset + 1}: {detail}", f"  {text}",
                 "  " + " " * offset + "^"]
    missing = _MISSING_FUNCTION.search(message)
    if missing and missing.group(1).upper() == "TYPE":
        parts.append("type(r) is defined by stores kgbuild creates; in this store write label(r)")
    if tables and _MISSING_TABLE.search(message):
        parts.append("labels and relationship types in this store: " + ", ".join(tables))
    if "read-only" in message:
        parts.append("kgbuild query opens the store read-only; pass --write to change it")
    parts += [h.message() for h in neo4j_only_constructs(cypher)]
    return "\n".join(parts)

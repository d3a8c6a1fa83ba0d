"""One movie of a store that holds several: a Cypher query limited to the nodes of one movie.

Every node a load writes (entities and scenes) carries the property `movie`, the movie id
(`kgbuild.loaders.records`), on the embedded store and on a Bolt server alike. `scope_to_movie`
adds `movie: $kgbuild_movie` to every node pattern of a query, in MATCH, OPTIONAL MATCH, MERGE
and CREATE clauses and in the patterns of WHERE, EXISTS and pattern comprehensions, so the query
sees one movie's subgraph. A relationship only joins nodes of one movie, so limiting the nodes
limits the relationships. String literals and comments are left as they are; a node pattern that
names its movie already (`{movie: ...}`) keeps its own.

Example:
    >>> scope_to_movie("MATCH (c:Character)-[r]->(o {name: $n}) RETURN c.name, type(r)")
    'MATCH (c:Character {movie: $kgbuild_movie})-[r]->(o {movie: $kgbuild_movie, name: $n}) RETURN c.name, type(r)'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kgbuild.loaders.dialect import mask_literals
from kgbuild.loaders.errors import QueryError
from kgbuild.loaders.plan import STORE_MOVIES
from kgbuild.loaders.results import QueryResult

#: Runs one Cypher query with its parameters on a store.
Runner = Callable[[str, dict[str, Any]], QueryResult]

#: The query parameter holding the movie id.
MOVIE_PARAMETER = "kgbuild_movie"
#: Counts one movie's nodes (to tell an unknown movie from an empty answer).
COUNT_MOVIE_NODES = "MATCH (n) WHERE n.movie = $movie RETURN count(n) AS nodes"

_NAME = r"(?:[A-Za-z_][A-Za-z0-9_]*|`[^`]*`)"
#: What may stand between a node pattern's parentheses: a variable, labels, a property map.
_NODE_BODY = re.compile(rf"\s*(?:{_NAME})?\s*(?::\s*!?\s*{_NAME}(?:\s*[:|&]\s*!?\s*{_NAME})*)?\s*(\{{.*\}})?\s*\Z",
                        re.DOTALL)
_CLAUSE = re.compile(r"\b(MATCH|MERGE|CREATE|WHERE|WITH|RETURN|UNWIND|SET|DELETE|REMOVE|ORDER|SKIP|LIMIT|CALL|"
                     r"YIELD|FOREACH|UNION|ON)\b", re.IGNORECASE)
_PATTERN_CLAUSES = {"MATCH", "MERGE", "CREATE"}
_NAMES_MOVIE = re.compile(r"[{,]\s*`?movie`?\s*:")


def _blank_names(masked: str) -> str:
    """The masked query with the insides of `quoted names` blanked too (same length)."""
    return re.sub(r"`[^`]*`", lambda m: "`" + " " * (len(m.group()) - 2) + "`", masked)


def _closing(text: str, start: int) -> int | None:
    """The index of the ')' that closes the '(' at `start`, or None."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return None


def _before(text: str, index: int) -> tuple[str, str]:
    """The last two non-space characters before `index` ('' when there are none)."""
    found = [ch for ch in reversed(text[:index]) if not ch.isspace()][:2]
    return (found[0] if found else "", found[1] if len(found) > 1 else "")


def _after(text: str, index: int) -> str:
    """The next two non-space characters from `index` on."""
    return "".join([ch for ch in text[index:] if not ch.isspace()][:2])


def _is_node_pattern(text: str, start: int, end: int) -> bool:
    if _NODE_BODY.match(text[start + 1:end]) is None:
        return False
    last, second = _before(text, start)
    if (last == ">" and second == "-") or (last == "-" and second in "-]"):
        return True  # the far end of a relationship: -->(b), ]->(b), -[r]-(b)
    if _after(text, end + 1) in ("--", "->", "-[", "<-"):
        return True  # the near end: (a)-->, (a)-[r]->, (a)<--
    word = re.search(r"([A-Za-z_]+)\s*\Z", text[:start])
    if word is not None and word.group(1).upper() in _PATTERN_CLAUSES:
        return True  # MATCH (n), MERGE (n), CREATE (n)
    if last in ",=":
        clauses = _CLAUSE.findall(text[:start])
        return bool(clauses) and clauses[-1].upper() in _PATTERN_CLAUSES  # MATCH (a), (b) / p = (a)
    return False


def scope_to_movie(cypher: str) -> str:
    """The query with `movie: $kgbuild_movie` in every node pattern (see the module docstring).

    Args:
        cypher: One Cypher statement.

    Returns:
        The statement to run with the parameter `MOVIE_PARAMETER` set to the movie id.
    """
    text = _blank_names(mask_literals(cypher))
    edits: list[tuple[int, str]] = []
    for start, ch in enumerate(text):
        if ch != "(":
            continue
        end = _closing(text, start)
        if end is None or not _is_node_pattern(text, start, end):
            continue
        body = text[start + 1:end]
        brace = body.find("{")
        if brace < 0:
            space = " " if body.strip() else ""
            edits.append((start + 1 + len(body.rstrip()), f"{space}{{movie: ${MOVIE_PARAMETER}}}"))
        elif _NAMES_MOVIE.search(body) is None:
            empty = not body[brace + 1:body.rfind("}")].strip()
            edits.append((start + 1 + brace + 1, f"movie: ${MOVIE_PARAMETER}" + ("" if empty else ", ")))
    for position, insert in sorted(edits, reverse=True):
        cypher = cypher[:position] + insert + cypher[position:]
    return cypher


def movie_runner(run: Runner, movie: str) -> Runner:
    """`run` limited to one movie: every query it is given is scoped (`scope_to_movie`).

    Args:
        run: Runs one query on the store.
        movie: The movie id, as `kgbuild load` stored it on every node.

    Returns:
        The scoped runner.

    Raises:
        QueryError: the store holds no node of `movie` (the message lists the movies it holds), or
            a query gives `$kgbuild_movie` itself.
    """
    if not run(COUNT_MOVIE_NODES, {"movie": movie}).rows[0][0]:
        held = [str(row[0]) for row in run(STORE_MOVIES, {}).rows]
        shown = ", ".join(repr(m) for m in held[:20]) + (f" and {len(held) - 20} more" if len(held) > 20 else "")
        raise QueryError(f"no movie {movie!r} in this store; " + (f"it holds {shown}" if held else "it is empty"))

    def scoped(cypher: str, params: dict[str, Any]) -> QueryResult:
        if MOVIE_PARAMETER in params:
            raise QueryError(f"${MOVIE_PARAMETER} is the parameter --movie sets; name yours otherwise")
        return run(scope_to_movie(cypher), {**params, MOVIE_PARAMETER: movie})

    return scoped

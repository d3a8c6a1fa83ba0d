"""Example queries that run unchanged on the embedded store and on every Bolt server.

They stay inside the Cypher all stores share: every returned column is named with AS, node
kinds are compared through the stored `type` property rather than `labels(n)`, time is read from
`first_scene`/`last_scene` rather than list indexes, and `type(r)` works on the embedded store
because kgbuild defines it there. A character is found by its name or any alias, in any case
(`-p character=angier` finds Robert Angier), and a name no character has is an error that lists
the close ones, never an empty answer. The docs (stores.md) show the same queries.

Example:
    >>> example("where-and-when").values({"character": "Reggie"})
    {'character': 'Reggie'}
    >>> example("characters-by-relations").values({})
    {'limit': 10}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process, utils

from kgbuild.loaders.errors import QueryError
from kgbuild.loaders.results import QueryResult
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import Schema, load_schema

#: Every character's name and aliases (the same text on every store).
CHARACTER_NAMES = "MATCH (c:Character) RETURN c.name AS name, c.aliases AS aliases"

#: Matches `$character` to a name or an alias, in any case (the parameter is bound first, as
#: the embedded store takes no parameter inside a list predicate).
_CHARACTER_MATCH = ("WITH toLower($character) AS wanted\n"
                    "MATCH (c:Character)-[r:{types}]->({target})\n"
                    "WHERE toLower(c.name) = wanted OR any(a IN c.aliases WHERE toLower(a) = wanted)\n")


#: Binds the character `c` named by `$character` (a name or alias, any case).
_WANTED = ("WITH toLower($character) AS wanted\n"
           "MATCH (c:Character)\n"
           "WHERE toLower(c.name) = wanted OR any(a IN c.aliases WHERE toLower(a) = wanted)\n")


class ExampleParameter(BaseModel):
    """A parameter of an example query."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    sample: Any = Field(description="A value to show; the default when the parameter is optional.")
    required: bool = Field(default=True, description="No default: the caller must give it.")
    character: bool = Field(
        default=False, description="Names a character, matched to names and aliases in any case.")

    def usage(self) -> str:
        """'-p character=NAME (required; ...)' for listings and error messages."""
        shown = f"-p {self.name}={_shown(self.sample)}"
        if self.required:
            return f"-p {self.name}=VALUE ({self.description}; required, e.g. {shown})"
        return f"{shown} ({self.description}; the default)"


def _shown(value: Any) -> str:
    return value if isinstance(value, str) and value.strip() == value and " " not in value else repr(value)


class ExampleQuery(BaseModel):
    """A named query and its parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    cypher: str
    parameters: tuple[ExampleParameter, ...] = ()
    needs_scene_layer: bool = Field(
        default=False, description="Reads the scene layer (Scene nodes, in_scene): answers nothing on a graph "
        "without one (format 2, STAGE references).")

    @property
    def samples(self) -> dict[str, Any]:
        """A sample value of every parameter."""
        return {p.name: p.sample for p in self.parameters}

    def values(self, given: dict[str, Any]) -> dict[str, Any]:
        """The parameter values to run with: the defaults of optional parameters, then `given`.

        Raises:
            QueryError: a required parameter is not given (the message shows how to give it).
        """
        missing = [p for p in self.parameters if p.required and p.name not in given]
        if missing:
            raise QueryError(f"example {self.name} needs " + "; ".join(p.usage() for p in missing))
        return {**{p.name: p.sample for p in self.parameters if not p.required}, **given}


def _character(description: str) -> ExampleParameter:
    return ExampleParameter(name="character", description=description, sample="Reggie", character=True)


EXAMPLES: tuple[ExampleQuery, ...] = (
    ExampleQuery(
        name="characters-by-relations",
        description="Characters by number of relations, most connected first.",
        cypher=(
            "MATCH (c:Character)-[r]-()\n"
            "WHERE type(r) <> 'in_scene'\n"
            "RETURN c.name AS character, count(r) AS relations\n"
            "ORDER BY relations DESC, character\n"
            "LIMIT $limit"
        ),
        parameters=(ExampleParameter(name="limit", description="how many characters", sample=10,
                                     required=False),),
    ),
    ExampleQuery(
        name="kinship-and-hostility",
        description="Kinship and hostility among characters, and the scene each is first seen.",
        cypher=(
            "MATCH (a:Character)-[r:kinship_with|hostility_with]->(b:Character)\n"
            "RETURN a.name AS character, type(r) AS relation, b.name AS other,\n"
            "       r.first_scene AS first_scene\n"
            "ORDER BY relation, character, other"
        ),
    ),
    ExampleQuery(
        name="where-and-when",
        description="Where a character is seen (locations) and when (time points), by scene.",
        cypher=(
            _CHARACTER_MATCH.format(types="located_at|present_on", target="p")
            + "RETURN p.name AS place_or_time, p.type AS kind, r.scenes AS scenes\n"
            "ORDER BY r.first_scene, place_or_time"
        ),
        parameters=(_character("a character's name or alias, any case"),),
    ),
    ExampleQuery(
        name="objects-possessed",
        description="The objects a character possesses, and in which scenes.",
        cypher=(
            _CHARACTER_MATCH.format(types="possesses", target="o:Object")
            + "RETURN o.name AS object, o.description AS description, r.scenes AS scenes\n"
            "ORDER BY object"
        ),
        parameters=(_character("a character's name or alias, any case"),),
    ),
    ExampleQuery(
        name="known-up-to-scene",
        description="All that is known up to scene N: every relation first seen by then.",
        cypher=(
            "MATCH (a)-[r]->(b)\n"
            "WHERE r.first_scene <= $scene\n"
            "RETURN a.name AS subject, type(r) AS relation, b.name AS object,\n"
            "       r.first_scene AS scene\n"
            "ORDER BY scene, subject, relation, object"
        ),
        parameters=(ExampleParameter(name="scene", description="a scene number", sample=3),),
    ),
    ExampleQuery(
        name="scene-cast",
        description="Who is in scene N, how (present, offscreen, away, mentioned), and the lines that show it.",
        cypher=(
            "MATCH (c:Character)-[p:in_scene]->(s:Scene)\n"
            "WHERE s.scene = $scene\n"
            "RETURN c.name AS character, p.mode AS mode, p.evidence_quotes AS evidence\n"
            "ORDER BY mode, character"
        ),
        parameters=(ExampleParameter(name="scene", description="a scene number", sample=3),),
        needs_scene_layer=True,
    ),
    ExampleQuery(
        name="knows-events",
        description="What a character can know of each event at scene N (screen order): future, "
                    "past-absence or past-presence (took part, witnessed, or told by then).",
        cypher=_WANTED + (
            "MATCH (e:Event)\n"
            "WHERE e.first_scene IS NOT NULL AND e.movie = c.movie\n"
            "OPTIONAL MATCH (c)-[r:performs|experiences|witnesses|told_about]->(e)\n"
            "WHERE r.first_scene <= $scene\n"
            "OPTIONAL MATCH (c)-[u:undergoes]->(e)\n"
            "OPTIONAL MATCH (c)-[p:in_scene]->(s:Scene)\n"
            "WHERE s.scene <= $scene AND p.mode <> 'mentioned' AND s.scene IN u.scenes\n"
            "WITH e, count(r) + count(s) AS known\n"
            "RETURN e.name AS event, e.first_scene AS first_scene,\n"
            "       CASE WHEN e.first_scene > $scene THEN 'future'\n"
            "            WHEN known > 0 THEN 'past-presence' ELSE 'past-absence' END AS label\n"
            "ORDER BY first_scene, event"
        ),
        parameters=(_character("a character's name or alias, any case"),
                    ExampleParameter(name="scene", description="a scene number", sample=3)),
        needs_scene_layer=True,
    ),
    ExampleQuery(
        name="knows-entities",
        description="What a character can know of each character, place, time, object and concept at scene N "
                    "(screen order): future, past-absence, or past-presence (by then: on screen where it "
                    "appears, where another character is on screen or named, or tied to them by a relation).",
        cypher=_WANTED + (
            "MATCH (x)\n"
            "WHERE x.first_scene IS NOT NULL AND x.type <> 'Event' AND x.id <> c.id AND x.movie = c.movie\n"
            "OPTIONAL MATCH (c)-[r]-(x)\n"
            "WHERE r.first_scene <= $scene\n"
            "OPTIONAL MATCH (c)-[p:in_scene]->(s:Scene)\n"
            "WHERE p.mode = 'present' AND s.scene <= $scene AND s.scene IN x.scenes AND x.type <> 'Character'\n"
            "OPTIONAL MATCH (c)-[p2:in_scene]->(t:Scene)<-[q:in_scene]-(x)\n"
            "WHERE p2.mode = 'present' AND t.scene <= $scene AND (q.mode = 'present' OR q.mode = 'mentioned')\n"
            "WITH x, count(r) + count(s) + count(t) AS known\n"
            "RETURN x.name AS entity, x.type AS type, x.first_scene AS first_scene,\n"
            "       CASE WHEN x.first_scene > $scene THEN 'future'\n"
            "            WHEN known > 0 THEN 'past-presence' ELSE 'past-absence' END AS label\n"
            "ORDER BY first_scene, type, entity"
        ),
        parameters=(_character("a character's name or alias, any case"),
                    ExampleParameter(name="scene", description="a scene number", sample=3)),
        needs_scene_layer=True,
    ),
)


def example(name: str) -> ExampleQuery:
    """The example query called `name`.

    Raises:
        QueryError: no such example (the message lists them).
    """
    for query in EXAMPLES:
        if query.name == name:
            return query
    raise QueryError(f"no example query {name!r}; choose one of: "
                     + ", ".join(q.name for q in EXAMPLES))


def check_character(value: Any, characters: list[tuple[str, list[str]]], *,
                    parameter: str = "character", limit: int = 5) -> None:
    """Refuse a value that is no character's name or alias (in any case), naming the close ones.

    Args:
        value: The parameter's value.
        characters: (name, aliases) of every character in the store.
        parameter: The parameter's name, for the message.
        limit: How many close names to list.

    Raises:
        QueryError: no character is named or called `value`.

    Example:
        >>> check_character("angier", [("Robert Angier", ["Angier"])])  # an alias, any case
        >>> check_character("Angeir", [("Robert Angier", ["Angier"])])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kgbuild.loaders.errors.QueryError: no character is named or called 'Angeir'; close: ...
    """
    wanted = str(value).casefold()
    shown: dict[str, str] = {}
    for name, aliases in characters:
        shown.setdefault(name, name)
        for alias in aliases or []:
            shown.setdefault(alias, f"{alias} ({name})")
    if any(text.casefold() == wanted for text in shown):
        return
    if not shown:
        raise QueryError(f"-p {parameter}={value}: the store holds no characters; load a graph first")
    close = process.extract(str(value), list(shown), scorer=fuzz.WRatio, processor=utils.default_process,
                            limit=limit, score_cutoff=60)
    if close:
        hint = "close: " + ", ".join(shown[text] for text, _, _ in close)
    else:
        names = sorted({name for name, _ in characters}, key=str.casefold)
        hint = (f"the store's {len(names)} characters include " + ", ".join(names[:10])
                + (", ..." if len(names) > 10 else ""))
    raise QueryError(f"no character is named or called {value!r}; {hint}")


def run_example(query: ExampleQuery, given: dict[str, Any],
                run: Callable[[str, dict[str, Any]], QueryResult]) -> QueryResult:
    """Run an example on a store: required parameters checked, characters looked up first.

    Args:
        query: The example.
        given: The parameter values given by the caller.
        run: Runs one Cypher query on the store.

    Returns:
        The example's answer.

    Raises:
        QueryError: a required parameter is missing, or a character parameter names no character.
    """
    values = query.values(given)
    characters = [p.name for p in query.parameters if p.character and p.name in values]
    if characters:
        rows = run(CHARACTER_NAMES, {}).rows
        for name in characters:
            check_character(values[name], [(row[0], list(row[1] or [])) for row in rows], parameter=name)
    return run(query.cypher, values)


def params_for_graph(query: ExampleQuery, graph: KnowledgeGraph, schema: Schema | None = None) -> dict[str, Any]:
    """Parameter values that make sense for a graph: its most connected character, its middle scene.

    Args:
        query: The example.
        graph: The graph the store holds.
        schema: Its schema (the character is of its person type); the default STAGE-KG schema when None.

    Returns:
        The example's parameters with `character` and `scene` chosen from the graph.
    """
    person = (schema or load_schema()).type_for_role("person")
    types = {e.id: e.type for e in graph.entities}
    degree: Counter[str] = Counter()
    for r in graph.relations:
        degree.update(x for x in (r.source, r.target) if types.get(x) == person)
    names = {e.id: e.name for e in graph.entities}
    top = min(degree, key=lambda eid: (-degree[eid], names[eid])) if degree else None
    values: dict[str, Any] = {}
    for key, sample in query.samples.items():
        if key == "character" and top is not None:
            values[key] = names[top]
        elif key == "scene":
            values[key] = max(1, graph.movie.scenes // 2)
        else:
            values[key] = sample
    return values

"""What the page shows, as typed data: the graph with positions, sizes, first scenes and styles.

`view_data` turns a KnowledgeGraph (and, when there is one, its screenplay) into `ViewData`,
which the page embeds as JSON. It reads no files and changes nothing it is given.
"""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.graph import canonical_key
from kgbuild.model import ElementKind, Entity, Evidence, KnowledgeGraph, MovieInfo, Screenplay
from kgbuild.schema import Schema, load_schema
from kgbuild.view.layout import stable_layout
from kgbuild.view.style import UNKNOWN_COLOUR, entity_colours, relation_looks, unknown_relation_look

logger = logging.getLogger(__name__)

#: Node diameters (page pixels at zoom 1): characters, then every other type.
CHARACTER_SIZES = (22.0, 72.0)
OTHER_SIZES = (10.0, 40.0)
#: The main entities: this many characters and places with most relations are labelled in the
#: whole-film view at its default zoom (the page places their labels first, clear of each other).
MAIN_CHARACTERS = 12
MAIN_PLACES = 8


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ViewNode(_Model):
    """An entity as the page draws it."""

    id: str
    name: str
    type: str
    description: str
    aliases: list[str]
    scenes: list[int]
    first: int | None = Field(description="First scene (min of scenes); None when the entity records "
                                          "no scene: then it is shown at every scene.")
    speeches: int | None = Field(description="Speeches (character cues) of a character, when the "
                                             "screenplay is known; None otherwise.")
    degree: int = Field(description="Relations the entity takes part in.")
    rank: int = Field(description="Where the entity comes in the order the page labels entities (0 first): "
                                  "the main characters, the main places, the other characters and places, "
                                  "then the rest; by relations within each.")
    main: bool = Field(description="One of the main characters or places: labelled at the default zoom, and "
                                   "its relations with the other main entities drawn.")
    size: float = Field(description="Diameter in page pixels at zoom 1.")
    x: float
    y: float
    evidence: list[Evidence]


class ViewEdge(_Model):
    """A relation as the page draws it."""

    id: str
    source: str
    target: str
    type: str
    name: str
    description: str
    scenes: list[int]
    first: int | None = Field(description="First scene (min of scenes); None when none is recorded.")
    persistence: str
    flags: list[str]
    evidence: list[Evidence]


class EntityTypeEntry(_Model):
    """An entity type in the legend and filters."""

    name: str
    colour: str
    count: int
    description: str
    event_centric: bool


class RelationTypeEntry(_Model):
    """A relation type in the legend and filters."""

    name: str
    group: str
    colour: str
    line: Literal["solid", "dashed", "dotted"]
    directed: bool
    count: int
    description: str


class ViewScene(_Model):
    """A scene's index and heading (for the slider and the evidence quotes)."""

    index: int
    heading: str


class ViewData(_Model):
    """Everything the page needs, embedded in it as JSON."""

    movie: MovieInfo
    character_type: str = Field(description="The entity type of characters (bold labels, sized by speeches).")
    last_scene: int = Field(description="The slider's last position.")
    size_by: Literal["speeches", "degree"] = Field(description="What sizes the character nodes.")
    entity_types: list[EntityTypeEntry] = Field(description="The types present, in schema order, "
                                                            "then unknown ones by name.")
    relation_types: list[RelationTypeEntry]
    scenes: list[ViewScene] = Field(description="Scene headings from the screenplay ([] without one).")
    nodes: list[ViewNode]
    edges: list[ViewEdge]


def first_scene(scenes: list[int]) -> int | None:
    """The first scene of a fact, None when it records none.

    Example:
        >>> first_scene([7, 3, 12]), first_scene([])
        (3, None)
    """
    return min(scenes) if scenes else None


def speeches_by_character(entities: list[Entity], screenplay: Screenplay, *,
                          schema: Schema | None = None) -> dict[str, int]:
    """Speeches (character cues) per character entity id (the schema's person type; default
    schema when None): a cue counts for the character whose name or an alias is the cue's name
    up to case and punctuation; a cue name two characters share counts for neither.

    Example:
        >>> from kgbuild.model import Element, Scene, Source
        >>> cue = Element(kind="character", text="REGGIE", line_start=1, line_end=1, speaker="REGGIE")
        >>> sp = Screenplay(title="t", language="en", scenes=[Scene(index=1, heading="", line_span=(1, 1),
        ...     elements=[cue, cue])], source=Source(path="p", format="fountain", sha256="", size_bytes=0))
        >>> reggie = Entity(id="character:reggie_gunn", name="Reggie Gunn", type="Character", aliases=["Reggie"])
        >>> speeches_by_character([reggie], sp)
        {'character:reggie_gunn': 2}
    """
    cues = Counter(canonical_key(el.speaker) for scene in screenplay.scenes for el in scene.elements
                   if el.kind is ElementKind.CHARACTER and el.speaker)
    owners: dict[str, set[str]] = defaultdict(set)
    person = (schema or load_schema()).type_for_role("person")
    characters = [e for e in entities if e.type == person]
    for entity in characters:
        for form in (entity.name, *entity.aliases):
            owners[canonical_key(form)].add(entity.id)
    counts = dict.fromkeys((e.id for e in characters), 0)
    for key, ids in owners.items():
        if len(ids) == 1 and key in cues:
            counts[next(iter(ids))] += cues[key]
        elif len(ids) > 1 and key in cues:
            logger.debug("cue %r names %d characters; counted for none", key, len(ids))
    return counts


def label_ranks(entities: list[Entity], degree: Counter[str], speeches: dict[str, int], *, person: str,
                place: str) -> tuple[dict[str, int], set[str]]:
    """The order in which the page labels entities, and the main ones (labelled first, at any zoom).

    The main entities are the `MAIN_CHARACTERS` characters and the `MAIN_PLACES` places with most
    relations (ties: more speeches, then name). They come first, characters before places; then
    the other characters and places, then every other entity; each group by relations, speeches, name.

    Args:
        entities: The graph's entities.
        degree: Relations per entity id.
        speeches: Speeches per character id (empty without a screenplay).
        person, place: The entity types of characters and of places.

    Returns:
        Entity id -> rank (0 first), and the ids of the main entities.

    Example:
        >>> a, b = Entity(id="a", name="A", type="Character"), Entity(id="b", name="B", type="Location")
        >>> c = Entity(id="c", name="C", type="Event")
        >>> ranks, main = label_ranks([c, b, a], Counter(c=9, b=1, a=2), {}, person="Character", place="Location")
        >>> ranks, sorted(main)
        ({'a': 0, 'b': 1, 'c': 2}, ['a', 'b'])
    """
    def strength(e: Entity) -> tuple[int, int, str, str]:
        return -degree[e.id], -speeches.get(e.id, 0), e.name, e.id

    main: set[str] = set()
    for kind, count in ((person, MAIN_CHARACTERS), (place, MAIN_PLACES)):
        main.update(e.id for e in sorted((e for e in entities if e.type == kind), key=strength)[:count])

    def group(e: Entity) -> int:
        if e.id in main:
            return 0 if e.type == person else 1
        return 2 if e.type in (person, place) else 3

    ordered = sorted(entities, key=lambda e: (group(e), *strength(e)))
    return {e.id: i for i, e in enumerate(ordered)}, main


def _sizes(values: dict[str, int], low: float, high: float) -> dict[str, float]:
    """Diameters from `low` to `high`, by the square root of each value over the largest."""
    top = max(values.values(), default=0)
    return {k: round(low + (high - low) * math.sqrt(v / top), 1) if top else low for k, v in values.items()}


def _type_entries(graph: KnowledgeGraph, schema: Schema) -> list[EntityTypeEntry]:
    counts = Counter(e.type for e in graph.entities)
    colours = entity_colours(schema)
    specs = {t.name: t for t in schema.entity_types}
    names = [t for t in schema.entity_type_names() if t in counts] + sorted(set(counts) - set(specs))
    return [EntityTypeEntry(name=t, colour=colours.get(t, UNKNOWN_COLOUR), count=counts[t],
                            description=specs[t].description if t in specs else "not in the schema",
                            event_centric=specs[t].event_centric if t in specs else False)
            for t in names]


def _relation_entries(graph: KnowledgeGraph, schema: Schema) -> list[RelationTypeEntry]:
    counts = Counter(r.type for r in graph.relations)
    looks = relation_looks(schema)
    names = [t for t in schema.relation_type_names() if t in counts] + sorted(set(counts) - set(looks))
    entries = []
    for name in names:
        look = looks.get(name, unknown_relation_look())
        spec = schema.relation(name)
        entries.append(RelationTypeEntry(name=name, group=look.group, colour=look.colour, line=look.line,
                                         directed=look.directed, count=counts[name],
                                         description=spec.description if spec else "not in the schema"))
    return entries


def view_data(graph: KnowledgeGraph, screenplay: Screenplay | None = None, *,
              schema: Schema | None = None, seed: int = 0) -> ViewData:
    """The page's data for `graph`: positions, sizes, first scenes, type styles and scene headings.

    Args:
        graph: The story graph; relations whose ends are not among its entities are left out
            (and logged), since no graph library can draw them.
        screenplay: The screenplay the graph was built from, for scene headings and for sizing
            characters by their speeches; without it, every node is sized by its degree.
        schema: The schema whose type lists give colours and line styles [default: the bundled one].
        seed: Seed of the layout.

    Returns:
        The view data; `graph` and `screenplay` are not changed.

    Example:
        >>> data = view_data(graph, screenplay)  # doctest: +SKIP
        >>> len(data.nodes) == len(graph.entities)  # doctest: +SKIP
        True
    """
    schema = schema or load_schema()
    ids = {e.id for e in graph.entities}
    relations = [r for r in graph.relations if r.source in ids and r.target in ids]
    if len(relations) < len(graph.relations):
        logger.warning("%d relations name an entity the graph does not hold; left out of the view",
                       len(graph.relations) - len(relations))
    degree = Counter(end for r in relations for end in (r.source, r.target))
    speeches = speeches_by_character(graph.entities, screenplay, schema=schema) if screenplay is not None else {}
    person = schema.type_for_role("person") or ""
    characters = {e.id for e in graph.entities if e.type == person}
    sizes = {**_sizes({i: speeches.get(i, degree[i]) for i in characters}, *CHARACTER_SIZES),
             **_sizes({e.id: degree[e.id] for e in graph.entities if e.id not in characters}, *OTHER_SIZES)}
    ranks, main = label_ranks(graph.entities, degree, speeches, person=person,
                              place=schema.type_for_role("place") or "")
    positions = stable_layout([e.id for e in graph.entities], [(r.source, r.target) for r in relations], seed=seed)
    nodes = [ViewNode(id=e.id, name=e.name, type=e.type, description=e.description, aliases=e.aliases,
                      scenes=e.scenes, first=first_scene(e.scenes), speeches=speeches.get(e.id),
                      degree=degree[e.id], rank=ranks[e.id], main=e.id in main, size=sizes[e.id],
                      x=positions[e.id][0], y=positions[e.id][1], evidence=e.evidence)
             for e in graph.entities]
    edges = [ViewEdge(id=r.id, source=r.source, target=r.target, type=r.type, name=r.name,
                      description=r.description, scenes=r.scenes, first=first_scene(r.scenes),
                      persistence=r.persistence.value, flags=r.flags, evidence=r.evidence)
             for r in relations]
    scenes = [ViewScene(index=s.index, heading=s.heading) for s in screenplay.scenes] if screenplay else []
    recorded = [s for e in graph.entities for s in e.scenes] + [s for r in relations for s in r.scenes]
    last = max([graph.movie.scenes, len(scenes), *recorded, 1])
    return ViewData(movie=graph.movie, character_type=person, last_scene=last,
                    size_by="speeches" if screenplay else "degree",
                    entity_types=_type_entries(graph, schema), relation_types=_relation_entries(graph, schema),
                    scenes=scenes, nodes=nodes, edges=edges)


def top_characters(data: ViewData, count: int = 5) -> list[str]:
    """The names of the `count` characters with most speeches (or, without a screenplay, relations)."""
    characters = [n for n in data.nodes if n.type == data.character_type]
    ranked = sorted(characters, key=lambda n: (-(n.speeches if n.speeches is not None else n.degree),
                                               n.first if n.first is not None else 0, n.name))
    return [n.name for n in ranked[:count]]

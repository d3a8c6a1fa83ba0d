"""The typed data that flows between kgbuild's stages.

Every stage takes and returns these models; none mutates its input. All models reject unknown
fields so a typo in a producer fails loudly instead of silently dropping data.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgbuild.errors import InputError

if TYPE_CHECKING:
    import networkx as nx


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ElementKind(StrEnum):
    """What a piece of screenplay text is."""

    SCENE_HEADING = "scene_heading"
    ACTION = "action"
    CHARACTER = "character"
    PARENTHETICAL = "parenthetical"
    DIALOGUE = "dialogue"
    TRANSITION = "transition"
    SHOT = "shot"
    SECTION = "section"
    SYNOPSIS = "synopsis"
    NOTE = "note"
    LYRIC = "lyric"
    CENTERED = "centered"
    PAGE_BREAK = "page_break"


class SourceFormat(StrEnum):
    """The input formats kgbuild reads."""

    FOUNTAIN = "fountain"
    FDX = "fdx"
    PDF = "pdf"
    PLAIN = "plain"
    STAGE_JSON = "stage_json"


class Emphasis(_Model):
    """A styled span of an element's text (markup removed from `text`, kept here)."""

    start: int = Field(description="Offset of the first styled character in the element text.")
    end: int = Field(description="Offset one past the last styled character.")
    style: str = Field(description="bold, italic or underline.")


class Element(_Model):
    """One paragraph of a screenplay: a heading, an action block, a cue, a speech line, ..."""

    kind: ElementKind
    text: str
    line_start: int = Field(description="1-based first source line (paragraph number for FDX).")
    line_end: int = Field(description="1-based last source line.")
    page: int | None = Field(default=None, description="Source page, when the format has pages.")
    speaker: str | None = Field(
        default=None,
        description="Normalized character name: set on cues and on the parentheticals and "
        "dialogue that belong to a cue.",
    )
    extensions: list[str] = Field(
        default_factory=list, description="Cue extensions such as V.O., O.S., CONT'D, PRELAP."
    )
    dual: bool = Field(default=False, description="Part of a dual (simultaneous) dialogue block.")
    forced: bool = Field(default=False, description="Marked explicitly by the writer (Fountain).")
    depth: int | None = Field(default=None, description="Section depth (Fountain '#', '##', ...).")
    number: str | None = Field(default=None, description="Printed scene number, on headings.")
    emphasis: list[Emphasis] = Field(default_factory=list)


class Scene(_Model):
    """A scene: its heading facts and its elements in order."""

    index: int = Field(description="1-based position in story order.")
    number: str | None = Field(default=None, description="Scene number as printed, e.g. '12A'.")
    heading: str = Field(description="The heading text without scene numbers ('' if none).")
    int_ext: str | None = Field(default=None, description="INT, EXT, INT/EXT or None.")
    location: list[str] = Field(
        default_factory=list, description="Location parts, outermost first."
    )
    time_of_day: str | None = None
    elements: list[Element] = Field(default_factory=list)
    line_span: tuple[int, int] = Field(description="First and last source line of the scene.")


class Source(_Model):
    """Where a screenplay came from."""

    path: str
    format: SourceFormat
    sha256: str
    encoding: str | None = Field(default=None, description="Detected text encoding, if text.")
    size_bytes: int


class ParseWarning(_Model):
    """A line the reader was unsure about, or something it had to guess."""

    line: int | None = None
    message: str


class Screenplay(_Model):
    """A parsed screenplay: the input of every later stage."""

    id: str = Field(
        default="",
        description="The movie id: the STAGE folder name of a script.json, else the title page's "
        "title, else the file stem ('' in files written before kgbuild stored it).")
    title: str
    language: str = Field(description="'en' or 'zh'.")
    source: Source
    title_page: dict[str, str] = Field(default_factory=dict)
    scenes: list[Scene]
    warnings: list[ParseWarning] = Field(default_factory=list)


class Chunk(_Model):
    """A scene-aligned piece of screenplay text for the extraction stages."""

    id: str = Field(description="'scene_12', or 'scene_12_part_2' for part of a long scene.")
    scene_indices: list[int]
    text: str
    token_estimate: int


class Scope(StrEnum):
    """Whether an entity matters across the movie or only within a scene."""

    GLOBAL = "global"
    LOCAL = "local"


class Persistence(StrEnum):
    """How long a relation holds."""

    MOMENTARY = "momentary"
    PHASE = "phase"
    STABLE = "stable"


class Evidence(_Model):
    """Where the screenplay shows a fact, and what put the fact in the graph.

    Every entity and relation of a built graph carries at least one; a fact without evidence is
    not written. The quote is verbatim text of the cited lines.
    """

    scene: int = Field(description="Index of the scene the quote is in.")
    lines: tuple[int, int] | None = Field(
        default=None,
        description="First and last source line of the quote; None only for facts migrated from "
        "an older graph.json that recorded no lines.",
    )
    quote: str = Field(description="A short verbatim quote of those lines (at most 300 characters).")
    producer: str = Field(
        description="What produced the fact: 'rule:<name>' for an offline rule, "
        "'llm:<model>/<prompt>@<version>' for a model, 'derived:<fact id>' for a derivation, "
        "'migrated:<format>' for old files."
    )


class Entity(_Model):
    """A node of the story graph, grounded in the scenes it appears in."""

    id: str = Field(description="Stable id from type + canonical name (see kgbuild.graph.entity_id).")
    name: str
    type: str = Field(description="An entity type of the schema, e.g. Character.")
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    scenes: list[int] = Field(default_factory=list, description="Scene indices, ascending.")
    scope: Scope = Scope.LOCAL
    attributes: dict[str, str] = Field(default_factory=dict)
    evidence: list[Evidence] = Field(default_factory=list, description="Where the text shows it.")


class Relation(_Model):
    """A typed, directed edge between two entities, grounded in scenes."""

    id: str
    source: str = Field(description="Subject entity id.")
    target: str = Field(description="Object entity id.")
    type: str = Field(description="A relation type of the schema, e.g. located_at.")
    name: str = Field(default="", description="Free verb as written, e.g. 'dials'.")
    description: str = ""
    scenes: list[int] = Field(default_factory=list)
    persistence: Persistence = Persistence.MOMENTARY
    evidence: list[Evidence] = Field(default_factory=list, description="Where the text shows it.")
    flags: list[str] = Field(
        default_factory=list, description="Problems a lenient repair kept, e.g. 'schema_violation'."
    )


class Provenance(_Model):
    """How a graph was made."""

    kgbuild_version: str
    backend: str = Field(description="'offline' (rules) or 'llm'.")
    model: str | None = None
    config_hash: str | None = None
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")
    token_usage: dict[str, int] = Field(default_factory=dict)
    migrated_from: str | None = Field(
        default=None, description="The older graph.json format this graph was read from, if any.")
    graph_schema: str | None = Field(
        default=None, exclude_if=lambda value: value is None,
        description="The schema the graph was built with ('name vN', kept in schema.json beside graph.json) "
        "when it is not the default STAGE-KG schema; left out of graph.json otherwise.")


class MovieInfo(_Model):
    """What the graph is about."""

    id: str = Field(default="", description="The movie id stores key on; the title when empty.")
    title: str
    language: str
    source_sha256: str | None = None
    scenes: int = Field(default=0, description="Scenes in the whole script.")
    scene_ranges: list[tuple[int, int]] = Field(
        default_factory=list,
        description="The scenes the graph was built from, as inclusive (first, last) scene indices "
        "('kgbuild build --scenes'); empty: the whole script.")

    @property
    def key(self) -> str:
        """The movie id, or the title for graphs written before kgbuild stored ids."""
        return self.id or self.title


class PresenceMode(StrEnum):
    """How a character is in a scene, strongest first."""

    PRESENT = "present"  # shown on screen: speaks there, or the action shows them
    OFFSCREEN = "offscreen"  # heard from out of frame (O.S., O.C.): in the scene's world, not shown
    AWAY = "away"  # a voice from elsewhere: voice-over, phone, TV, radio, recording
    MENTIONED = "mentioned"  # named but not there: in a speech, or in action as an owner or a picture


class Presence(_Model):
    """One character in one scene, how, and the lines that show it."""

    character: str = Field(description="The character's entity id.")
    mode: PresenceMode
    evidence: list[Evidence] = Field(
        default_factory=list, description="The first line showing each mode found, strongest first.")


class MarkerKind(StrEnum):
    """What a time marker of a heading or an on-screen title says about when a scene is."""

    YEAR = "year"  # '1897', '(1973)'
    PRESENT = "present"  # 'PRESENT DAY', '(PRESENT)'
    AGO = "ago"  # 'THREE YEARS AGO': before the present by an amount
    FLASHBACK = "flashback"  # 'FLASHBACK', 'FLASHBACK TO:': before the scenes around it
    FLASHBACK_END = "flashback_end"  # 'END FLASHBACK', 'BACK TO PRESENT'
    LATER = "later"  # 'LATER', 'THE NEXT MORNING', 'ONE MONTH LATER', 'CONTINUOUS': after the scene before


class TimeMarker(_Model):
    """A time marker as the script writes it, with its evidence."""

    kind: MarkerKind
    text: str = Field(description="The marker as written, e.g. '1897' or 'THREE YEARS AGO'.")
    year: int | None = Field(default=None, description="The year, for kind 'year'.")
    years_ago: float | None = Field(default=None, description="How long before the present, for kind 'ago'.")
    source: str = Field(description="'heading' (applies to its scene) or 'title' (a super, title card or "
                        "transition: holds for the scenes after it until the next marker).")
    evidence: Evidence


class SceneRecord(_Model):
    """One scene of the story graph: its heading, its time markers and who is in it."""

    index: int = Field(description="1-based scene index (screen order).")
    number: str | None = Field(default=None, description="Scene number as printed.")
    heading: str = ""
    markers: list[TimeMarker] = Field(default_factory=list)
    presence: list[Presence] = Field(default_factory=list, description="Characters in the scene, by mode.")


#: The on-disk format tag of graph.json; a loader refuses files from a newer kgbuild.
GRAPH_FORMAT = "kgbuild.graph/3"


class KnowledgeGraph(_Model):
    """A movie's story graph: the canonical form every store, export and score reads."""

    format: str = GRAPH_FORMAT
    movie: MovieInfo
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    scenes: list[SceneRecord] = Field(
        default_factory=list,
        description="Per scene (format 3): heading, time markers, and who is in it with mode and evidence; "
        "empty for a graph made without a screenplay or migrated from format 2.")
    provenance: Provenance | None = None

    def to_networkx(self) -> nx.MultiDiGraph[str]:
        """This graph as a networkx MultiDiGraph: a node per entity, an edge per relation.

        Node keys are entity ids, edge keys relation ids; the other fields are the attributes
        (see `to_networkx` below). `KnowledgeGraph.from_networkx` gives this graph back exactly.

        Returns:
            A new MultiDiGraph; this graph is not changed.

        Raises:
            InputError: two entities or two relations share an id.

        Example:
            >>> g = graph.to_networkx()  # doctest: +SKIP
            >>> networkx.degree_centrality(g)  # doctest: +SKIP
        """
        return to_networkx(self)

    @classmethod
    def from_networkx(cls, g: nx.MultiDiGraph[str]) -> KnowledgeGraph:
        """The graph of a networkx MultiDiGraph made by `to_networkx` (and possibly edited).

        Args:
            g: Node and edge attributes are the fields of Entity and Relation; the graph
                attribute `movie` is required (see `from_networkx` below).

        Returns:
            A new KnowledgeGraph.

        Raises:
            InputError: `g` is not a directed multigraph, or its attributes are not a valid graph.

        Example:
            >>> KnowledgeGraph.from_networkx(graph.to_networkx()) == graph  # doctest: +SKIP
            True
        """
        return from_networkx(g)


# --- the networkx form ---------------------------------------------------------------------------
# A story graph as a networkx MultiDiGraph, and back, without losing anything. One node per entity
# (key: the entity id; attributes: the entity's other fields, evidence as a list of dicts), one
# edge per relation (key: the relation id; endpoints: its source and target; attributes: its other
# fields), and the graph attributes `format`, `movie`, `provenance` (dicts) and `scenes` (the scene
# layer: a list of dicts), plus `relation_order`, the relation ids in the graph's order (networkx
# iterates edges by node, not in the order they were added). Values are JSON-ready (enums as
# strings, line spans as lists), so `networkx.node_link_data` output goes straight to `json.dumps`.
#
# A relation endpoint that is no entity of the graph (a dangling relation, which a loader would
# count and skip) becomes a node without attributes; `from_networkx` turns such nodes back into
# nothing, so `from_networkx(to_networkx(g)) == g` for every graph with unique ids. networkx is
# imported when a graph is converted, not with this module.

#: The graph attribute listing the relation ids in the graph's order.
RELATION_ORDER = "relation_order"
_GRAPH_KEYS = frozenset({"format", "movie", "provenance", "scenes", RELATION_ORDER})


def _first_duplicate(ids: list[str]) -> str | None:
    repeated = [i for i, n in Counter(ids).items() if n > 1]
    return repeated[0] if repeated else None


def to_networkx(graph: KnowledgeGraph) -> nx.MultiDiGraph[str]:
    """The graph as a networkx MultiDiGraph (a new object; `graph` is not changed).

    Args:
        graph: The story graph.

    Returns:
        Nodes keyed by entity id, edges keyed by relation id, graph attributes `format`,
        `movie`, `provenance`, `scenes` and `relation_order` (see the networkx section above).

    Raises:
        InputError: two entities share an id, or two relations share an id (networkx keys
            must be unique).

    Example:
        >>> g = to_networkx(graph)  # doctest: +SKIP
        >>> g.nodes["character:sophie"]["name"]  # doctest: +SKIP
        'Sophie'
    """
    import networkx as nx

    twice = _first_duplicate([e.id for e in graph.entities])
    if twice is not None:
        raise InputError(f"two entities have the id {twice!r}; a networkx node needs a unique key "
                         "(merge the graph first: kgbuild merge, or kgbuild.merge)")
    twice = _first_duplicate([r.id for r in graph.relations])
    if twice is not None:
        raise InputError(f"two relations have the id {twice!r}; a networkx edge needs a unique key "
                         "(rebuild the graph: relation ids come from kgbuild.graph.relation_id)")
    g: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    g.graph.update({
        "format": graph.format,
        "movie": graph.movie.model_dump(mode="json"),
        "provenance": graph.provenance.model_dump(mode="json") if graph.provenance is not None else None,
        "scenes": [scene.model_dump(mode="json") for scene in graph.scenes],
        RELATION_ORDER: [r.id for r in graph.relations],
    })
    for entity in graph.entities:
        g.add_node(entity.id, **entity.model_dump(mode="json", exclude={"id"}))
    for relation in graph.relations:
        g.add_edge(relation.source, relation.target, key=relation.id,
                   **relation.model_dump(mode="json", exclude={"id", "source", "target"}))
    return g


def _invalid(what: str, e: ValidationError) -> InputError:
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return InputError(f"{what} is not valid: {where}: {first['msg']} ({e.error_count()} problems); "
                      "attributes must be the fields of the kgbuild model (as to_networkx writes them)")


def _checked_key(kind: str, attrs: dict[str, Any], field: str, value: Any) -> None:
    if field in attrs and attrs[field] != value:
        raise InputError(f"{kind} has the attribute {field}={attrs[field]!r} but is keyed {value!r}; "
                         f"drop the attribute (the {kind} key is its {field})")


def _entity(key: Any, attrs: dict[str, Any]) -> Entity:
    _checked_key("node", attrs, "id", key)
    try:
        return Entity.model_validate({**attrs, "id": key})
    except ValidationError as e:
        raise _invalid(f"node {key!r}", e) from e


def _relation(u: Any, v: Any, key: Any, attrs: dict[str, Any]) -> Relation:
    for field, value in (("id", key), ("source", u), ("target", v)):
        _checked_key("edge", attrs, field, value)
    try:
        return Relation.model_validate({**attrs, "id": key, "source": u, "target": v})
    except ValidationError as e:
        raise _invalid(f"edge {u!r} -> {v!r} (key {key!r})", e) from e


def _ordered(relations: list[Relation], order: Any) -> list[Relation]:
    """Relations in the recorded order; any the order does not name follow, as networkx has them."""
    if not isinstance(order, list):
        return relations
    rank = {rid: i for i, rid in enumerate(order) if isinstance(rid, str)}
    return sorted(relations, key=lambda r: rank.get(r.id, len(rank)))


def from_networkx(g: nx.MultiDiGraph[str]) -> KnowledgeGraph:
    """The story graph of a networkx MultiDiGraph made by `to_networkx` (and possibly edited).

    Nodes without attributes are relation endpoints that are no entity (see the networkx section
    above) and make no entity. Relations come in `relation_order`, then any edge it does not
    name in networkx's order.

    Args:
        g: A directed multigraph whose node and edge attributes are the fields of `Entity` and
            `Relation` (other than the ids and endpoints, which are the keys), with the graph
            attribute `movie` (and optionally `format`, `provenance`, `scenes`, `relation_order`).

    Returns:
        A new KnowledgeGraph; `g` is not changed.

    Raises:
        InputError: not a directed multigraph, no `movie` attribute, another graph format, an
            unknown graph attribute, or a node or edge whose attributes are not a valid entity
            or relation (unknown attributes included).

    Example:
        >>> from_networkx(to_networkx(graph)) == graph  # doctest: +SKIP
        True
    """
    import networkx as nx

    if not (isinstance(g, nx.Graph) and g.is_directed() and g.is_multigraph()):
        raise InputError(f"expected a networkx MultiDiGraph (as KnowledgeGraph.to_networkx makes), "
                         f"got {type(g).__name__}")
    unknown = sorted(set(g.graph) - _GRAPH_KEYS)
    if unknown:
        raise InputError(f"unknown graph attributes {', '.join(map(repr, unknown))}; a kgbuild graph has "
                         f"{', '.join(sorted(_GRAPH_KEYS))}")
    if "movie" not in g.graph:
        raise InputError("the networkx graph has no 'movie' attribute (a dict with title and language, "
                         "as to_networkx writes it)")
    tag = g.graph.get("format", GRAPH_FORMAT)
    if tag != GRAPH_FORMAT:
        raise InputError(f"the networkx graph says format {tag!r}; this kgbuild reads {GRAPH_FORMAT!r}")
    try:
        movie = MovieInfo.model_validate(g.graph["movie"])
        raw = g.graph.get("provenance")
        provenance = Provenance.model_validate(raw) if raw is not None else None
        scenes = [SceneRecord.model_validate(scene) for scene in g.graph.get("scenes") or []]
    except ValidationError as e:
        raise _invalid("the graph attribute movie, provenance or scenes", e) from e
    entities = [_entity(key, attrs) for key, attrs in g.nodes(data=True) if attrs]
    relations = [_relation(u, v, key, attrs) for u, v, key, attrs in g.edges(keys=True, data=True)]
    return KnowledgeGraph(format=tag, movie=movie, entities=entities,
                          relations=_ordered(relations, g.graph.get(RELATION_ORDER)), scenes=scenes,
                          provenance=provenance)

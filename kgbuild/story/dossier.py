"""A character's dossier: who they are in the graph, what they say, do and have, with scene ids.

For in-character role-play and persona work (RoleLLM; STAGE's ICRP task takes its characters
from the graph by degree). Every item carries the scene it comes from and its evidence:

- name, aliases, the cue names they speak under, description, life-stage links;
- first and last scene, the scenes they are in (on screen, off screen or as a voice) and the
  scenes they are only mentioned in;
- lines: every speech under one of their cues, verbatim (the parser's dialogue text), with its
  scene, source lines and how it is heard (on screen, off screen, voice); `lines=N` keeps the N
  most characteristic (words they use and others rarely do), in scene order;
- actions: the events they perform, undergo or experience, in story order;
- relations: every other relation with a character or a concept (kinship, attitudes, speaks_to,
  member_of, ...) with its evidence, and the events shared with another character (one performs,
  the other undergoes or experiences: `shares_event`, with the event's line);
- places (located_at), times (present_on) and objects (possesses, interacts_with).

Example:
    >>> d = build_dossier(graph, screenplay, "Marge")  # doctest: +SKIP
    >>> d.lines[0].scene, d.lines[0].text  # doctest: +SKIP
    (8, 'Hon? Got a jump.')
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.extraction.presence import SceneSpeech, read_presence
from kgbuild.graph import canonical_key
from kgbuild.model import Entity, Evidence, KnowledgeGraph, PresenceMode, Relation, Screenplay
from kgbuild.schema import Schema, load_schema
from kgbuild.story.names import find_entity
from kgbuild.story.order import scene_order

#: Event links of the character, shown as actions.
ACTION_ROLES = ("performs", "undergoes", "experiences")
#: Links shown elsewhere than among relations.
_NOT_RELATIONS = frozenset({*ACTION_ROLES, "witnesses", "told_about", "located_at", "present_on", "possesses",
                            "interacts_with", "life_stage_of"})
#: The longest file name stem of a dossier, in UTF-8 bytes (file systems allow 255 for the whole name).
MAX_FILE_STEM_BYTES = 120
_HASH_CHARS = 8
_WORD = re.compile(r"[^\W\d_]{3,}|[\u3400-\u9fff]")


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Line(_Out):
    """One speech, verbatim."""

    scene: int
    lines: tuple[int, int] = Field(description="First and last source line (cue to last dialogue line).")
    cue: str = Field(description="The cue as written, e.g. 'MARGE (V.O.)'.")
    speaker: str = Field(description="The name the parser read in the cue, e.g. 'MARGE'.")
    heard: str = Field(description="on screen, off screen, or voice (V.O., phone, ...).")
    text: str = Field(description="The dialogue as the parser read it (its paragraphs joined by a space).")


class Item(_Out):
    """One fact of the dossier: what, with whom or what, where in the script, and the evidence."""

    kind: str = Field(description="The relation type, or the role in an event ('performs', 'shares_event', ...).")
    other: str = Field(description="The other end's name (the event's name for actions).")
    other_type: str
    direction: str = Field(default="", description="'out' (the character is the subject), 'in', or '' for "
                           "symmetric types and actions.")
    scenes: list[int]
    first_scene: int | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    note: str = ""


class Dossier(_Out):
    """Everything the graph and the screenplay say about one character, with scene ids."""

    movie: str
    id: str
    name: str
    aliases: list[str]
    cue_names: list[str] = Field(description="The cues the character speaks under.")
    description: str
    life_stages: list[Item]
    first_scene: int | None
    last_scene: int | None
    scene_count: int = Field(description="Scenes the character is in (on screen, off screen or as a voice).")
    in_scenes: list[int]
    mentioned_in: list[int] = Field(description="Scenes that only name the character.")
    lines_total: int
    lines: list[Line]
    actions: list[Item] = Field(description="Events performed, undergone or experienced, in story order.")
    relations: list[Item]
    places: list[Item]
    times: list[Item]
    objects: list[Item]
    degree: int = Field(description="Relations of the graph at the character (derived ones not counted).")
    persona: str | None = Field(default=None, description="An LLM's short persona summary, citing scene ids.")
    persona_model: str | None = None


def character_degree(graph: KnowledgeGraph, schema: Schema | None = None) -> dict[str, int]:
    """Relations at each character, derived types (witnesses, told_about, life_stage_of) left out:
    the degree STAGE's ICRP task ranks characters by."""
    schema = schema or load_schema()
    derived = set(schema.derived_relation_names())
    character_type = schema.type_for_role("person")
    types = {e.id: e.type for e in graph.entities}
    degree: Counter[str] = Counter({e.id: 0 for e in graph.entities if e.type == character_type})
    for r in graph.relations:
        if r.type in derived:
            continue
        for end in (r.source, r.target):
            if types.get(end) == character_type:
                degree[end] += 1
    return dict(degree)


def top_characters(graph: KnowledgeGraph, k: int, schema: Schema | None = None) -> list[Entity]:
    """The K characters of highest degree (ties by name), STAGE's ICRP rule."""
    degree = character_degree(graph, schema)
    entities = {e.id: e for e in graph.entities}
    ranked = sorted(degree, key=lambda i: (-degree[i], entities[i].name.casefold()))
    return [entities[i] for i in ranked[:k]]


def dossier_file_stem(name: str) -> str:
    """The file name (without extension) of a character's dossier: its canonical key, cut to at most
    `MAX_FILE_STEM_BYTES` UTF-8 bytes, between characters, with a short hash of the whole name
    after the cut so that two long names stay apart.

    Example:
        >>> dossier_file_stem("Reggie Gunn")
        'reggie_gunn'
    """
    stem = canonical_key(name) or "character"
    if len(stem.encode("utf-8")) <= MAX_FILE_STEM_BYTES:
        return stem
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:_HASH_CHARS]
    room = MAX_FILE_STEM_BYTES - len(digest) - 1
    cut = stem.encode("utf-8")[:room].decode("utf-8", errors="ignore").rstrip("_")
    return f"{cut}-{digest}"


def _heard(said: SceneSpeech) -> str:
    return "voice" if said.speech.away else "off screen" if said.speech.offscreen else "on screen"


def _line(scene: int, said: SceneSpeech) -> Line:
    speech = said.speech
    last = speech.lines[-1].line_end if speech.lines else speech.cue.line_end
    return Line(scene=scene, lines=(speech.cue.line_start, last), cue=speech.cue.text,
                speaker=speech.cue.speaker or speech.speaker, heard=_heard(said), text=speech.text)


def characteristic(lines: list[Line], others: list[str], n: int) -> list[Line]:
    """The n lines with the most words this character uses and the others rarely do, in scene order.

    A line scores the mean inverse document frequency of its distinct words over all speakers'
    lines (`others` holds the other speakers' lines), times a length weight that prefers lines of
    five words or more.
    """
    documents = [set(_WORD.findall(t.lower())) for t in [*(x.text for x in lines), *others]]
    frequency: Counter[str] = Counter(w for doc in documents for w in doc)
    total = len(documents) or 1

    def score(line: Line) -> float:
        words = set(_WORD.findall(line.text.lower()))
        if not words:
            return 0.0
        idf = sum(math.log(total / frequency[w]) for w in words) / len(words)
        return idf * min(1.0, len(words) / 5)

    chosen = sorted(range(len(lines)), key=lambda i: (-score(lines[i]), i))[:n]
    return [lines[i] for i in sorted(chosen)]


def _item(r: Relation, me: str, entities: dict[str, Entity], symmetric: set[str]) -> Item:
    other = entities[r.target if r.source == me else r.source]
    direction = "" if r.type in symmetric else ("out" if r.source == me else "in")
    return Item(kind=r.type, other=other.name, other_type=other.type, direction=direction, scenes=list(r.scenes),
                first_scene=min(r.scenes) if r.scenes else None, evidence=r.evidence[:3], note=r.name)


def _shared_events(me: str, graph: KnowledgeGraph, entities: dict[str, Entity],
                   character_type: str | None) -> list[Item]:
    roles: dict[str, list[Relation]] = defaultdict(list)
    for r in graph.relations:
        if r.type in ACTION_ROLES:
            roles[r.target].append(r)
    out: dict[tuple[str, str], Item] = {}
    for event_id, links in roles.items():
        mine = [r for r in links if r.source == me]
        event = entities.get(event_id)
        if not mine or event is None:
            continue
        for r in links:
            other = entities.get(r.source)
            if other is None or other.id == me or other.type != character_type:
                continue
            if not any(x.type == "performs" for x in (mine[0], r)):
                continue  # two undergoers of one event did nothing to or with each other
            key = (other.id, event_id)
            if key not in out:
                out[key] = Item(kind="shares_event", other=other.name, other_type=other.type,
                                direction="out" if mine[0].type == "performs" else "in", scenes=list(event.scenes),
                                first_scene=min(event.scenes) if event.scenes else None,
                                evidence=event.evidence[:1], note=f"{mine[0].type} / {r.type}: {event.name}")
    return sorted(out.values(), key=lambda i: (i.first_scene or 0, i.other))


def build_dossier(graph: KnowledgeGraph, screenplay: Screenplay, character: str, *, lines: int | None = None,
                  schema: Schema | None = None) -> Dossier:
    """The dossier of one character.

    Args:
        graph: The graph (format 3: its scene layer gives first and last scene and scene counts).
        screenplay: The screenplay it was built from (the lines come from it, verbatim).
        character: A name or alias, any case.
        lines: Keep only the N most characteristic lines; all when None.
        schema: The schema (person type, symmetric and derived types); the default when None.

    Returns:
        The dossier.

    Raises:
        InputError: no such character (the close names are listed).

    Example:
        >>> build_dossier(graph, screenplay, "marge", lines=20).name  # doctest: +SKIP
        'Marge'
    """
    schema = schema or load_schema()
    person = schema.type_for_role("person")
    who = find_entity(graph, character, types=(person,) if person else (), what="character")
    entities = {e.id: e for e in graph.entities}
    layer = read_presence(screenplay, graph, schema=schema)
    spoken: list[Line] = []
    others: list[str] = []
    for index, reading in sorted(layer.readings.items()):
        for said in reading.speeches:
            if said.speaker == who.id:
                spoken.append(_line(index, said))
            else:
                others.append(said.speech.text)
    kept = spoken if lines is None else characteristic(spoken, others, lines)
    in_scenes, mentioned = [], []
    for record in layer.records:
        mode = next((p.mode for p in record.presence if p.character == who.id), None)
        if mode is PresenceMode.MENTIONED:
            mentioned.append(record.index)
        elif mode is not None:
            in_scenes.append(record.index)
    story = scene_order(layer.records, "story")
    symmetric = {r.name for r in schema.relation_types if r.symmetric}
    mine = [r for r in graph.relations if who.id in (r.source, r.target) and r.source in entities
            and r.target in entities]
    actions = sorted((_item(r, who.id, entities, symmetric) for r in mine if r.type in ACTION_ROLES),
                     key=lambda i: (story.position.get(i.first_scene or 0, 0), i.other))
    for a in actions:
        a.direction = ""

    def section(types: tuple[str, ...], other_types: tuple[str, ...] | None = None) -> list[Item]:
        chosen = [_item(r, who.id, entities, symmetric) for r in mine if r.type in types]
        chosen = [i for i in chosen if other_types is None or i.other_type in other_types]
        return sorted(chosen, key=lambda i: (i.first_scene or 0, i.kind, i.other))

    relations = [_item(r, who.id, entities, symmetric) for r in mine if r.type not in _NOT_RELATIONS]
    relations.sort(key=lambda i: (i.kind, i.first_scene or 0, i.other))
    relations += _shared_events(who.id, graph, entities, person)
    cues = sorted({line.speaker for line in spoken})
    every = sorted({*in_scenes, *mentioned, *who.scenes})
    return Dossier(
        movie=graph.movie.key, id=who.id, name=who.name, aliases=list(who.aliases), cue_names=cues,
        description=who.description, life_stages=section(("life_stage_of",)),
        first_scene=every[0] if every else None, last_scene=every[-1] if every else None,
        scene_count=len(in_scenes), in_scenes=in_scenes, mentioned_in=mentioned, lines_total=len(spoken),
        lines=kept, actions=actions, relations=relations, places=section(("located_at",)),
        times=section(("present_on",)), objects=section(("possesses", "interacts_with")),
        degree=character_degree(graph, schema).get(who.id, 0))

"""Evidence for the facts of an LLM extraction, found in the screenplay text.

The model says what happens; the screenplay shows where. Once the chunks' graphs are merged,
every entity and relation is grounded in the scenes it cites (`kgbuild.evidence`), and a fact
the text does not show is left out of the graph and counted. The rules, in order:

- relation: the model's quote, located in the relation's scenes; else, for a link between an
  event and an entity, the heading of the event's scene when it names a place or time end
  (the schema's types of the roles 'place' and 'time'), then the event's own sentence when it
  names the entity, then the first sentence of the event's scene naming the entity; else,
  between two entities, the first sentence of its scenes naming both; a link between two
  events needs the quote, and cites each event's own line beside it.
- entity: for a place or a time the first heading of its scenes naming it; else the first
  sentence of its scenes naming it (its name or an alias).
- event: the sentence of its scene that best matches its title and description (rapidfuzz
  token_set_ratio of at least `EVENT_MATCH`, sharing a content word); else the first
  sentence of its scene naming one of the entities it is linked to.

Names are matched as whole words, case-insensitively (`kgbuild.evidence.locate_names`), outside
the scene headings, which are read only where a rule above says so: 'EXT. BRICK'S PATIO - DAY'
names a place, not Brick. Every quote is verbatim text of the lines its evidence names.

Example:
    >>> entities, relations, dropped = ground_facts(screenplay, entities, relations, quotes,
    ...                                             producer=extraction_producer("gpt-4o-mini"))
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, utils

from kgbuild.evidence import heading_evidence, locate_names, locate_quote, name_pattern, quote_evidence, sentences
from kgbuild.graph import merge_evidence
from kgbuild.llm.prompts import load_prompt
from kgbuild.model import Element, ElementKind, Entity, Evidence, Relation, Scene, Screenplay
from kgbuild.schema import Role, Schema, load_schema

logger = logging.getLogger(__name__)

#: Roles of the entity types a scene heading names (its place parts and time of day).
HEADING_ROLES: tuple[Role, ...] = ("place", "time")
#: The rapidfuzz token_set_ratio (0-100) a sentence needs to stand for an event.
EVENT_MATCH = 50.0
#: Content words an event's sentence must share with its title and description.
EVENT_SHARED_WORDS = 1
#: Words an event's sentence needs: a one-word line ('DEAD!') matches any event using the word.
EVENT_MIN_WORDS = 2
#: How long, relative to the model's quote, an element must be to hold it; shorter lines (a cue
#: 'STEEL') would match inside any quote that contains them.
QUOTE_MIN_SHARE = 0.5
#: English function words, which make token_set_ratio find likeness in any two sentences.
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "from",
    "into", "onto", "off", "out", "up", "down", "over", "as", "is", "are", "was", "were", "be", "been",
    "being", "am", "do", "does", "did", "has", "have", "had", "it", "its", "this", "that", "these", "those",
    "there", "then", "than", "so", "not", "no", "he", "him", "his", "she", "her", "hers", "they", "them",
    "their", "we", "us", "our", "you", "your", "i", "me", "my", "who", "whom", "what", "which", "when",
    "where", "while", "all", "any", "some",
})
#: Element kinds an event's sentence is taken from (headings and cues tell no event).
_EVENT_KINDS = frozenset({ElementKind.ACTION, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL,
                          ElementKind.LYRIC, ElementKind.CENTERED, ElementKind.SHOT})
_CJK = re.compile(r"[\u3400-\u9fff]")
#: Concrete cases kept in the count, for the report.
_EXAMPLES = 10


class UngroundedFacts(BaseModel):
    """Facts of the model's answers left out of the graph: the screenplay text shows none of them."""

    model_config = ConfigDict(extra="forbid")

    entities: int = Field(default=0, description="Entities (events included) without evidence.")
    relations: int = Field(default=0, description="Relations without evidence or with an end left out.")
    examples: list[str] = Field(default_factory=list, description="A few of them, for the report.")

    @property
    def total(self) -> int:
        """Entities and relations left out."""
        return self.entities + self.relations

    def add(self, kind: Literal["entity", "relation"], example: str) -> None:
        """Count one fact left out ('entity' or 'relation') and keep it as an example while few."""
        if kind == "entity":
            self.entities += 1
        else:
            self.relations += 1
        if len(self.examples) < _EXAMPLES:
            self.examples.append(example)


def extraction_producer(model: str | None) -> str:
    """The `Evidence.producer` of facts from the extraction prompt: 'llm:MODEL/extract@VERSION'.

    Args:
        model: The model name; 'unknown' stands in when None.

    Example:
        >>> extraction_producer("gpt-4o-mini")
        'llm:gpt-4o-mini/extract@3'
    """
    prompt = load_prompt("extract")
    return f"llm:{model or 'unknown'}/{prompt.name}@{prompt.version}"


def names_of(entity: Entity) -> list[str]:
    """The surface forms an entity goes by: its name, then its aliases."""
    return [entity.name, *entity.aliases]


def _heading(scene: Scene) -> Element | None:
    element = next((el for el in scene.elements if el.kind is ElementKind.SCENE_HEADING), None)
    if element is None and scene.heading:
        line = scene.line_span[0]
        element = Element(kind=ElementKind.SCENE_HEADING, text=scene.heading, line_start=line, line_end=line)
    return element


def heading_naming(scenes: Iterable[Scene], forms: list[str], producer: str) -> Evidence | None:
    """The first of these scenes' headings that names one of `forms`, as evidence.

    Args:
        scenes: Where to look, in order.
        forms: The surface forms of one thing (name and aliases).
        producer: What produced the fact.
    """
    for scene in scenes:
        heading = _heading(scene)
        if heading is None:
            continue
        alone = scene.model_copy(update={"elements": [heading]})
        if locate_names([alone], [forms], producer) is not None:
            return heading_evidence(scene, producer)
    return None


def body(scenes: Iterable[Scene]) -> list[Scene]:
    """The scenes without their headings: a heading names places and times, and the possessive
    in 'BRICK'S PATIO' names no one."""
    return [s.model_copy(update={"elements": [el for el in s.elements if el.kind is not ElementKind.SCENE_HEADING]})
            for s in scenes]


def find_quote(scenes: Iterable[Scene], quote: str, producer: str) -> Evidence | None:
    """`kgbuild.evidence.locate_quote` over the elements long enough to hold the quote
    (`QUOTE_MIN_SHARE` of its length): a short line inside a long quote is not the quote."""
    least = QUOTE_MIN_SHARE * len(" ".join(quote.split()))
    long_enough = [s.model_copy(update={"elements": [el for el in s.elements
                                                     if len(" ".join(el.text.split())) >= least]})
                   for s in scenes]
    return locate_quote(long_enough, quote, producer)


def _tokens(text: str) -> list[str]:
    """The words of a text, lower-cased; Chinese, written without spaces, as character pairs."""
    words = utils.default_process(text).split()
    if not _CJK.search(text):
        return words
    return [w[i:i + 2] for w in words for i in range(max(len(w) - 1, 1))]


def _words(text: str) -> set[str]:
    """The content words of a text (`_tokens` without the function words)."""
    return set(_tokens(text)) - _FUNCTION_WORDS


def event_sentence(scenes: Iterable[Scene], event: Entity, producer: str) -> Evidence | None:
    """The sentence of these scenes that best matches an event's title and description.

    A sentence qualifies with a token_set_ratio of at least `EVENT_MATCH`, at least
    `EVENT_SHARED_WORDS` content words in common (function words alone make any two sentences
    look alike) and at least `EVENT_MIN_WORDS` words; the highest ratio wins, then the most
    shared words, then the earliest.

    Returns:
        Evidence quoting that sentence, or None when no sentence qualifies.
    """
    query = f"{event.name} {event.description}".strip()
    wanted = _words(query)
    best: tuple[float, int, Scene, Element, str] | None = None
    for scene in scenes:
        for el in scene.elements:
            if el.kind not in _EVENT_KINDS:
                continue
            for sentence in sentences(el.text):
                shared = len(wanted & _words(sentence))
                if shared < EVENT_SHARED_WORDS or len(_tokens(sentence)) < EVENT_MIN_WORDS:
                    continue
                score = fuzz.token_set_ratio(query, sentence, processor=utils.default_process)
                if score >= EVENT_MATCH and (best is None or (score, shared) > best[:2]):
                    best = (score, shared, scene, el, sentence)
    if best is None:
        return None
    _, _, scene, el, sentence = best
    return quote_evidence(scene, el, sentence, producer)


class _Grounder:
    """Finds evidence for the facts of one assembled graph."""

    def __init__(self, screenplay: Screenplay, entities: list[Entity], relations: list[Relation],
                 producer: str, schema: Schema):
        self.scenes = {s.index: s for s in screenplay.scenes}
        self.entities = {e.id: e for e in entities}
        self.relations = relations
        self.producer = producer
        self.event = schema.type_for_role("event")
        self.heading_types = {t for role in HEADING_ROLES if (t := schema.type_for_role(role)) is not None}

    def scenes_of(self, indices: Iterable[int]) -> list[Scene]:
        """The screenplay's scenes with these indices, in story order."""
        return [self.scenes[i] for i in sorted(set(indices)) if i in self.scenes]

    def linked(self, event: Entity) -> list[Entity]:
        """The non-event entities an event is linked to, in relation order."""
        ids = [r.target if r.source == event.id else r.source for r in self.relations
               if event.id in (r.source, r.target)]
        ends = [self.entities[i] for i in dict.fromkeys(ids) if i in self.entities]
        return [e for e in ends if e.type != self.event]

    def entity(self, entity: Entity) -> list[Evidence]:
        """Evidence for an entity (see the module docstring); [] when the text shows none."""
        scenes = self.scenes_of(entity.scenes)
        found: Evidence | None = None
        if entity.type == self.event:
            found = event_sentence(scenes, entity, self.producer)
            forms = [f for end in self.linked(entity) for f in names_of(end)]
            if found is None and forms:
                found = locate_names(body(scenes), [forms], self.producer)
            return [found] if found is not None else []
        if entity.type in self.heading_types:
            found = heading_naming(scenes, names_of(entity), self.producer)
        if found is None:
            found = locate_names(body(scenes), [names_of(entity)], self.producer)
        return [found] if found is not None else []

    def relation(self, relation: Relation, quotes: list[str], grounded: dict[str, Entity]) -> list[Evidence]:
        """Evidence for a relation (see the module docstring); [] when the text shows none.
        `grounded` holds the entities with their evidence: a link between two events also cites
        each event's own line, so the evidence shows both ends."""
        scenes = self.scenes_of(relation.scenes)
        located = [find_quote(scenes, q, self.producer) for q in quotes if q.strip()]
        found = [e for e in located if e is not None]
        subject, obj = self.entities.get(relation.source), self.entities.get(relation.target)
        events = [e for e in (subject, obj) if e is not None and e.type == self.event]
        if found and len(events) == 2:
            cited = [ev for e in events if e.id in grounded for ev in grounded[e.id].evidence[:1]]
            return merge_evidence(found, cited)
        if found:
            return merge_evidence(found)
        if subject is None or obj is None:
            return []
        ends = [subject, obj]
        if len(events) == 2:
            return []
        fallback: Evidence | None = None
        if events:
            other = next(e for e in ends if e.type != self.event)
            if other.type in self.heading_types:
                fallback = heading_naming(scenes, names_of(other), self.producer)
            if fallback is None:
                fallback = _own_line_naming(grounded.get(events[0].id), other, set(relation.scenes), self.producer)
            if fallback is None:
                fallback = locate_names(body(scenes), [names_of(other)], self.producer)
        else:
            fallback = locate_names(body(scenes), [names_of(subject), names_of(obj)], self.producer)
        return [fallback] if fallback is not None else []


def _own_line_naming(event: Entity | None, other: Entity, scenes: set[int], producer: str) -> Evidence | None:
    """The event's own sentence in one of the link's scenes, when it names the entity linked to
    it: 'John performs John swerves onto the hard shoulder' cites the swerve, not the scene's
    first line naming John."""
    own = next((ev for ev in event.evidence if ev.scene in scenes), None) if event is not None else None
    pattern = name_pattern(names_of(other))
    if own is None or pattern is None or not pattern.search(own.quote):
        return None
    return own.model_copy(update={"producer": producer})


def ground_facts(screenplay: Screenplay, entities: list[Entity], relations: list[Relation],
                 quotes: dict[str, list[str]], *, producer: str, schema: Schema | None = None
                 ) -> tuple[list[Entity], list[Relation], UngroundedFacts]:
    """Give every fact evidence from the screenplay; leave out and count those the text does not show.

    Args:
        screenplay: The screenplay the facts were extracted from (scene text and line numbers).
        entities: The assembled entities (events included); their scenes say where to look.
        relations: The assembled relations; their scenes say where to look.
        quotes: Relation id -> the quotes the model gave for it.
        producer: The producer of the evidence (`extraction_producer`).
        schema: The schema (its event, place and time types); the default STAGE-KG schema when None.

    Returns:
        The entities and relations with evidence (inputs are not changed), in input order, and
        the count of what was left out: entities without evidence, relations without evidence
        and relations whose subject or object was left out.
    """
    grounder = _Grounder(screenplay, entities, relations, producer, schema or load_schema())
    dropped = UngroundedFacts()
    kept_entities: list[Entity] = []
    for entity in entities:
        evidence = merge_evidence(entity.evidence, grounder.entity(entity))
        if evidence:
            kept_entities.append(entity.model_copy(update={"evidence": evidence}))
        else:
            dropped.add("entity", f"{entity.type} '{entity.name}' (scenes {_scene_list(entity.scenes)})")
    grounded = {e.id: e for e in kept_entities}
    kept_ids = set(grounded)
    names = {e.id: e.name for e in entities}
    kept_relations: list[Relation] = []
    for rel in relations:
        label = (f"'{names.get(rel.source, rel.source)}' -{rel.type}-> '{names.get(rel.target, rel.target)}' "
                 f"(scenes {_scene_list(rel.scenes)})")
        if rel.source not in kept_ids or rel.target not in kept_ids:
            dropped.add("relation", f"{label}: an end was left out")
            continue
        evidence = merge_evidence(rel.evidence, grounder.relation(rel, quotes.get(rel.id, []), grounded))
        if evidence:
            kept_relations.append(rel.model_copy(update={"evidence": evidence}))
        else:
            dropped.add("relation", label)
    if dropped.total:
        logger.info("grounding: %d entities and %d relations the text does not show were left out",
                    dropped.entities, dropped.relations)
    return kept_entities, kept_relations, dropped


def _scene_list(scenes: list[int]) -> str:
    return ", ".join(map(str, scenes)) or "none"

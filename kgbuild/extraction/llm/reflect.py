"""Reflection (STAGE app. C.3): deterministic checks, an LLM judgement 0-10, and acceptance.

`check_extraction` finds, without a model, what is certainly wrong with an answer: schema
violations (unknown types, inadmissible type pairs), self-relations, relation ends that name
nothing, quotes that are not words of the passage, and contradictions with the screenplay's
layout (a speaking cue that is no person, a scene id outside the chunk). These are hard
failures. A few softer findings (duplicates, an unused heading location, a relation without a
quote) are only passed on as feedback.

`reflect` asks the model to score the answer on accuracy, consistency and redundancy, given the
layout facts, the passage and the check results, and returns an `Assessment`: the model's
scores, with the overall score forced below the threshold when a hard failure was found. The
reviewer sees the passage, so it can tell an invented fact from a stated one (the paper's
reviewer sees only the triples); every relation's quote is also checked against the passage
without a model, and a quote the passage does not hold is a hard failure.
"""

from __future__ import annotations

import logging
import re
from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.evidence import QUOTE_MATCH, quote_score
from kgbuild.extraction.llm.chunk_graph import (
    Inventory,
    build_inventory,
    event_type,
    normalize_name,
    resolve_link,
    resolve_relation,
)
from kgbuild.extraction.llm.context import ChunkContext
from kgbuild.extraction.llm.responses import ExtractionResponse, ReflectionResponse
from kgbuild.graph import canonical_key, entity_id
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.types import ChatMessage, StructuredLLM
from kgbuild.readers.cues import is_non_person_cue
from kgbuild.schema import Schema

logger = logging.getLogger(__name__)


class Issue(BaseModel):
    """One finding of the deterministic checks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hard: bool = Field(description="A hard failure forces the score below the threshold.")
    message: str


class Assessment(BaseModel):
    """The verdict on one extraction attempt."""

    model_config = ConfigDict(extra="forbid")

    score: int = Field(ge=0, le=10, description="Overall score after hard failures are applied.")
    model_score: int = Field(ge=0, le=10, description="The overall score the reviewer gave.")
    accuracy: int
    consistency: int
    redundancy: int
    accepted: bool
    hard_failures: list[str] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list, description="Reviewer feedback, then soft findings.")

    def reasons(self) -> list[str]:
        """What to fix: the checks' hard failures first (marked 'HARD'), then the feedback."""
        return [*(f"HARD: {h}" for h in self.hard_failures), *self.feedback]


def _scene_issues(answer: ExtractionResponse, context: ChunkContext) -> list[Issue]:
    allowed = set(context.scene_ids)
    where = ", ".join(map(str, context.scene_ids))
    issues = []
    for event in answer.events:
        if event.scene not in allowed:
            issues.append(Issue(hard=True, message=f"event '{event.name}' has scene {event.scene}, "
                                                   f"not one of this passage's scenes ({where})"))
    for entity in answer.entities:
        outside = sorted(set(entity.scenes) - allowed)
        if outside:
            issues.append(Issue(hard=True, message=f"entity '{entity.name}' lists scenes {outside} "
                                                   f"outside this passage ({where})"))
    return issues


def _item_issues(answer: ExtractionResponse, schema: Schema) -> list[Issue]:
    events = event_type(schema)
    types = set(schema.entity_type_names()) - {events}
    issues = []
    for event in answer.events:
        if not canonical_key(event.name):
            issues.append(Issue(hard=True, message="an event has no name"))
    for entity in answer.entities:
        if not canonical_key(entity.name):
            issues.append(Issue(hard=True, message=f"a {entity.type} entity has no name"))
        elif entity.type == events:
            issues.append(Issue(hard=True, message=f"'{entity.name}' is typed {events}: events belong in "
                                                   "the events list, entities in the entities list"))
        elif entity.type not in types:
            issues.append(Issue(hard=True, message=f"entity '{entity.name}' has type '{entity.type}', "
                                                   f"not a schema type ({', '.join(sorted(types))})"))
    keys = Counter((canonical_key(e.name), e.type) for e in answer.entities)
    for (key, etype), n in keys.items():
        if n > 1 and key:
            issues.append(Issue(hard=False, message=f"{etype} '{key}' is listed {n} times"))
    return issues


def _link_issues(answer: ExtractionResponse, inventory: Inventory, schema: Schema) -> list[Issue]:
    issues = []
    events = event_type(schema)
    for event in answer.events:
        event_id = entity_id(events, normalize_name(event.name))
        if event_id not in inventory.items:
            continue  # no name, or a scene outside the passage: `_item_issues` and `_scene_issues` say so
        for link in event.links:
            label = f"event '{event.name}' link {link.relation} '{link.entity}'"
            rtype = schema.canonical_relation(link.relation.strip())
            if schema.relation(rtype) is None:
                issues.append(Issue(hard=True, message=f"{label}: '{link.relation}' is not a relation type"))
                continue
            ends = resolve_link(event_id, link, inventory, schema)
            if ends is None:
                issues.append(Issue(hard=True, message=f"{label}: '{link.entity}' is not an entity of this "
                                                       "extraction"))
                continue
            s_type, t_type = inventory.items[ends[0]].type, inventory.items[ends[1]].type
            if not schema.is_admissible(rtype, s_type, t_type):
                other = t_type if s_type == events else s_type
                allowed = sorted({*schema.relation_types_for(other, events),
                                  *schema.relation_types_for(events, other)})
                hint = ", ".join(allowed) or "nothing"
                issues.append(Issue(hard=True, message=f"{label}: {rtype} does not link a {other} and an "
                                                       f"event; {other} <-> {events} allows {hint}"))
    return issues


def _relation_issues(answer: ExtractionResponse, context: ChunkContext, schema: Schema) -> list[Issue]:
    inventory = build_inventory(answer, context, schema)
    issues = _link_issues(answer, inventory, schema)
    for rel in answer.relations:
        label = f"'{rel.source} {rel.type} {rel.target}'"
        rtype = schema.canonical_relation(rel.type.strip())
        if schema.relation(rtype) is None:
            issues.append(Issue(hard=True, message=f"relation {label}: '{rel.type}' is not a relation type "
                                                   "of the schema"))
            continue
        source, target = resolve_relation(rel, inventory, schema)
        missing = [name for name, found in ((rel.source, source), (rel.target, target)) if found is None]
        if missing:
            issues.append(Issue(hard=True, message=f"relation {label}: "
                                + " and ".join(f"'{m}'" for m in missing)
                                + " is not an event or entity of this extraction"))
            continue
        if source is None or target is None:
            continue
        if source == target:
            issues.append(Issue(hard=True, message=f"relation {label} links an item to itself"))
            continue
        s_type, t_type = inventory.items[source].type, inventory.items[target].type
        if not schema.is_admissible(rtype, s_type, t_type):
            derived = set(schema.derived_relation_names())
            allowed = [t for t in schema.relation_types_for(s_type, t_type) if t not in derived]
            hint = f"; {s_type} -> {t_type} allows {', '.join(allowed)}" if allowed else \
                f"; nothing links {s_type} -> {t_type}"
            issues.append(Issue(hard=True, message=f"relation {label}: {rtype} does not allow "
                                                   f"{s_type} -> {t_type}{hint}"))
    linked = {key for rel in answer.relations for key in (canonical_key(rel.source), canonical_key(rel.target))}
    for event in answer.events:
        if canonical_key(event.name) and not event.links and canonical_key(event.name) not in linked:
            issues.append(Issue(hard=False, message=f"event '{event.name}' is not linked to anyone or anything"))
    return issues


def _fact_issues(answer: ExtractionResponse, context: ChunkContext, schema: Schema) -> list[Issue]:
    """The layout's facts: every speaker is a person, every heading place a place (for the roles
    the schema has)."""
    names: dict[str, set[str]] = {}
    for entity in answer.entities:
        for name in (entity.name, *entity.aliases):
            names.setdefault(canonical_key(name), set()).add(entity.type)
    issues = []
    person, place = schema.type_for_role("person"), schema.type_for_role("place")
    for cue in context.speakers if person is not None else ():
        if is_non_person_cue(cue):
            continue
        types = names.get(canonical_key(cue), set())
        if person in types:
            continue
        if types:
            issues.append(Issue(hard=True, message=f"'{cue}' speaks in this passage, so it is a {person}, "
                                                   f"not {', '.join(sorted(types))}"))
        else:
            issues.append(Issue(hard=True, message=f"'{cue}' speaks in this passage but is not a {person} "
                                                   "(give the cue name as the name or an alias)"))
    locations = {canonical_key(n) for e in answer.entities if e.type == place for n in (e.name, *e.aliases)}
    for scene in context.scenes if place is not None else ():
        if scene.location and not locations & _heading_place_keys(scene.location):
            issues.append(Issue(hard=False, message=f"the heading of scene {scene.index} places it at "
                                                    f"'{' > '.join(scene.location)}', which is no {place}"))
    return issues


_HEADING_NOTE = re.compile(r"\s*[(\[][^)\]]*[)\]]")
_OWNER = re.compile(r"^\S+['’]S\s+(?=\S)", re.IGNORECASE)


def _heading_place_keys(location: list[str]) -> set[str]:
    """The names a heading's places may go by: each part as written, each of two places joined
    by a slash ('LOUNGE / STAIRS'), each without a note in brackets ("JOHN'S CAR (MOVING)") and
    without its owner ("JOHN'S UPSTAIRS LANDING": the prompt keeps owners out of names)."""
    keys = set()
    for part in location:
        for piece in (part, *part.split("/")):
            bare = _HEADING_NOTE.sub("", piece).strip()
            for name in (piece, bare, _OWNER.sub("", bare)):
                if canonical_key(name):
                    keys.add(canonical_key(name))
    return keys


def _quote_issues(answer: ExtractionResponse, context: ChunkContext) -> list[Issue]:
    """Every relation's quote must be words of the passage (`kgbuild.evidence.quote_score` of at
    least `QUOTE_MATCH`): a quote the passage does not hold is a hard failure, a missing one a note."""
    issues = []
    for rel in answer.relations:
        label = f"'{rel.source} {rel.type} {rel.target}'"
        quote = rel.evidence.strip()
        if not quote:
            issues.append(Issue(hard=False, message=f"relation {label} has no quote; give the words of the "
                                                    "passage that show it"))
        elif quote_score(quote, context.passage) < QUOTE_MATCH:
            issues.append(Issue(hard=True, message=f"relation {label}: the quote \"{quote}\" is not in the "
                                                   "passage; copy its words exactly, or drop the relation "
                                                   "if the passage does not show it"))
    return issues


def check_extraction(answer: ExtractionResponse, context: ChunkContext, schema: Schema) -> list[Issue]:
    """Deterministic checks of one answer against the schema and the chunk's layout facts.

    Args:
        answer: The model's validated answer.
        context: The chunk's facts.
        schema: The graph schema.

    Returns:
        The findings, hard failures and soft ones, in a stable order.
    """
    return [*_item_issues(answer, schema), *_scene_issues(answer, context),
            *_relation_issues(answer, context, schema), *_quote_issues(answer, context),
            *_fact_issues(answer, context, schema)]


def render_extraction(answer: ExtractionResponse) -> str:
    """The answer as compact lines for the reviewer: what it judges (names, types, triples,
    evidence), without the fields it does not (entity scenes, verbs, persistence)."""
    events = []
    for e in answer.events:
        links = "; ".join(f"{k.relation}: {k.entity}" for k in e.links)
        events.append(f"- [scene {e.scene}] {e.name}: {e.description}" + (f" ({links})" if links else ""))
    entities = [f"- {e.type}: {e.name}" + (f" (aka {', '.join(e.aliases)})" if e.aliases else "")
                + f": {e.description}" for e in answer.entities]
    relations = [f"- {r.source} -{r.type}-> {r.target}" + (f' "{r.evidence}"' if r.evidence else "")
                 for r in answer.relations]
    lines = []
    for title, items in (("Events:", events), ("Entities:", entities), ("Relations:", relations)):
        lines += [title, *(items or ["- none"])]
    return "\n".join(lines)


def render_checks(issues: list[Issue]) -> str:
    """The check findings as prompt lines."""
    if not issues:
        return "none found"
    return "\n".join(f"- {'HARD' if i.hard else 'note'}: {i.message}" for i in issues)


def reflection_messages(answer: ExtractionResponse, context: ChunkContext, issues: list[Issue],
                        *, threshold: int) -> list[ChatMessage]:
    """The reviewer's chat messages for one answer."""
    prompt = load_prompt("reflect")
    return [
        ChatMessage(role="system", content=prompt.render("system", threshold=threshold)),
        ChatMessage(role="user", content=prompt.render(
            "user", facts=context.render_facts(known_speakers=False), passage=context.passage,
            extraction=render_extraction(answer), checks=render_checks(issues))),
    ]


def assess(review: ReflectionResponse, issues: list[Issue], *, threshold: int) -> Assessment:
    """Combine the reviewer's scores with the deterministic findings.

    A hard failure forces the score below `threshold` and the attempt is never accepted; soft
    findings are appended to the feedback. An attempt is accepted when its score reaches
    `threshold` and no hard failure was found.
    """
    hard = [i.message for i in issues if i.hard]
    soft = [i.message for i in issues if not i.hard]
    score = min(review.score, max(threshold - 1, 0)) if hard else review.score
    # The reviewer sees the checks' findings and often repeats them: say each once.
    findings = [*hard, *soft]
    own = [f for f in review.feedback if not _repeats_a_check(f, findings)]
    return Assessment(score=score, model_score=review.score, accuracy=review.accuracy,
                      consistency=review.consistency, redundancy=review.redundancy,
                      accepted=score >= threshold and not hard, hard_failures=hard,
                      feedback=[*own, *(f"note: {m}" for m in soft)])


def _repeats_a_check(point: str, findings: list[str]) -> bool:
    """True when a reviewer's point quotes a check's finding (`quote_score` >= `QUOTE_MATCH`)."""
    bare = re.sub(r"^\W*(?:HARD|note)\s*:\s*", "", point, flags=re.IGNORECASE)
    return any(quote_score(bare, f) >= QUOTE_MATCH for f in findings if len(f) >= 10)


async def reflect(llm: StructuredLLM, answer: ExtractionResponse, context: ChunkContext, schema: Schema, *,
                  threshold: int, task: str = "reflect") -> Assessment:
    """Check an answer, have it reviewed, and decide whether it is accepted.

    Args:
        llm: The structured LLM.
        answer: The chunk's extraction.
        context: The chunk's facts.
        schema: The graph schema.
        threshold: Score (0-10) needed for acceptance.
        task: Task label of the review call (usage is counted per task).

    Returns:
        The assessment.

    Raises:
        LLMOutputError, LLMUnavailableError, LLMRequestError, BudgetExceededError,
        BatchPendingError: from the review call (see `StructuredLLM.structured`).
    """
    issues = check_extraction(answer, context, schema)
    review = await llm.structured(task=task, messages=reflection_messages(answer, context, issues,
                                                                          threshold=threshold),
                                  response_model=ReflectionResponse)
    verdict = assess(review, issues, threshold=threshold)
    logger.debug("chunk %s: score %d (model %d), %d hard failures", context.chunk_id, verdict.score,
                 verdict.model_score, len(verdict.hard_failures))
    return verdict

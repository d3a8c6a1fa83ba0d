"""Event-first LLM extraction of every chunk, with reflection and bounded retries.

Per chunk, one extraction request asks for the events first, then the entities tied to them,
then the relations between those under the schema's admissible type pairs (the answer's field
order is that order, so the model writes events before anything depends on them). The parser's
facts about the chunk (scene ids and headings, location, time of day, printed numbers, who
speaks, every cue heard so far) are given and checked. A review request then scores the answer
(`kgbuild.extraction.llm.reflect`); below the threshold the chunk is extracted again with the feedback, up
to `max_retries` times, and the best-scoring attempt is kept.

One extraction request per chunk, rather than one per step, is what keeps the cost near one
reading of the script: three steps of separate requests would send each passage three times,
already more than the target of 4,000 tokens per 1,000 script words. The review reads the
extraction, not the passage.

Chunks run concurrently (`asyncio.gather`); the LLM client bounds the requests in flight. A chunk
whose requests fail after the client's retries is recorded as failed, never raised; a budget
or time stop (`LLMStallError`) or a batch-export request leaves the chunk `stopped` or `pending`
for the caller to report.

The assembled graph is grounded in the screenplay (`kgbuild.extraction.llm.grounding`): every fact gets
evidence with its scene, source lines and a verbatim quote, and the facts the text does not show
are left out and counted (`Assembly.ungrounded`).

Only chunks whose kept attempt reached the review threshold give facts to the graph. A chunk
that ends below it after its retries (or failed with an attempt below it or unreviewed) stays
in review.jsonl with the reviewer's reasons, and its facts are kept out of the graph
(`Assembly.below_threshold`) unless the build lets them in (`admit_below_threshold`, `kgbuild build
--admit-below-threshold`), which the report then says.

Example:
    >>> run = await extract_chunks(client, contexts, load_schema())
    >>> assembly = assemble(screenplay, run.outcomes, version="0.1.0", model="gpt-4o-mini")
    >>> assembly.graph, assembly.ungrounded.total
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.extraction.llm.chunk_graph import ChunkGraph, build_chunk_graph, event_type
from kgbuild.extraction.llm.context import ChunkContext
from kgbuild.extraction.llm.grounding import SCENE_OUTSIDE_CHUNK, UngroundedFacts, extraction_producer, ground_facts
from kgbuild.extraction.llm.reflect import Assessment, reflect
from kgbuild.extraction.llm.responses import ExtractionResponse, response_models
from kgbuild.extraction.llm.schema_text import render_entity_types, render_relation_types
from kgbuild.graph import merge_entity_records, merge_relation_records
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.settings import DEFAULT_MAX_RETRIES, DEFAULT_THRESHOLD
from kgbuild.llm.types import (
    ANSWER_ERRORS,
    BatchPendingError,
    BudgetExceededError,
    ChatMessage,
    LLMStallError,
    StructuredLLM,
)
from kgbuild.model import (
    Entity,
    KnowledgeGraph,
    MovieInfo,
    Provenance,
    Relation,
    Screenplay,
)
from kgbuild.schema import Schema

logger = logging.getLogger(__name__)

#: Task labels of the requests (usage is counted per task); retries are counted apart from first attempts.
TASK_EXTRACT, TASK_REFLECT = "extract", "reflect"
TASK_EXTRACT_RETRY, TASK_REFLECT_RETRY = "extract_retry", "reflect_retry"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChunkStatus(StrEnum):
    """Where a chunk ended up."""

    ACCEPTED = "accepted"  # an attempt reached the threshold
    BELOW_THRESHOLD = "below_threshold"  # every attempt scored below it; the best is kept
    FAILED = "failed"  # a request failed after the client's retries
    PENDING = "pending"  # batch-export mode: waiting for a request to be answered
    STOPPED = "stopped"  # the budget or the time ran out before the chunk was done


class AttemptRecord(_Model):
    """One extraction attempt and its verdict."""

    attempt: int = Field(description="0 for the first extraction, then 1, 2... for retries.")
    score: int | None = Field(default=None, description="Score after hard failures; None if not reviewed.")
    model_score: int | None = None
    accepted: bool = False
    hard_failures: list[str] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    error: str | None = Field(default=None, description="Why the attempt did not complete, if it did not.")


class ChunkOutcome(_Model):
    """What extraction made of one chunk."""

    chunk_id: str
    scenes: list[int]
    status: ChunkStatus
    attempts: list[AttemptRecord] = Field(default_factory=list)
    best_attempt: int | None = Field(default=None, description="The attempt whose extraction is kept.")
    graph: ChunkGraph | None = Field(default=None, description="The kept extraction (None if none).")

    @property
    def best_score(self) -> int | None:
        """The kept attempt's score."""
        return None if self.best_attempt is None else self.attempts[self.best_attempt].score

    def reasons(self) -> list[str]:
        """Why the chunk is not accepted: errors, then the kept attempt's problems."""
        errors = [a.error for a in self.attempts if a.error]
        kept = self.attempts[self.best_attempt] if self.best_attempt is not None else None
        problems = [*kept.hard_failures, *kept.feedback] if kept else []
        return [*errors, *problems]


class ReviewEntry(_Model):
    """One line of review.jsonl: a chunk a person should look at, and why."""

    chunk: str
    scenes: list[int]
    status: ChunkStatus
    best_score: int | None
    scores: list[int | None] = Field(description="Every attempt's score, in order.")
    reasons: list[str]
    in_graph: bool = Field(default=False, description="Whether the chunk's facts are in the graph: only "
                           "with --admit-below-threshold (a failed chunk with no kept attempt has none).")


class ExtractionRun(_Model):
    """The outcome of every chunk, in chunk order."""

    outcomes: list[ChunkOutcome]
    admit_below_threshold: bool = Field(
        default=False, description="The facts of chunks below the threshold were let into the graph.")

    def count(self, status: ChunkStatus) -> int:
        """How many chunks ended with `status`."""
        return sum(1 for o in self.outcomes if o.status is status)

    def review(self) -> list[ReviewEntry]:
        """The chunks left below the threshold or failed, for review.jsonl."""
        return [ReviewEntry(chunk=o.chunk_id, scenes=o.scenes, status=o.status, best_score=o.best_score,
                            scores=[a.score for a in o.attempts], reasons=o.reasons(),
                            in_graph=self.admit_below_threshold and o.graph is not None)
                for o in self.outcomes if o.status in (ChunkStatus.BELOW_THRESHOLD, ChunkStatus.FAILED)]


def admitted(outcome: ChunkOutcome, *, admit_below_threshold: bool = False) -> bool:
    """Whether a chunk's kept extraction goes into the graph: an accepted chunk's always; one
    that ended below the threshold (or failed with an attempt below it or unreviewed) only when
    the build lets such chunks in."""
    if outcome.graph is None:
        return False
    return outcome.status is ChunkStatus.ACCEPTED or admit_below_threshold


def extraction_messages(context: ChunkContext, schema: Schema, feedback: Assessment | None = None,
                        previous: ExtractionResponse | None = None) -> list[ChatMessage]:
    """The chat messages of one extraction request (with a previous attempt's feedback, if any).

    Args:
        context: The chunk's facts and passage.
        schema: The graph schema (its types and admissible pairs are listed in the prompt).
        feedback: The verdict on the previous attempt, for a re-extraction.
        previous: The previous attempt's answer, for a re-extraction: the feedback names its items.

    Returns:
        system, user, and for a retry the previous answer (as the assistant's turn) and a second
        user message with the feedback.
    """
    prompt = load_prompt("extract")
    events, person = event_type(schema), schema.type_for_role("person")
    messages = [
        ChatMessage(role="system", content=prompt.render(
            "system", entity_types=render_entity_types(schema, exclude={events}), event_type=events,
            speaker_rule=f" Every speaker is a {person} (a group that speaks as one, like THE PATIENTS, "
                         "too), except a cue that names no one in particular (ALL, BOTH, CROWD, EVERYONE, "
                         "VOICES), a narrator's voice (NARRATOR) or a device (a radio, an answering "
                         "machine)." if person else "",
            event_links=render_relation_types(schema, event_type=events, event_links=True),
            relation_types=render_relation_types(schema, event_type=events, event_links=False))),
        ChatMessage(role="user", content=prompt.render("user", facts=context.render_facts(),
                                                       passage=context.passage)),
    ]
    if feedback is not None:
        if previous is not None:
            messages.append(ChatMessage(role="assistant", content=previous.model_dump_json()))
        items = "\n".join(f"- {r}" for r in feedback.reasons()) or "- (no details given)"
        messages.append(ChatMessage(role="user", content=prompt.render(
            "feedback", score=feedback.score, feedback=items)))
    return messages


def _best(attempts: list[AttemptRecord], graphs: dict[int, ChunkGraph]) -> int | None:
    reviewed = [a for a in attempts if a.attempt in graphs]
    if not reviewed:
        return None
    return max(reviewed, key=lambda a: -1 if a.score is None else a.score).attempt


async def extract_chunk(llm: StructuredLLM, context: ChunkContext, schema: Schema, *,
                        threshold: int = DEFAULT_THRESHOLD,
                        max_retries: int = DEFAULT_MAX_RETRIES) -> ChunkOutcome:
    """Extract one chunk: extraction, review, and re-extraction with feedback while below threshold.

    Args:
        llm: The structured LLM.
        context: The chunk's facts and passage.
        schema: The graph schema.
        threshold: Review score (0-10) an attempt needs to be accepted.
        max_retries: Re-extractions after the first attempt.

    Returns:
        The outcome: accepted, below threshold (best attempt kept) or failed (with the error;
        the best reviewed attempt so far, if any, is kept).

    Raises:
        BudgetExceededError, BatchPendingError: the next request may not be sent now.
        LLMRequestError: the server refuses the requests (key, model): no chunk can succeed.
    """
    attempts: list[AttemptRecord] = []
    graphs: dict[int, ChunkGraph] = {}
    feedback: Assessment | None = None
    previous: ExtractionResponse | None = None
    status = ChunkStatus.BELOW_THRESHOLD
    for n in range(max_retries + 1):
        retry = n > 0
        try:
            answer = await llm.structured(task=TASK_EXTRACT_RETRY if retry else TASK_EXTRACT,
                                          messages=extraction_messages(context, schema, feedback, previous),
                                          response_model=response_models(schema).extraction)
        except ANSWER_ERRORS as e:
            logger.warning("chunk %s: extraction attempt %d failed: %s", context.chunk_id, n, e)
            attempts.append(AttemptRecord(attempt=n, error=f"extraction failed: {e}"))
            status = ChunkStatus.FAILED
            break
        try:
            verdict = await reflect(llm, answer, context, schema, threshold=threshold,
                                    task=TASK_REFLECT_RETRY if retry else TASK_REFLECT)
        except ANSWER_ERRORS as e:
            logger.warning("chunk %s: review of attempt %d failed: %s", context.chunk_id, n, e)
            attempts.append(AttemptRecord(attempt=n, error=f"review failed: {e}"))
            graphs[n] = build_chunk_graph(answer, context, schema)
            status = ChunkStatus.FAILED
            break
        graphs[n] = build_chunk_graph(answer, context, schema)
        attempts.append(AttemptRecord(attempt=n, score=verdict.score, model_score=verdict.model_score,
                                      accepted=verdict.accepted, hard_failures=verdict.hard_failures,
                                      feedback=verdict.feedback))
        if verdict.accepted:
            status = ChunkStatus.ACCEPTED
            break
        feedback, previous = verdict, answer
    best = _best(attempts, graphs)
    return ChunkOutcome(chunk_id=context.chunk_id, scenes=context.scene_ids, status=status,
                        attempts=attempts, best_attempt=best,
                        graph=graphs.get(best) if best is not None else None)


async def _guarded(llm: StructuredLLM, context: ChunkContext, schema: Schema, threshold: int,
                   max_retries: int, on_chunk: Callable[[], None] | None) -> ChunkOutcome:
    try:
        outcome = await extract_chunk(llm, context, schema, threshold=threshold, max_retries=max_retries)
    except BatchPendingError:
        outcome = ChunkOutcome(chunk_id=context.chunk_id, scenes=context.scene_ids, status=ChunkStatus.PENDING)
    except (BudgetExceededError, LLMStallError) as e:
        outcome = ChunkOutcome(chunk_id=context.chunk_id, scenes=context.scene_ids, status=ChunkStatus.STOPPED,
                               attempts=[AttemptRecord(attempt=0, error=str(e))])
    if on_chunk is not None:
        on_chunk()
    return outcome


async def extract_chunks(llm: StructuredLLM, contexts: list[ChunkContext], schema: Schema, *,
                         threshold: int = DEFAULT_THRESHOLD, max_retries: int = DEFAULT_MAX_RETRIES,
                         on_chunk: Callable[[], None] | None = None) -> ExtractionRun:
    """Extract every chunk concurrently.

    Args:
        llm: The structured LLM (it bounds the requests in flight).
        contexts: The chunks' facts and passages (`kgbuild.extraction.llm.context.chunk_contexts`).
        schema: The graph schema.
        threshold: Review score needed for acceptance.
        max_retries: Re-extractions per chunk after the first attempt.
        on_chunk: Called once per finished chunk (progress).

    Returns:
        Every chunk's outcome in chunk order; failed, pending and stopped chunks included.

    Raises:
        LLMRequestError: the server refused the requests (bad key, unknown model...).
    """
    per_chunk = [_guarded(llm, c, schema, threshold, max_retries, on_chunk) for c in contexts]
    outcomes = await asyncio.gather(*per_chunk)
    return ExtractionRun(outcomes=list(outcomes))


class BelowThreshold(_Model):
    """A chunk whose kept extraction did not reach the review threshold, and what it holds."""

    chunk: str
    scenes: list[int]
    status: ChunkStatus
    best_score: int | None
    entities: int = Field(description="Entities (events included) of its kept extraction.")
    relations: int = Field(description="Relations of its kept extraction.")
    in_graph: bool = Field(description="Its facts were let into the graph (--admit-below-threshold); "
                                       "else they are kept out.")


class Assembly(_Model):
    """The graph of an LLM extraction and what was kept out of it."""

    graph: KnowledgeGraph
    ungrounded: UngroundedFacts = Field(
        default_factory=UngroundedFacts,
        description="Facts of the answers left out because the screenplay text shows none of them (and "
        "events placed outside their chunk).")
    below_threshold: list[BelowThreshold] = Field(
        default_factory=list, description="The chunks below the review threshold, and whether their facts "
        "were let in.")


def assemble(screenplay: Screenplay, outcomes: list[ChunkOutcome], *, version: str,
             model: str | None = None, token_usage: dict[str, int] | None = None,
             schema: Schema | None = None, admit_below_threshold: bool = False) -> Assembly:
    """One graph from the kept extraction of every chunk: repeats merged by id, every fact grounded.

    Args:
        screenplay: The screenplay (movie metadata; scene text and lines for the evidence).
        outcomes: The chunks' outcomes, in chunk order.
        version: The kgbuild version for the provenance.
        model: The model name for the provenance and the evidence's producer
            ('llm:MODEL/extract@VERSION', see `kgbuild.extraction.llm.grounding.extraction_producer`).
        token_usage: Token counts for the provenance.
        schema: The schema the chunks were extracted with (grounding asks it for the event,
            place and time types); the default STAGE-KG schema when None.
        admit_below_threshold: Let in the facts of chunks that did not reach the review threshold
            (`admitted`); by default only accepted chunks give facts.

    Returns:
        The graph with provenance backend 'llm' (repeats merged by `merge_entity_records` and
        `merge_relation_records`: first name, longest description, scenes unioned; evidence on
        every fact), the count of the facts left out for want of evidence (and of the events
        a chunk placed outside its scenes), and the chunks below the threshold.
    """
    entities: dict[str, Entity] = {}
    relations: dict[str, Relation] = {}
    quotes: dict[str, list[str]] = {}
    dropped: list[tuple[str, str]] = []
    below: list[BelowThreshold] = []
    for outcome in outcomes:
        if outcome.graph is None:
            continue
        let_in = admitted(outcome, admit_below_threshold=admit_below_threshold)
        if outcome.status is not ChunkStatus.ACCEPTED:
            below.append(BelowThreshold(chunk=outcome.chunk_id, scenes=outcome.scenes, status=outcome.status,
                                        best_score=outcome.best_score, entities=len(outcome.graph.entities),
                                        relations=len(outcome.graph.relations), in_graph=let_in))
        if not let_in:
            continue
        dropped += outcome.graph.dropped
        for entity in outcome.graph.entities:
            old = entities.get(entity.id)
            entities[entity.id] = merge_entity_records(old, entity) if old else entity
        for rel in outcome.graph.relations:
            old_rel = relations.get(rel.id)
            relations[rel.id] = merge_relation_records(old_rel, rel) if old_rel else rel
        for rid, given in outcome.graph.quotes.items():
            quotes[rid] = list(dict.fromkeys([*quotes.get(rid, []), *given]))
    kept_entities, kept_relations, ungrounded = ground_facts(
        screenplay, list(entities.values()), list(relations.values()), quotes,
        producer=extraction_producer(model), schema=schema)
    for label, why in dropped:
        ungrounded.add("entity", label, SCENE_OUTSIDE_CHUNK, why)
    graph = KnowledgeGraph(
        movie=MovieInfo(id=screenplay.id, title=screenplay.title, language=screenplay.language,
                        source_sha256=screenplay.source.sha256, scenes=len(screenplay.scenes)),
        entities=kept_entities, relations=kept_relations,
        provenance=Provenance(kgbuild_version=version, backend="llm", model=model,
                              token_usage=dict(token_usage or {})))
    return Assembly(graph=graph, ungrounded=ungrounded, below_threshold=below)


def assemble_graph(screenplay: Screenplay, outcomes: list[ChunkOutcome], *, version: str,
                   model: str | None = None, token_usage: dict[str, int] | None = None,
                   schema: Schema | None = None, admit_below_threshold: bool = False) -> KnowledgeGraph:
    """The graph of `assemble`, for callers that do not report what grounding left out.

    Args and Returns: as `assemble`, without the count.
    """
    return assemble(screenplay, outcomes, version=version, model=model, token_usage=token_usage,
                    schema=schema, admit_below_threshold=admit_below_threshold).graph

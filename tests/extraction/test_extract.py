"""Event-first extraction per chunk: facts, prompts, names to ids, attempts, concurrency, graph assembly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from kgbuild.chunking import chunk_screenplay
from kgbuild.extraction.llm.chunk_graph import build_chunk_graph, normalize_name
from kgbuild.extraction.llm.context import ChunkContext, SceneFacts, chunk_contexts
from kgbuild.extraction.llm.extract import (
    ChunkStatus,
    assemble_graph,
    extract_chunk,
    extract_chunks,
    extraction_messages,
)
from kgbuild.extraction.llm.responses import ExtractionResponse
from kgbuild.extraction.llm.schema_text import render_relation_types
from kgbuild.graph import entity_id, relation_id
from kgbuild.llm.cache import cache_key
from kgbuild.llm.client import Budget, LLMClient
from kgbuild.llm.prompts import PromptError, load_prompt, parse_prompt
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.types import ChatMessage, ChatRequest, ChatResult, Usage
from kgbuild.model import Scope
from kgbuild.readers import read_screenplay
from kgbuild.schema import Schema, load_schema

SCHEMA = load_schema()

CONTEXT = ChunkContext(
    chunk_id="scenes_3_4",
    scenes=[SceneFacts(index=3, number=None, heading="INT. HARBOUR OFFICE - NIGHT", location=["HARBOUR OFFICE"],
                       time_of_day="NIGHT", speakers=["MARGO"]),
            SceneFacts(index=4, number=None, heading="EXT. PIER - NIGHT", location=["PIER"],
                       time_of_day="NIGHT", speakers=[])],
    known_speakers=["TEDDY", "MARGO"],
    passage="[scene 3]\nINT. HARBOUR OFFICE - NIGHT\nMargo spins the dial.\n\n[scene 4]\nEXT. PIER - NIGHT",
)

GOOD = {
    "events": [{"name": "  margo cracks the safe.", "description": "She opens it.", "scene": 3,
                "links": [{"relation": "performs", "entity": "MARGO"},
                          {"relation": "occurs_at", "entity": "harbour office"},
                          {"relation": "undergoes", "entity": "The Safe"}]}],
    "entities": [
        {"name": "MARGO VANCE", "type": "Character", "description": "safecracker", "aliases": ["MARGO", "Vance"],
         "scenes": [3, 9]},
        {"name": "Harbour Office", "type": "Location", "description": "", "aliases": [], "scenes": [3]},
        {"name": "Pier", "type": "Location", "description": "", "aliases": [], "scenes": []},
        {"name": "the safe", "type": "Object", "description": "an old safe", "aliases": [], "scenes": [3]},
        {"name": "Mustang", "type": "Object", "description": "a car", "aliases": [], "scenes": [4]},
        {"name": "Mustang", "type": "Character", "description": "a horse that talks", "aliases": [], "scenes": [4]},
        {"name": "Dread", "type": "Emotion", "description": "", "aliases": [], "scenes": [3]},
    ],
    "relations": [
        {"source": "Vance", "type": "interacts_with", "target": "Mustang", "verb": "drives",
         "persistence": "momentary", "evidence": "She floors it"},
        {"source": "Margo", "type": "speaks_to", "target": "Mustang", "verb": "calls", "persistence": "momentary",
         "evidence": ""},
        {"source": "Margo", "type": "uses", "target": "the safe", "verb": "opens", "persistence": "momentary",
         "evidence": ""},
        {"source": "Margo", "type": "speaks_to", "target": "Sal", "verb": "", "persistence": "momentary",
         "evidence": ""},
        {"source": "Margo", "type": "kinship_with", "target": "Margo Vance", "verb": "", "persistence": "stable",
         "evidence": ""},
    ],
}


def ids(graph):
    return {e.id: e for e in graph.entities}, {(r.source, r.type, r.target): r for r in graph.relations}


# -- facts --------------------------------------------------------------------------------------

@pytest.mark.shared_data
def test_chunk_contexts_give_scene_ids_markers_speakers_and_earlier_cues(shared_data):
    sp = read_screenplay(shared_data / "screenplays" / "brick-and-steel.fountain")
    contexts = {c.chunk_id: c for c in chunk_contexts(sp, chunk_screenplay(sp, token_budget=250))}
    ctx = contexts["scenes_2_5"]
    assert ctx.scene_ids == [2, 3, 4, 5]
    assert [s.speakers for s in ctx.scenes] == [["JACK", "DAN"], ["STEEL"], ["STEEL"], []]
    assert ctx.passage.startswith("[scene 2]\nINT. TRAILER HOME - DAY\n")
    assert "\n\n[scene 3]\nEXT. BRICK'S POOL - DAY\n" in ctx.passage
    assert ctx.render_facts().splitlines() == [
        "- [scene 2] location: TRAILER HOME; time: DAY; speakers: JACK, DAN",
        "- [scene 3] location: BRICK'S POOL; time: DAY; speakers: STEEL",
        "- [scene 4] speakers: STEEL",  # a camera note (POV) names no place
        "- [scene 5] location: OPENING TITLES; speakers: none",
        "Other speakers heard before: BRICK",
    ]
    parts = [c for c in chunk_contexts(sp, chunk_screenplay(sp, token_budget=100)) if c.chunk_id.startswith("scene_6_")]
    assert [p.chunk_id for p in parts] == ["scene_6_part_1", "scene_6_part_2"]
    assert [p.scenes[0].speakers for p in parts] == [["COGNITO", "STEEL"], ["COGNITO"]]  # who speaks in the part
    assert all(p.passage.startswith("[scene 6]\n") for p in parts)
    assert parts[1].render_facts().endswith("Other speakers heard before: STEEL, BRICK, JACK, DAN")


# -- prompts ------------------------------------------------------------------------------------

def test_prompts_are_versioned_files_rendered_from_the_schema():
    prompt = load_prompt("extract")
    assert (prompt.name, prompt.version, prompt.tag) == ("extract", 4, "extract v4")
    system, user = extraction_messages(CONTEXT, SCHEMA)
    assert system.content.startswith("[kgbuild prompt extract v4]\n")
    for spec in SCHEMA.relation_types:
        # Derived types (life_stage_of) are written by the merge stage, never asked for.
        assert (f"- {spec.name} (" in system.content) is not spec.derived
    for name in ("Character", "Location", "TimePoint", "Object", "Concept", "Occasion"):
        assert f"- {name}: " in system.content
    assert "- performs (Character|Object|Concept -> Event): An entity actively carries out" in system.content
    assert "- part_of (Location|Object|Occasion -> Location; Object -> Object; Location -> Occasion; " \
           "Object -> Concept): Part-whole or containment." in system.content
    assert "- [scene 3] location: HARBOUR OFFICE; time: NIGHT; speakers: MARGO" in user.content
    assert "Other speakers heard before: TEDDY" in user.content and CONTEXT.passage in user.content


def test_prompts_follow_another_schema():
    tiny = Schema(name="tiny", version=1, entity_types=[
        {"name": "Event", "description": "A happening.", "event_centric": True, "role": "event"},
        {"name": "Robot", "description": "A machine: with a mind.", "event_centric": False}],
        relation_types=[{"name": "repairs", "group": "g", "description": "Fixes (by hand).",
                         "pairs": [["Robot", "Robot"]], "event_centric": False},
                        {"name": "triggers", "group": "g", "description": "Starts.",
                         "pairs": [["Robot", "Event"]], "event_centric": True}])
    system = extraction_messages(CONTEXT, tiny)[0].content
    assert "- Robot: A machine: with a mind." in system and "- Character" not in system
    assert "- repairs (Robot -> Robot): Fixes." in system
    assert "- triggers (Robot -> Event): Starts." in system and "- performs" not in system
    assert render_relation_types(tiny, event_type="Event", event_links=True) == "- triggers (Robot -> Event): Starts."


def test_prompt_version_is_part_of_every_request_key():
    text = "---\nname: demo\nversion: {v}\n---\n## system\nHello $who.\n## user\nBye.\n"
    v1, v2 = (parse_prompt(text.format(v=v)) for v in (1, 2))
    assert v1.render("system", who="you") == "[kgbuild prompt demo v1]\nHello you."
    keys = {cache_key(ChatRequest(model="m",
                                  messages=[ChatMessage(role="system", content=p.render("system", who="x"))]))
            for p in (v1, v2)}
    assert len(keys) == 2
    with pytest.raises(PromptError, match="no value for 'who'"):
        v1.render("system")
    with pytest.raises(PromptError, match="front matter"):
        parse_prompt("## system\nx\n## user\ny\n")
    with pytest.raises(PromptError, match="no prompt file"):
        load_prompt("nonexistent")


# -- names to ids -------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, type_name, expected", [
    ('  "BRICK   BRADDOCK." ', "Character", "Brick Braddock"),
    ("FBI", "Concept", "FBI"),
    ("O'REILLY", "Character", "O'Reilly"),
    ("the safe", "Object", "the safe"),
    ("(Harbour Office)", "Location", "Harbour Office"),
    ("车（印度）", "Location", "车(印度)"),  # a bracketed part at the end keeps both brackets
    ("JOHN'S CAR (MOVING", "Location", "JOHN'S CAR (MOVING"),
    ("Steel)", "Character", "Steel"),
])
def test_names_are_normalized_before_ids(raw, type_name, expected):
    assert normalize_name(raw, person=SCHEMA.role_of(type_name) == "person") == expected


def test_chunk_graph_resolves_names_orients_links_and_grounds_scenes():
    graph = build_chunk_graph(ExtractionResponse.model_validate(GOOD), CONTEXT, SCHEMA)
    entities, relations = ids(graph)
    margo, office, safe = "character:margo_vance", "location:harbour_office", "object:the_safe"
    event = "event:margo_cracks_the_safe"
    assert set(entities) == {event, margo, office, "location:pier", safe, "object:mustang", "character:mustang"}
    assert entities[margo].name == "Margo Vance" and entities[margo].aliases == ["Margo", "Vance"]
    assert entities[margo].scenes == [3]  # scene 9 is not in this chunk
    assert entities["location:pier"].scenes == [3, 4]  # none given: the chunk's scenes
    assert entities[event].name == "margo cracks the safe" and entities[event].scenes == [3]
    assert set(relations) == {
        (margo, "performs", event), (event, "occurs_at", office), (safe, "undergoes", event),
        (margo, "interacts_with", "object:mustang"), (margo, "speaks_to", "character:mustang"),
        (margo, "interacts_with", safe),  # 'uses' is the schema's synonym of interacts_with
    }
    assert relations[(margo, "performs", event)].scenes == [3]
    drive = relations[(margo, "interacts_with", "object:mustang")]
    assert drive.scenes == [3, 4] and drive.name == "drives"
    assert drive.evidence == [] and graph.quotes == {drive.id: ["She floors it"]}  # located when assembled
    assert drive.id == relation_id(margo, "interacts_with", "object:mustang")
    assert all(e.id == entity_id(e.type, e.name) for e in graph.entities)
    # The model's entities are story-level names: merging compares them across chunks.
    assert {e.scope for e in graph.entities if e.id != event} == {Scope.GLOBAL}



def test_a_repeated_item_of_one_answer_merges_by_the_merge_policy():
    answer = {**CLEAN, "entities": [
        {"name": "Margo", "type": "Character", "description": "a thief", "aliases": ["Mags"], "scenes": [3]},
        {"name": "MARGO", "type": "Character", "description": "a thief who cracks safes", "aliases": ["M"],
         "scenes": [4]}]}
    graph = build_chunk_graph(ExtractionResponse.model_validate(answer), CONTEXT, SCHEMA)
    margo = next(e for e in graph.entities if e.id == "character:margo")
    assert margo.description == "a thief who cracks safes"  # the longest, no longer the first
    assert margo.aliases == ["Mags", "M"] and margo.scenes == [3, 4]

# -- attempts -----------------------------------------------------------------------------------

REVIEW_OK = {"accuracy": 8, "consistency": 8, "redundancy": 8, "score": 8, "feedback": []}
REVIEW_LOW = {"accuracy": 3, "consistency": 5, "redundancy": 5, "score": 3, "feedback": ["too thin"]}
CLEAN = {"events": [{"name": "Margo cracks the safe", "description": "", "scene": 3,
                     "links": [{"relation": "performs", "entity": "Margo"}]}],
         "entities": [{"name": "Margo", "type": "Character", "description": "", "aliases": [], "scenes": [3]},
                      {"name": "Harbour Office", "type": "Location", "description": "", "aliases": [], "scenes": [3]},
                      {"name": "Pier", "type": "Location", "description": "", "aliases": [], "scenes": [4]}],
         "relations": []}


def run(coro):
    return asyncio.run(coro)


def test_bad_answer_then_good_answer_is_retried_with_feedback_and_accepted():
    missing_speaker = {**CLEAN, "entities": CLEAN["entities"][1:], "events": []}
    # The reviewer repeats the check's finding in its own words, and adds one of its own.
    review = {**REVIEW_OK, "score": 9, "feedback": ["HARD: 'MARGO' speaks in this passage but is not a Character",
                                                   "the safe is never named as an Object"]}
    backend = ScriptedBackend([json.dumps(missing_speaker), json.dumps(review),
                               json.dumps(CLEAN), json.dumps(REVIEW_OK)])
    client = LLMClient(backend, "m")
    outcome = run(extract_chunk(client, CONTEXT, SCHEMA))
    assert outcome.status is ChunkStatus.ACCEPTED
    assert [a.score for a in outcome.attempts] == [6, 8] and outcome.best_attempt == 1
    assert outcome.graph is not None and "character:margo" in {e.id for e in outcome.graph.entities}
    retry = backend.requests[2].messages
    # The re-extraction sees its previous answer (the feedback names its items), then the feedback.
    assert [m.role for m in retry] == ["system", "user", "assistant", "user"]
    assert json.loads(retry[2].content) == missing_speaker
    assert "scored 6/10" in retry[3].content
    assert "- HARD: 'MARGO' speaks in this passage but is not a Character" in retry[3].content
    assert retry[3].content.count("speaks in this passage") == 1  # said once, not again as the reviewer's
    assert "- the safe is never named as an Object" in retry[3].content
    assert set(client.usage().tasks) == {"extract", "reflect", "extract_retry", "reflect_retry"}


def test_best_attempt_is_kept_when_every_attempt_stays_below_threshold():
    second = {**CLEAN, "events": [{**CLEAN["events"][0], "name": "Margo fails"}]}
    backend = ScriptedBackend([json.dumps(CLEAN), json.dumps({**REVIEW_LOW, "score": 6}),
                               json.dumps(second), json.dumps(REVIEW_LOW)])
    outcome = run(extract_chunk(LLMClient(backend, "m"), CONTEXT, SCHEMA, max_retries=1))
    assert outcome.status is ChunkStatus.BELOW_THRESHOLD
    assert [a.score for a in outcome.attempts] == [6, 3] and outcome.best_attempt == 0 and outcome.best_score == 6
    assert "event:margo_cracks_the_safe" in {e.id for e in outcome.graph.entities}
    assert outcome.reasons() == ["too thin"]


def test_failed_review_keeps_the_checked_extraction_and_records_the_error():
    backend = ScriptedBackend([json.dumps(CLEAN), "no idea", "still no idea", "nope"])
    outcome = run(extract_chunk(LLMClient(backend, "m", max_repairs=2), CONTEXT, SCHEMA))
    assert outcome.status is ChunkStatus.FAILED
    assert outcome.attempts[0].score is None and outcome.attempts[0].error.startswith("review failed:")
    assert outcome.graph is not None and outcome.best_attempt == 0


class InFlight:
    """A backend that answers after a pause and records how many requests overlapped."""

    name = "in-flight"

    def __init__(self) -> None:
        self.now = self.most = self.calls = 0

    async def complete(self, request: ChatRequest) -> ChatResult:
        self.now += 1
        self.calls += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(0.05)
        self.now -= 1
        kind = "reflect" if "prompt reflect" in request.messages[0].content else "extract"
        return ChatResult(content=json.dumps(REVIEW_OK if kind == "reflect" else CLEAN), usage=Usage())


def contexts(n: int) -> list[ChunkContext]:
    return [CONTEXT.model_copy(update={"chunk_id": f"c{i}", "passage": f"{CONTEXT.passage}\n({i})"})
            for i in range(n)]


def test_chunks_run_concurrently_within_the_clients_bound():
    backend = InFlight()
    done = []
    run_ = run(extract_chunks(LLMClient(backend, "m", concurrency=3), contexts(7), SCHEMA,
                              on_chunk=lambda: done.append(1)))
    assert backend.most == 3 and backend.calls == 14 and len(done) == 7
    assert [o.chunk_id for o in run_.outcomes] == [f"c{i}" for i in range(7)]
    assert run_.count(ChunkStatus.ACCEPTED) == 7 and run_.review() == []


def test_budget_and_batch_export_leave_chunks_stopped_or_pending():
    stopped = run(extract_chunks(LLMClient(InFlight(), "m", concurrency=1, budget=Budget(max_requests=1)),
                                 contexts(3), SCHEMA))
    assert [o.status for o in stopped.outcomes] == [ChunkStatus.STOPPED] * 3
    assert "request budget reached" in stopped.outcomes[0].attempts[0].error
    client = LLMClient(InFlight(), "m", batch_export=True)
    pending = run(extract_chunks(client, contexts(3), SCHEMA))
    assert [o.status for o in pending.outcomes] == [ChunkStatus.PENDING] * 3
    assert len(client.pending) == 3
    assert {r.schema_name for r in client.pending.values()} == {"ExtractionResponse"}


def test_assemble_graph_merges_chunks_by_id():
    other = CONTEXT.model_copy(update={"chunk_id": "scene_5", "scenes": [CONTEXT.scenes[1].model_copy(
        update={"index": 5})]})
    first = build_chunk_graph(ExtractionResponse.model_validate(CLEAN), CONTEXT, SCHEMA)
    later = {**CLEAN, "entities": [{"name": "MARGO", "type": "Character", "description": "safecracker",
                                    "aliases": ["Mags"], "scenes": [5]}], "events": [], "relations": []}
    second = build_chunk_graph(ExtractionResponse.model_validate(later), other, SCHEMA)
    from kgbuild.extraction.llm.extract import ChunkOutcome

    outcomes = [ChunkOutcome(chunk_id="a", scenes=[3, 4], status=ChunkStatus.ACCEPTED, graph=first),
                ChunkOutcome(chunk_id="b", scenes=[5], status=ChunkStatus.FAILED),
                ChunkOutcome(chunk_id="c", scenes=[5], status=ChunkStatus.ACCEPTED, graph=second)]
    sp = read_screenplay(Path(__file__).resolve().parent.parent / "fixtures" / "llm" / "safe_job.fountain")
    graph = assemble_graph(sp, outcomes, version="9.9", model="m", token_usage={"total.requests": 4})
    margo = next(e for e in graph.entities if e.id == "character:margo")
    assert margo.scenes == [3, 5] and margo.aliases == ["Mags"] and margo.description == "safecracker"
    assert [(ev.scene, ev.lines, ev.producer) for ev in margo.evidence] == [(3, (14, 14), "llm:m/extract@4")]
    assert len({e.id for e in graph.entities}) == len(graph.entities)
    assert graph.provenance.backend == "llm" and graph.provenance.token_usage == {"total.requests": 4}

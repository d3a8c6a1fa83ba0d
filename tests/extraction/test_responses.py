"""The response models come from the schema: enums of its names in the JSON schema sent, strict
output still accepted, and an answer with an invented type repaired through the client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from kgbuild.extraction.llm.responses import ExtractionResponse, SchemaNotExtractableError, response_models
from kgbuild.llm.client import LLMClient
from kgbuild.llm.openai_backend import is_strict_compatible
from kgbuild.llm.scripted import ScriptedBackend
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ChatMessage, LLMOutputError
from kgbuild.pipeline import BuildOptions, run_build
from kgbuild.schema import Schema, load_schema
from kgbuild.tokens import estimate_tokens

REPO = Path(__file__).resolve().parent.parent.parent
PEOPLE_PLACES = REPO / "tests" / "fixtures" / "schema" / "people_places.json"
HARBOUR = REPO / "tests" / "fixtures" / "offline" / "harbour.fountain"
STAGE = load_schema()


def enums(model) -> dict[str, list[str]]:
    defs = model.model_json_schema()["$defs"]
    return {"entity": defs["ExtractedEntity"]["properties"]["type"]["enum"],
            "relation": defs["ExtractedRelation"]["properties"]["type"]["enum"],
            "link": defs["EventLink"]["properties"]["relation"]["enum"]}


def test_the_json_schema_sent_enumerates_the_schema_names_and_stays_strict():
    model = response_models(STAGE).extraction
    schema = model.model_json_schema()
    assert is_strict_compatible(schema)
    assert list(schema["properties"]) == ["events", "entities", "relations"]  # the extraction order
    assert "title" not in json.dumps({k: v for k, v in schema["$defs"].items() if k != "Persistence"})
    found = enums(model)
    assert found["entity"] == ["Character", "Location", "TimePoint", "Object", "Concept", "Occasion"]
    assert found["link"] == ["performs", "undergoes", "experiences", "is_a", "occurs_at", "occurs_on", "occurs_during"]
    # Exactly the relation types the prompt lists: those with a pair that is no event link (an
    # Occasion occurs_at a Location too), no derived type, no synonym the prompt never names.
    assert found["relation"] == STAGE.extractable_relation_names(event_links=False)
    assert found["relation"][:3] == ["participates_in", "initiates", "kinship_with"]
    assert {"performs", "undergoes", "life_stage_of", "witnesses", "affiliated_with", "uses"}.isdisjoint(
        found["relation"]) and len(found["relation"]) == 22
    assert issubclass(model, ExtractionResponse) and model.__name__ == "ExtractionResponse"
    assert response_models(load_schema()) is response_models(STAGE)  # cached per schema


def test_the_enum_lists_cost_about_120_tokens_per_extraction_request():
    def tokens(schema: dict) -> int:
        return estimate_tokens(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))

    before, after = tokens(ExtractionResponse.model_json_schema()), tokens(response_models(STAGE).extraction
                                                                            .model_json_schema())
    assert (before, after) == (390, 510)


def test_another_schema_gives_its_own_names_and_one_without_events_is_refused():
    data = json.loads(PEOPLE_PLACES.read_text())
    with pytest.raises(SchemaNotExtractableError, match="people-places v1 has no event type"):
        response_models(load_schema(PEOPLE_PLACES))
    data["entity_types"].append({"name": "Happening", "description": "Something that happens.",
                                 "event_centric": True, "role": "event"})
    data["relation_types"].append({"name": "takes_part_in", "group": "event", "description": "Is in it.",
                                   "pairs": [["Person", "Happening"]], "event_centric": True})
    found = enums(response_models(Schema.model_validate(data)).extraction)
    assert found == {"entity": ["Person", "Place"], "relation": ["located_at", "speaks_to", "part_of"],
                     "link": ["takes_part_in"]}


ANSWER = {"events": [{"name": "Margo meets Teddy", "description": "Teddy lands.", "scene": 1,
                      "links": [{"relation": "performs", "entity": "Margo Vance"}]}],
          "entities": [{"name": "Margo Vance", "type": "Character", "description": "A woman.", "aliases": [],
                        "scenes": [1]}],
          "relations": []}


def test_an_invented_type_fails_validation_and_the_retry_gets_a_good_answer():
    bad = json.loads(json.dumps(ANSWER))
    bad["entities"][0]["type"] = "Smuggler"
    bad["events"][0]["links"][0]["relation"] = "waits_for"
    backend = ScriptedBackend([json.dumps(bad), json.dumps(ANSWER)])
    client = LLMClient(backend, "scripted")
    model = response_models(STAGE).extraction
    answer = asyncio.run(client.structured(task="extract", messages=[ChatMessage(role="user", content="go")],
                                           response_model=model))
    assert isinstance(answer, model) and answer.entities[0].type == "Character"
    assert len(backend.requests) == 2 and client.usage().tasks["extract"].repairs == 1
    retry = backend.requests[1].messages
    assert [m.role for m in retry] == ["user", "assistant", "user"] and retry[1].content == json.dumps(bad)
    # The repair turn names both fields and the names the schema allows.
    assert "events.0.links.0.relation: Input should be 'performs', 'undergoes'" in retry[2].content
    assert "entities.0.type: Input should be 'Character', 'Location', 'TimePoint', 'Object', 'Concept' or " \
           "'Occasion'" in retry[2].content
    assert backend.requests[1].response_schema == backend.requests[0].response_schema == model.model_json_schema()


def test_a_model_that_keeps_inventing_types_fails_the_call():
    bad = json.loads(json.dumps(ANSWER))
    bad["entities"][0]["type"] = "Smuggler"
    client = LLMClient(ScriptedBackend(json.dumps(bad)), "scripted", max_repairs=1)
    with pytest.raises(LLMOutputError, match="entities.0.type"):
        asyncio.run(client.structured(task="extract", messages=[ChatMessage(role="user", content="go")],
                                      response_model=response_models(STAGE).extraction))


def test_an_llm_build_with_another_schema(tmp_path):
    """Prompts, response models, reflection checks, grounding, repairs and merging all in the
    schema's names: a Person/Place schema with a 'Happening' event type."""
    data = json.loads(PEOPLE_PLACES.read_text())
    data["entity_types"].append({"name": "Happening", "description": "Something that happens.",
                                 "event_centric": True, "role": "event"})
    data["relation_types"].append({"name": "takes_part_in", "group": "event", "description": "Is in it.",
                                   "pairs": [["Person", "Happening"]], "event_centric": True})
    schema = Schema.model_validate(data)

    def reply(request) -> str:
        system = request.messages[0].content
        if "prompt reflect" in system:
            return json.dumps({"accuracy": 9, "consistency": 9, "redundancy": 9, "score": 9, "feedback": []})
        assert "- Person: Someone in the story." in system and "Character" not in system
        assert "Every speaker is a Person (a group that speaks as one" in system
        assert "(entity type -> Happening, or Happening ->" in system
        entity = request.response_schema["$defs"]["ExtractedEntity"]["properties"]["type"]["enum"]
        assert entity == ["Person", "Place"]
        return json.dumps({
            "events": [{"name": "Teddy jumps onto the quay", "description": "Teddy lands with a satchel.",
                        "scene": 1, "links": [{"relation": "takes_part_in", "entity": "Teddy Brake"}]}],
            "entities": [
                {"name": "Margo Vance", "type": "Person", "description": "Waits on the quay.",
                 "aliases": ["VANCE", "MARGO"], "scenes": [1, 2, 3]},
                {"name": "Teddy Brake", "type": "Person", "description": "Comes in on a trawler.",
                 "aliases": ["TEDDY"], "scenes": [1, 2]},
                {"name": "Harbour", "type": "Place", "description": "The quay.", "aliases": [], "scenes": [1]}],
            "relations": [
                {"source": "Margo Vance", "type": "located_at", "target": "Harbour", "verb": "waits",
                 "persistence": "momentary", "evidence": "MARGO VANCE, 40s, waits under a lamp."},
                {"source": "Margo Vance", "type": "speaks_to", "target": "Teddy Brake", "verb": "says",
                 "persistence": "momentary", "evidence": "You're late."}]})

    backend = ScriptedBackend(reply)
    settings = LLMSettings(model="scripted-model", cache_dir=tmp_path / "cache")
    state = run_build(HARBOUR, BuildOptions(llm=settings, llm_backend=backend, schema=schema, merge=False))
    graph = state.graph
    assert {(e.type, e.name) for e in graph.entities} == {
        ("Person", "Margo Vance"), ("Person", "Teddy Brake"), ("Place", "Harbour"),
        ("Happening", "Teddy jumps onto the quay")}
    assert {r.type for r in graph.relations} == {"located_at", "speaks_to", "takes_part_in"}
    assert all(r.evidence for r in graph.relations)
    assert state.llm is not None and state.llm.run.outcomes[0].status.value == "accepted"
    assert graph.provenance.graph_schema == "people-places v1"

"""LLM build benchmark: concurrency speed-up and cost per 1,000 script words, against a local server.

The local OpenAI-compatible server (`kgbuild.testing.FakeOpenAIServer`) answers with
`plausible_reply`: a deterministic stand-in for a model that reads the layout facts in the prompt (scene ids,
locations, speakers) and returns a valid, plausibly sized extraction or review. The prompt side
of the numbers is exactly what a real model would be sent; the completion side is the stand-in's.

Example:
    >>> result = bench_llm(Path("lizard-people.fountain"), tmp_dir=Path("/tmp/bench"))
    >>> print("\\n".join(format_llm_bench(result)))
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.extraction.llm.run import run_llm_extraction  # noqa: F401 - imported before timing: openai loads slowly
from kgbuild.llm.settings import LLMSettings
from kgbuild.pipeline import BuildOptions, run_build
from kgbuild.testing import FakeOpenAIServer, FaultPlan, Responder

_FACT = re.compile(r"^- \[scene (\d+)\] (.*)$", re.MULTILINE)
_MENTION = re.compile(r'^\d+\. "(.*)": ', re.MULTILINE)
_VERBS = ("talks with", "argues with", "confronts", "warns", "helps", "questions")


def _field(facts: str, name: str) -> str:
    match = re.search(rf"(?:^|; ){name}: ([^;]*)", facts)
    return match.group(1).strip() if match else ""


def _title(name: str) -> str:
    return " ".join(w.capitalize() for w in name.split())


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _scenes(prompt: str) -> list[tuple[int, str, list[str], list[str]]]:
    """(scene id, time, location parts, speakers) from the facts lines of an extraction prompt."""
    found = []
    for match in _FACT.finditer(prompt):
        facts = match.group(2)
        location = [p.strip() for p in _field(facts, "location").split(">") if p.strip()]
        speakers = [s.strip() for s in _field(facts, "speakers").split(",") if s.strip() and s.strip() != "none"]
        found.append((int(match.group(1)), _field(facts, "time"), location, speakers))
    return found


def plausible_extraction(prompt: str, *, revised: bool = False) -> dict[str, Any]:
    """An extraction a model could give for the scenes described in `prompt`'s facts.

    Per scene: one event performed by the first speaker (undergone by the second) at the
    heading's location; the speakers as Characters, the location parts as Locations (part_of
    their parent); who is where, and who speaks to whom.
    """
    events: list[dict[str, Any]] = []
    entities: dict[tuple[str, str], dict[str, Any]] = {}
    relations: list[dict[str, Any]] = []

    def entity(type_name: str, name: str, description: str, aliases: list[str], scene: int) -> None:
        item = entities.setdefault((type_name, name), {"name": name, "type": type_name, "description": description,
                                                       "aliases": aliases, "scenes": []})
        item["scenes"].append(scene)

    def relation(source: str, type_name: str, target: str, verb: str, persistence: str) -> None:
        relations.append({"source": source, "type": type_name, "target": target, "verb": verb,
                          "persistence": persistence, "evidence": ""})

    for scene, _, location, speakers in _scenes(prompt):
        place = _title(location[-1]) if location else ""
        for outer, inner in itertools.pairwise(location):
            relation(_title(inner), "part_of", _title(outer), "in", "stable")
        for part in location:
            entity("Location", _title(part), "a place in the story", [], scene)
        for cue in speakers:
            entity("Character", _title(cue), "a character who speaks", [cue], scene)
            if place:
                relation(_title(cue), "located_at", place, "is at", "momentary")
        if not speakers and not place:
            continue
        actor = _title(speakers[0]) if speakers else ""
        other = _title(speakers[1]) if len(speakers) > 1 else ""
        verb = _VERBS[_digest(f"{scene}{actor}{other}") % len(_VERBS)]
        name = (f"{actor} {verb} {other}" if other else f"{actor} acts" if actor else "Something happens")
        name += f" at {place}" if place else ""
        links = [{"relation": "performs", "entity": actor}] if actor else []
        links += [{"relation": "undergoes", "entity": other}] if other else []
        links += [{"relation": "occurs_at", "entity": place}] if place else []
        description = f"In scene {scene}, {name.lower()}." + (" Revised." if revised else "")
        events.append({"name": name, "description": description, "scene": scene, "links": links})
        if other:
            relation(actor, "speaks_to", other, "speaks to", "momentary")
    return {"events": events, "entities": list(entities.values()), "relations": relations}


def plausible_review(prompt: str, *, low_every: int = 0) -> dict[str, Any]:
    """A review: 8/10, or 5/10 with feedback for about one unrevised extraction in `low_every`."""
    low = low_every > 0 and "Revised." not in prompt and _digest(prompt) % low_every == 0
    score = 5 if low else 8
    feedback = ["Event names are too generic; say what actually happens."] if low else []
    return {"accuracy": score, "consistency": 8, "redundancy": 8, "score": score, "feedback": feedback}


def plausible_reply(messages: Sequence[Mapping[str, Any]], *, low_every: int = 0) -> str:
    """The stand-in model's answer to an extraction, review or entity-merging request (JSON text);
    it keeps every mention of a merging question apart.

    Args:
        messages: The chat messages (dicts with 'role' and 'content').
        low_every: Score about one in this many first-attempt extractions 5/10 (0: none).
    """
    system = str(messages[0].get("content", "")) if messages else ""
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    prompt = users[0] if users else ""
    if "prompt reflect" in system:
        return json.dumps(plausible_review(prompt, low_every=low_every))
    if "prompt adjudicate" in system:
        names = _MENTION.findall(prompt)
        return json.dumps({"merges": [], "unmerged": [{"name": n, "justification": "kept apart"} for n in names]})
    return json.dumps(plausible_extraction(prompt, revised=len(users) > 1))


def server_responder(low_every: int = 0):
    """A `FakeOpenAIServer` responder (request body -> content) built on `plausible_reply`."""
    return lambda body: plausible_reply(body.get("messages", []), low_every=low_every)


#: The invented fact of `invented_fact_responder`: an event of another story, in a scene no chunk has.
INVENTED_EVENT = "Vader destroys Alderaan"
#: The line the invented fact cites: it is in Lizard People's third scene, and shows nothing of the kind.
INVENTED_QUOTE = "Uh, never mind."


def invented_fact_responder(*, scene: int | None = 4242, score: int = 9) -> Responder:
    """A server that answers like a model inventing a fact (the faults of issue 31).

    Extraction requests get a valid answer (the stand-in model's, `plausible_extraction`) plus an
    invented event, 'Vader destroys Alderaan', performed by an invented character at an invented
    place, with a relation citing a real line of the passage that shows nothing of it
    (`INVENTED_QUOTE`); reviews score every answer `score`.

    Args:
        scene: The invented event's scene: 4242 (no chunk's), a scene of the chunk asked about
            (an answer the checks cannot fault: 3 holds the quote in Lizard People), or None for
            the chunk's first scene.
        score: The reviewer's score of every answer.
    """

    def answer(body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        system = str(messages[0].get("content", "")) if messages else ""
        prompt = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        if "prompt reflect" in system:
            return json.dumps({"accuracy": score, "consistency": score, "redundancy": score, "score": score,
                               "feedback": []})
        if "prompt adjudicate" in system:
            return json.dumps({"merges": [], "unmerged": []})
        extraction = plausible_extraction(prompt)
        scenes = _scenes(prompt)
        where = scenes[0][0] if scene is None and scenes else (scene if scene is not None else 1)
        speakers = [c["name"] for c in extraction["entities"] if c["type"] == "Character"]
        extraction["events"].append({
            "name": INVENTED_EVENT, "description": "Vader says never mind and destroys the planet Alderaan.",
            "scene": where, "links": [{"relation": "performs", "entity": "Darth Vader"},
                                      {"relation": "occurs_at", "entity": "Alderaan"}]})
        extraction["entities"] += [
            {"name": "Darth Vader", "type": "Character", "description": "a dark lord", "aliases": ["Vader"],
             "scenes": [where]},
            {"name": "Alderaan", "type": "Location", "description": "a planet", "aliases": [], "scenes": [where]}]
        if speakers:
            extraction["relations"].append({"source": "Darth Vader", "type": "hostility_with", "target": speakers[0],
                                            "verb": "threatens", "persistence": "momentary",
                                            "evidence": INVENTED_QUOTE})
        return json.dumps(extraction)

    return answer


class LLMRun(BaseModel):
    """One timed LLM build against the local server."""

    model_config = ConfigDict(extra="forbid")

    concurrency: int
    seconds: float
    requests: int
    max_in_flight: int


class LLMBenchResult(BaseModel):
    """Speed-up from concurrency and the cost of an LLM build per 1,000 script words."""

    model_config = ConfigDict(extra="forbid")

    script: str
    words: int
    chunks: int
    chunk_tokens: int
    latency: float = Field(description="Seconds the server waits before each answer.")
    runs: list[LLMRun]
    speedup: float = Field(description="Time with one request in flight / time with the most.")
    requests_per_kword: float
    prompt_tokens_per_kword: float
    completion_tokens_per_kword: float
    first_requests_per_kword: float = Field(description="Before reflection retries.")
    first_tokens_per_kword: float = Field(description="Prompt + completion, before reflection retries.")
    prompt_share: dict[str, float] = Field(description="Prompt tokens per 1,000 words, by task.")


def _timed_build(script: Path, server: FakeOpenAIServer, cache: Path, concurrency: int,
                 chunk_tokens: int | None):
    settings = LLMSettings(model="bench-model", base_url=server.base_url, concurrency=concurrency,
                           cache_dir=cache)
    before = server.count()
    start = time.perf_counter()
    state = run_build(script, BuildOptions(llm=settings, token_budget=chunk_tokens))
    seconds = time.perf_counter() - start
    return state, LLMRun(concurrency=concurrency, seconds=round(seconds, 3), requests=server.count() - before,
                         max_in_flight=server.max_in_flight)


def bench_llm(script: Path, *, latency: float = 1.0, concurrencies: Sequence[int] = (1, 32),
              chunk_tokens: int | None = None, tmp_dir: Path | None = None) -> LLMBenchResult:
    """Build `script` with an LLM against the local server at each concurrency, from a cold cache.

    Args:
        script: A screenplay (a feature-length one, about 25k words, for the issue's target).
        latency: Seconds the server adds to every request.
        concurrencies: Requests in flight for each timed build; the first is the baseline.
        chunk_tokens: Chunk budget; the LLM default when None.
        tmp_dir: Where the throwaway caches go (a temporary folder when None).

    Returns:
        Timings, requests, and usage per 1,000 words (from the last build).
    """
    with tempfile.TemporaryDirectory(dir=tmp_dir) as tmp:
        runs, state = [], None
        for n, concurrency in enumerate(concurrencies):
            plan = FaultPlan(latency=latency)
            with FakeOpenAIServer(responder=server_responder(), faults=plan) as server:
                state, run = _timed_build(script, server, Path(tmp) / f"cache-{n}", concurrency, chunk_tokens)
            runs.append(run)
    assert state is not None and state.llm is not None
    rates, usage = state.llm.rates, state.llm.usage
    per = 1000 / max(rates.words, 1)
    return LLMBenchResult(
        script=script.name, words=rates.words, chunks=len(state.chunks),
        chunk_tokens=state.options.chunk_budget(), latency=latency, runs=runs,
        speedup=round(runs[0].seconds / max(runs[-1].seconds, 1e-9), 2),
        requests_per_kword=round(rates.requests, 3), prompt_tokens_per_kword=round(rates.prompt_tokens, 1),
        completion_tokens_per_kword=round(rates.completion_tokens, 1),
        first_requests_per_kword=round(rates.first_requests, 3),
        first_tokens_per_kword=round(rates.first_tokens, 1),
        prompt_share={name: round(u.prompt_tokens * per, 1) for name, u in usage.tasks.items()})


def format_llm_bench(result: LLMBenchResult) -> list[str]:
    """The benchmark as lines of text."""
    lines = [(f"LLM build of {result.script} ({result.words} words, {result.chunks} chunks of <= "
             f"{result.chunk_tokens} tokens), server latency {result.latency:g} s per request:")]
    for run in result.runs:
        lines.append(f"  concurrency {run.concurrency:>3}: {run.seconds:7.2f} s, {run.requests} requests, "
                     f"at most {run.max_in_flight} in flight")
    lines.append(f"  speed-up {result.speedup:.1f}x (target > 10x)")
    lines.append(f"  per 1,000 words before retries: {result.first_requests_per_kword:.2f} requests "
                 f"(target < 3), {result.first_tokens_per_kword:.0f} tokens (target < 4,000)")
    lines.append(f"  per 1,000 words in all: {result.requests_per_kword:.2f} requests, "
                 f"{result.prompt_tokens_per_kword:.0f} prompt + {result.completion_tokens_per_kword:.0f} "
                 "completion tokens")
    lines.append("  prompt tokens per 1,000 words by task: "
                 + ", ".join(f"{k} {v:.0f}" for k, v in result.prompt_share.items()))
    return lines

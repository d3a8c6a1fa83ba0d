"""LLM-assisted normalization: the LLM settles the mentions the rules cannot normalize.

The rules (`kgbuild.canonicalize.normalize`) handle case, width, articles, titles, possessives
and versions. Some mentions stay questionable: relative references ("his boss"), descriptions
used as names ("the man in the grey coat who ..."), names whose rules cut an apposition or a
parenthetical, and names typed differently across mentions. With an LLM configured, those are
sent (in batches, per entity type) to be rewritten as a well-formed name and type, or declared
not normalizable (kept apart). The prompt is the versioned file
`kgbuild/llm/prompts/normalize.md`. A batch whose answer cannot be used (no valid reply after
the repairs, the server failing through every retry) keeps the rule-based form and is reported;
a refused request, the budget and batch-export mode are raised and stop the merge stage.
"""

from __future__ import annotations

import json
import logging

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.canonicalize.constraints import Candidate
from kgbuild.canonicalize.normalize import normalize_name
from kgbuild.llm.gather import gather_requests
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.types import ANSWER_ERRORS, ChatMessage, StructuredLLM
from kgbuild.schema import Schema, load_schema

logger = logging.getLogger(__name__)

#: Task label of normalization requests (usage is counted per task).
TASK_NORMALIZE = "merge_normalize"
#: Mentions per request.
BATCH = 40
#: The prompt file of normalization requests (its version is part of every request and cache key).
PROMPT = "normalize"
_SETTLED = {"", "pronoun", "empty"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NormalizedItem(_Model):
    """The LLM's normalization of one mention."""

    index: int = Field(description="The mention's number in the request.")
    name: str = Field(description="A well-formed name for the entity ('' if there is none).")
    type: str = Field(description="The entity type the mention really has.")
    keep_apart: bool = Field(default=False, description="Too vague or ill-defined to merge with anything.")
    reason: str = ""


class NormalizationReply(_Model):
    """The reply to one normalization request."""

    items: list[NormalizedItem] = Field(default_factory=list)


def questionable(cand: Candidate, types_seen: dict[str, set[str]]) -> bool:
    """True for mentions the rules could not settle with confidence."""
    norm = cand.norm
    raw = " ".join(norm.raw.split()).strip(" .;!?\"'")
    return norm.reason not in _SETTLED or norm.display != raw or len(types_seen.get(norm.key, ())) > 1


def _messages(batch: list[Candidate], types: list[str]) -> list[ChatMessage]:
    mentions = []
    for i, cand in enumerate(batch, 1):
        desc = cand.description.strip().replace("\n", " ")[:150] or "(no description)"
        mentions.append(f"{i}. {json.dumps(cand.name, ensure_ascii=False)} [{cand.type}]: {desc}")
    prompt = load_prompt(PROMPT)
    return [ChatMessage(role="system", content=prompt.render("system")),
            ChatMessage(role="user", content=prompt.render("user", types=", ".join(types),
                                                           mentions="\n".join(mentions)))]


def _apply(batch: list[Candidate], reply: NormalizationReply, types: list[str], person: str | None
           ) -> list[Candidate]:
    out = list(batch)
    for item in reply.items:
        if not 1 <= item.index <= len(batch):
            continue
        cand = batch[item.index - 1]
        etype = item.type if item.type in types else cand.type
        norm = normalize_name(item.name or cand.name, person=etype == person)
        if item.keep_apart or not item.name.strip():
            norm = norm.model_copy(update={"comparable": False,
                                           "reason": f"llm: {item.reason or 'not a stable entity'}"})
        out[item.index - 1] = cand.model_copy(update={"norm": norm, "type": etype})
    return out


async def _batch(batch: list[Candidate], types: list[str], person: str | None, client: StructuredLLM
                 ) -> tuple[list[Candidate], str | None]:
    try:
        reply = await client.structured(task=TASK_NORMALIZE, messages=_messages(batch, types),
                                        response_model=NormalizationReply)
    except ANSWER_ERRORS as e:
        logger.warning("LLM normalization of %d mentions failed, rules kept: %s", len(batch), e)
        return batch, str(e)
    return _apply(batch, reply, types, person), None


class NormalizationFailure(_Model):
    """A batch the LLM could not normalize (its mentions keep the rule-based form)."""

    type: str
    ids: list[str]
    names: list[str]
    error: str


async def normalize_with_llm(candidates: list[Candidate], client: StructuredLLM, types: list[str], *,
                             schema: Schema | None = None) -> tuple[list[Candidate], list[NormalizationFailure]]:
    """Send the questionable candidates to the LLM, in batches per entity type.

    Args:
        candidates: Rule-normalized candidates (any types).
        client: The structured LLM client.
        types: The entity types the LLM may assign.
        schema: The schema (names of its person type are personal names); the default
            STAGE-KG schema when None.

    Returns:
        The candidates in input order (questionable ones renormalized where the LLM answered)
        and the failed batches.

    Raises:
        LLMRequestError: the server refused the requests (key, model, URL).
        BudgetExceededError: the budget stopped the requests.
        BatchPendingError: batch-export mode and some batches are not cached yet (all recorded).
    """
    types_seen: dict[str, set[str]] = {}
    for cand in candidates:
        types_seen.setdefault(cand.norm.key, set()).add(cand.type)
    by_type: dict[str, list[int]] = {}
    for i, cand in enumerate(candidates):
        if questionable(cand, types_seen):
            by_type.setdefault(cand.type, []).append(i)
    batches = [rows[i:i + BATCH] for rows in by_type.values() for i in range(0, len(rows), BATCH)]
    person = (schema or load_schema()).type_for_role("person")
    results = await gather_requests(_batch([candidates[i] for i in rows], types, person, client) for rows in batches)
    out = list(candidates)
    failures = []
    for rows, (renormalized, error) in zip(batches, results, strict=True):
        for i, cand in zip(rows, renormalized, strict=False):
            out[i] = cand
        if error:
            failures.append(NormalizationFailure(type=candidates[rows[0]].type, ids=[candidates[i].id for i in rows],
                                                 names=[candidates[i].name for i in rows], error=error))
    return out, failures

"""A short persona summary of a dossier, written by an LLM from the dossier's items only.

The request goes through the client every LLM caller uses (`kgbuild.llm.factory.open_llm_client`):
same response cache (a rerun costs nothing), budget, retries and batch export (in batch-export
mode the requests are written and `BatchPendingError` says how to continue). The prompt is the
versioned file `kgbuild/llm/prompts/persona.md`. A summary is kept only when every scene it cites
is a scene of the dossier's items; otherwise the dossier gets none and the reason is returned.

Example:
    >>> run = write_personas([dossier], LLMSettings(model="gpt-4o-mini"))  # doctest: +SKIP
    >>> run.dossiers[0].persona  # doctest: +SKIP
    'Marge is a pregnant small-town police chief ... (scene 8)'
"""

from __future__ import annotations

import asyncio
import re

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.llm.client import LLMClient
from kgbuild.llm.factory import open_llm_client, raise_pending
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import (
    BatchPendingError,
    BudgetExceededError,
    ChatBackend,
    ChatMessage,
    LLMError,
    LLMRequestError,
)
from kgbuild.story.dossier import Dossier, Item

PROMPT = "persona"
TASK = "persona"
#: How many lines of a dossier go into the request (the most characteristic are first in a
#: dossier made with `lines=N`; otherwise the first ones).
MAX_LINES = 40
MAX_ITEMS = 30
_CITED = re.compile(r"\bscenes?\s+((?:\d+(?:\s*(?:,|and|&|-|–)\s*)?)+)", re.IGNORECASE)


class PersonaAnswer(BaseModel):
    """The model's reply."""

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(description="80-150 words, every claim citing its scene as (scene N).")
    scenes: list[int] = Field(description="Every scene the summary cites.")


class PersonaRun(BaseModel):
    """The dossiers with their summaries, and the ones left without one."""

    model_config = ConfigDict(extra="forbid")

    dossiers: list[Dossier]
    failures: dict[str, str] = Field(default_factory=dict, description="Character id -> why no summary.")


def _item_line(section: str, i: Item) -> str:
    quote = f' — "{" ".join(i.evidence[0].quote.split())[:120]}"' if i.evidence else ""
    return f"- {section}: {i.kind} {i.other} ({i.note}) scenes {i.scenes}{quote}"


def dossier_items(d: Dossier) -> list[str]:
    """The dossier as the request lists it: one line per item, each with its scenes."""
    lines = [f'- line (scene {x.scene}, {x.heard}): "{" ".join(x.text.split())}"' for x in d.lines[:MAX_LINES]]
    for section, items in (("action", d.actions), ("relation", d.relations), ("place", d.places),
                           ("object", d.objects), ("life stage", d.life_stages)):
        lines += [_item_line(section, i) for i in items[:MAX_ITEMS]]
    return lines


def dossier_scenes(d: Dossier) -> set[int]:
    """Every scene an item of the dossier carries."""
    scenes = {x.scene for x in d.lines}
    for items in (d.actions, d.relations, d.places, d.times, d.objects, d.life_stages):
        for i in items:
            scenes |= set(i.scenes) | {e.scene for e in i.evidence}
    return scenes


def cited_scenes(summary: str) -> set[int]:
    """The scene numbers a summary cites ('(scene 4)', '(scenes 3, 7 and 9)')."""
    return {int(n) for m in _CITED.finditer(summary) for n in re.findall(r"\d+", m.group(1))}


def persona_messages(d: Dossier) -> list[ChatMessage]:
    """The chat messages asking for one dossier's summary."""
    prompt = load_prompt(PROMPT)
    return [ChatMessage(role="system", content=prompt.render("system")),
            ChatMessage(role="user", content=prompt.render("user", name=d.name, aliases=", ".join(d.aliases) or "-",
                                                           items="\n".join(dossier_items(d))))]


async def _ask_all(client: LLMClient, dossiers: list[Dossier]) -> list[PersonaAnswer | BaseException]:
    async with client:
        return await asyncio.gather(*(client.structured(task=TASK, messages=persona_messages(d),
                                                       response_model=PersonaAnswer) for d in dossiers),
                                    return_exceptions=True)


def write_personas(dossiers: list[Dossier], settings: LLMSettings, *,
                   backend: ChatBackend | None = None) -> PersonaRun:
    """Ask the LLM for each dossier's persona summary.

    Args:
        dossiers: The dossiers (not changed).
        settings: Model, endpoint, cache, budget, batch export.
        backend: Send requests here instead of the endpoint (a scripted backend in tests).

    Returns:
        New dossiers with `persona` set where a grounded summary came back, and the reasons of
        the others.

    Raises:
        BatchPendingError: batch-export mode wrote the requests not answered yet.
        LLMRequestError: the server refused the requests (key, model, URL).
        BudgetExceededError: the budget stopped the run (answers so far are cached).
    """
    with open_llm_client(settings, backend=backend) as client:
        answers = asyncio.run(_ask_all(client, dossiers))
        done = sum(isinstance(a, PersonaAnswer) for a in answers)
        raise_pending(client, settings, f"{done} of {len(dossiers)} persona summaries are done")
    out: list[Dossier] = []
    failures: dict[str, str] = {}
    for d, answer in zip(dossiers, answers, strict=True):
        if isinstance(answer, (LLMRequestError, BatchPendingError, BudgetExceededError)):
            raise answer
        if isinstance(answer, LLMError):
            failures[d.id] = str(answer)
        elif isinstance(answer, BaseException):
            raise answer
        else:
            stray = (cited_scenes(answer.summary) | set(answer.scenes)) - dossier_scenes(d)
            if stray:
                failures[d.id] = f"the summary cites scenes no dossier item carries: {sorted(stray)}"
            elif not cited_scenes(answer.summary):
                failures[d.id] = "the summary cites no scene"
            else:
                d = d.model_copy(update={"persona": answer.summary.strip(), "persona_model": settings.model})
        out.append(d)
    return PersonaRun(dossiers=out, failures=failures)

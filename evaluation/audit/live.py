"""Judging live with the project's LLM client: the same cache, retries and budget as builds.

The client comes from `kgbuild.llm.factory.open_llm_client`, as extraction's and merging's do.

Every fact's request is `judge_request` (the Batch API export sends the same one), so a reply
the response cache holds is reused and costs nothing. A fact whose judging fails (no valid
reply, server down, budget reached) is recorded with its reason and stays unjudged; rerunning
judges only those, since every valid reply is cached.

Example:
    >>> run = judge_live(sections, LLMSettings(model="gpt-4o", max_requests=300))
    >>> len(run.verdicts), len(run.failures)
    (199, 1)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.evaluation.audit.requests import JUDGE_TASK, judge_messages
from kgbuild.evaluation.audit.types import JudgeAnswer, Verdict
from kgbuild.llm.cache import default_cache_path
from kgbuild.llm.client import LLMClient
from kgbuild.llm.costs import LLMUsage
from kgbuild.llm.factory import open_llm_client
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ChatBackend, LLMError, LLMRequestError

logger = logging.getLogger(__name__)


class JudgeFailure(BaseModel):
    """A fact the LLM judge gave no valid verdict for."""

    model_config = ConfigDict(extra="forbid")

    fact_id: str
    message: str


class JudgeRun(BaseModel):
    """What a live judging run produced."""

    model_config = ConfigDict(extra="forbid")

    verdicts: list[Verdict]
    failures: list[JudgeFailure] = Field(default_factory=list)
    usage: LLMUsage
    cache_path: str


async def _judge(client: LLMClient, fact_id: str, section: str) -> Verdict:
    answer = await client.structured(task=JUDGE_TASK, messages=judge_messages(section),
                                     response_model=JudgeAnswer)
    return Verdict(fact_id=fact_id, verdict=answer.verdict, reason=answer.reason)


async def _judge_all(client: LLMClient, sections: Mapping[str, str]) -> list[Verdict | BaseException]:
    async with client:
        return await asyncio.gather(*(_judge(client, i, s) for i, s in sections.items()),
                                    return_exceptions=True)


def judge_live(sections: Mapping[str, str], settings: LLMSettings, *,
               backend: ChatBackend | None = None) -> JudgeRun:
    """Ask the configured LLM for a verdict on every fact section.

    Args:
        sections: The judge's user message per fact id (`fact_section(..., verdict_lines=False)`).
        settings: Model, endpoint, concurrency, budget and cache folder (batch_export is ignored:
            export with requests.jsonl instead).
        backend: Send requests here instead of the OpenAI-compatible endpoint (e.g. a
            `ScriptedBackend` in tests).

    Returns:
        The verdicts, one failure per fact without one, and the usage.

    Raises:
        LLMRequestError: the server refused the requests (key, model, URL): nothing can be judged.
    """
    settings = settings.model_copy(update={"batch_export": None})
    cache_path = default_cache_path(settings.cache_dir)
    with open_llm_client(settings, backend=backend) as client:
        outcomes = asyncio.run(_judge_all(client, sections))
    verdicts: list[Verdict] = []
    failures: list[JudgeFailure] = []
    for fact_id, outcome in zip(sections, outcomes, strict=True):
        if isinstance(outcome, Verdict):
            verdicts.append(outcome)
        elif isinstance(outcome, LLMRequestError):
            raise outcome
        elif isinstance(outcome, LLMError):
            failures.append(JudgeFailure(fact_id=fact_id, message=str(outcome)))
        else:
            raise outcome
    for failure in failures:
        logger.warning("%s: no verdict: %s", failure.fact_id, failure.message)
    return JudgeRun(verdicts=verdicts, failures=failures, usage=client.usage(), cache_path=str(cache_path))

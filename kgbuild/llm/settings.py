"""The settings of an LLM build: which model, where, how fast, how much, how strict.

The API key is never a setting: it is read from the environment (`OPENAI_API_KEY`) by the
backend, so it cannot end up in a config file, a report or a graph's provenance.

Example:
    >>> settings = LLMSettings(model="gpt-4o-mini", concurrency=16, max_cost=2.0)
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

#: Chunk size (estimated tokens) in LLM mode, a measured choice (docs/results/llm-path.md,
#: "The LLM path, measured"): of 600, 1,200 and 2,500, the cheapest within .02 F1 of the best at >= 90% of
#: audited facts supported. With prompt v4, 2,500 meets that in English (96.3% supported, F1
#: within .001 and .015 of the best, the fewest tokens); in Chinese it has the best entity F1
#: and is .022 below 1,200's relation F1, where 1,200 is .025 below in entity F1. (With prompt
#: v3 it was 1,200.)
DEFAULT_LLM_CHUNK_TOKENS = 2500
#: Reflection scores (0-10) at or above this are accepted (STAGE app. C.3 uses 7).
DEFAULT_THRESHOLD = 7
#: Re-extractions of a chunk after the first attempt scored below the threshold.
DEFAULT_MAX_RETRIES = 2


class LLMSettings(BaseModel):
    """How `kgbuild build` uses an LLM (any OpenAI-compatible endpoint)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(description="Model name as the server knows it, e.g. 'gpt-4o-mini'.")
    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible base URL ending in /v1; None means $OPENAI_BASE_URL, "
        "else api.openai.com. The API key comes only from $OPENAI_API_KEY.")
    concurrency: int = Field(default=8, ge=1, description="Requests in flight at once.")
    max_cost: float | None = Field(
        default=None, ge=0,
        description="Stop cleanly before the estimated cost (USD) would exceed this; None: no limit.")
    max_requests: int | None = Field(
        default=None, ge=0, description="Stop cleanly before sending more requests than this; None: no limit.")
    threshold: int = Field(
        default=DEFAULT_THRESHOLD, ge=0, le=10,
        description="Reflection score (0-10) a chunk's extraction needs to be accepted.")
    max_retries: int = Field(
        default=DEFAULT_MAX_RETRIES, ge=0,
        description="Re-extractions with the reflection's feedback after a below-threshold attempt.")
    cache_dir: Path | None = Field(
        default=None,
        description="Folder of the response cache; None means $KGBUILD_CACHE_DIR or ~/.cache/kgbuild.")
    batch_export: Path | None = Field(
        default=None,
        description="Batch mode: write the next round of uncached requests to this OpenAI Batch "
        "API JSONL file and stop, instead of sending them.")
    prices: Path | None = Field(
        default=None,
        description="A price file (JSON or TOML, see `kgbuild.llm.costs.load_prices`) over the built-in "
        "list prices, for cost estimates and --max-cost.")
    rpm: float | None = Field(
        default=None, gt=0,
        description="Requests per minute at most (for a corpus: all workers together); None: no limit.")
    tpm: float | None = Field(
        default=None, gt=0,
        description="Tokens (prompt + expected completion) per minute at most (for a corpus: all workers "
        "together); None: no limit.")
    timeout: float = Field(
        default=120.0, gt=0,
        description="Seconds one request may wait for its answer (--llm-timeout): then it is retried, unless "
        "the server has never answered, which stops the run.")
    deadline: float | None = Field(
        default=None, gt=0,
        description="Seconds all the LLM work of a run may take, extraction and merging together "
        "(--llm-deadline); then it stops (a build with exit status 4, keeping an existing build). None: no "
        "deadline.")
    admit_below_threshold: bool = Field(
        default=False,
        description="Let into the graph the facts of chunks whose extraction stayed below the review "
        "threshold after the retries (--admit-below-threshold); by default they stay in review.jsonl only.")
    request_retries: int = Field(
        default=6, ge=0,
        description="Retries of one request after 429, 5xx, timeouts or dropped connections (with backoff).")

"""Token prices and the per-task usage report of an LLM run.

Prices are USD per 1M tokens (list prices of the model's provider; batch APIs charge half).
Override or extend them with `PriceTable.with_overrides`, or from a file with `load_prices`
(`--prices FILE`, JSON or TOML); a model the table does not know is reported with
`priced=False` and a cost of 0, so a cost budget cannot protect it.

A price file maps model names to prices, e.g. in TOML::

    ["gpt-4o-mini"]
    input_per_mtok = 0.15
    output_per_mtok = 0.60
    batch_discount = 0.5      # optional: the share of the live price a Batch API charges

or the same in JSON: ``{"gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}``.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgbuild.errors import InputError
from kgbuild.llm.types import Usage


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: Batch APIs (OpenAI and others) charge this fraction of the live price.
BATCH_DISCOUNT = 0.5


class ModelPrice(_Model):
    """What one model costs."""

    input_per_mtok: float = Field(ge=0, description="USD per 1M prompt tokens.")
    output_per_mtok: float = Field(ge=0, description="USD per 1M completion tokens.")
    batch_discount: float = Field(default=BATCH_DISCOUNT, ge=0, le=1,
                                  description="The share of the live price a Batch API charges (0.5: half).")

    def cost(self, usage: Usage, *, batch: bool = False) -> float:
        """USD for `usage`; at `batch_discount` of the price when it went through a Batch API."""
        usd = (usage.prompt_tokens * self.input_per_mtok + usage.completion_tokens * self.output_per_mtok) / 1e6
        return usd * self.batch_discount if batch else usd

#: OpenAI list prices (USD per 1M tokens, standard tier) for a few common models.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "gpt-4o": ModelPrice(input_per_mtok=2.50, output_per_mtok=10.00),
    "gpt-4o-mini": ModelPrice(input_per_mtok=0.15, output_per_mtok=0.60),
    "gpt-4.1": ModelPrice(input_per_mtok=2.00, output_per_mtok=8.00),
    "gpt-4.1-mini": ModelPrice(input_per_mtok=0.40, output_per_mtok=1.60),
    "gpt-4.1-nano": ModelPrice(input_per_mtok=0.10, output_per_mtok=0.40),
    "o4-mini": ModelPrice(input_per_mtok=1.10, output_per_mtok=4.40),
    "gpt-5": ModelPrice(input_per_mtok=1.25, output_per_mtok=10.00),
    "gpt-5-mini": ModelPrice(input_per_mtok=0.25, output_per_mtok=2.00),
    "gpt-5-nano": ModelPrice(input_per_mtok=0.05, output_per_mtok=0.40),
}


class PriceTable(_Model):
    """Prices by model name; a dated name ('gpt-4o-2024-08-06') uses its longest known prefix."""

    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))

    def with_overrides(self, overrides: dict[str, ModelPrice]) -> PriceTable:
        """A new table with `overrides` added or replacing entries."""
        return PriceTable(prices={**self.prices, **overrides})

    def price(self, model: str) -> ModelPrice | None:
        """The price of `model`, or None when the table does not know it."""
        if model in self.prices:
            return self.prices[model]
        known = [name for name in self.prices if model.startswith(name + "-")]
        return self.prices[max(known, key=len)] if known else None

    def cost(self, model: str, usage: Usage, *, batch: bool = False) -> float:
        """USD for `usage` on `model` (0.0 for an unknown model)."""
        price = self.price(model)
        return price.cost(usage, batch=batch) if price is not None else 0.0


def no_price_message(model: str) -> str:
    """What to say when the price table does not know `model`: how to give its price."""
    return (f"no price known for model {model!r}: give one with --prices FILE (JSON or TOML), e.g. "
            f'{{"{model}": {{"input_per_mtok": 0.5, "output_per_mtok": 1.5}}}} (USD per 1M tokens)')


def load_prices(path: str | os.PathLike[str], base: PriceTable | None = None) -> PriceTable:
    """The price table with the prices of a JSON or TOML file over `base` (the list prices).

    Args:
        path: A `.toml` file (read as TOML), or any other file (read as JSON): model name ->
            `{input_per_mtok, output_per_mtok[, batch_discount]}`.
        base: The table the file adds to or overrides; the built-in list prices when None.

    Returns:
        A new table.

    Raises:
        InputError: the file cannot be read, is not JSON/TOML, or a price is not valid.

    Example:
        >>> load_prices("prices.toml").price("my-local-model")  # doctest: +SKIP
        ModelPrice(input_per_mtok=0.0, output_per_mtok=0.0, batch_discount=0.5)
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read the price file: {e}", path=str(file)) from e
    toml = file.suffix.lower() == ".toml"
    try:
        data = tomllib.loads(text) if toml else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"not valid {'TOML' if toml else 'JSON'} ({e}); a price file maps model names to "
                         '{"input_per_mtok": ..., "output_per_mtok": ...}', path=str(file)) from e
    if not isinstance(data, dict) or not data:
        raise InputError('a price file maps model names to {"input_per_mtok": ..., "output_per_mtok": ...}',
                         path=str(file))
    prices: dict[str, ModelPrice] = {}
    for model, given in data.items():
        try:
            prices[model] = ModelPrice.model_validate(given)
        except ValidationError as e:
            problem = e.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "the price"
            raise InputError(f"model {model!r}: {where}: {problem['msg']} (give input_per_mtok and "
                             "output_per_mtok in USD per 1M tokens, optionally batch_discount)",
                             path=str(file)) from e
    return (base or PriceTable()).with_overrides(prices)


class TaskUsage(_Model):
    """What the LLM calls of one task (the `task` label of `structured`: 'extract', 'merge'...) used."""

    calls: int = Field(default=0, description="`structured` calls made for the task.")
    cache_hits: int = Field(default=0, description="Calls answered from the response cache.")
    requests: int = Field(default=0, description="HTTP requests sent (every attempt, retries included).")
    retries: int = Field(default=0, description="Requests repeated after a transient failure.")
    repairs: int = Field(default=0, description="Requests asking the model to fix an invalid reply.")
    failures: int = Field(default=0, description="Calls that ended in an error.")
    pending: int = Field(default=0, description="Calls recorded for batch export instead of sent.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = Field(default=0.0, description="Estimated cost of the requests sent.")

    def plus(self, other: TaskUsage) -> TaskUsage:
        """The sum of two usages."""
        return TaskUsage(**{name: getattr(self, name) + getattr(other, name) for name in TaskUsage.model_fields})


class LLMUsage(_Model):
    """Usage of an LLM run by task, for the build report and the graph's provenance."""

    backend: str
    model: str
    priced: bool = Field(description="False when the price table does not know the model (cost is 0).")
    tasks: dict[str, TaskUsage] = Field(default_factory=dict, description="Usage by task label.")

    @property
    def total(self) -> TaskUsage:
        """All tasks together."""
        total = TaskUsage()
        for usage in self.tasks.values():
            total = total.plus(usage)
        return total


def format_usage(usage: LLMUsage) -> list[str]:
    """Lines of text describing `usage`, one per task and a total."""
    lines = [f"LLM {usage.model} via {usage.backend}"
             + ("" if usage.priced else " (price unknown: costs shown as 0; give one with --prices FILE)")]
    rows = [*usage.tasks.items(), ("total", usage.total)]
    for name, u in rows:
        lines.append(
            f"  {name:<12} calls {u.calls:>5}  cached {u.cache_hits:>5}  requests {u.requests:>5}  "
            f"retries {u.retries:>4}  repairs {u.repairs:>4}  failed {u.failures:>4}  "
            f"tokens {u.prompt_tokens:>8} in / {u.completion_tokens:>7} out  ${u.cost_usd:.4f}")
    return lines

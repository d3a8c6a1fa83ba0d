"""What every movie of a corpus is built with, and the key that says a movie's output is up to date.

`CorpusSpec` is the picklable part of `kgbuild.pipeline.BuildOptions` that a corpus shares (a
worker adds its own embedder, and each movie its id, title and language). `input_key` hashes the
script's bytes, the movie's id, title and language, the corrections file beside the script, the
options that change a graph and the kgbuild version: a movie folder whose `build_key.json` holds
the same key is complete for the same input and options, and a rerun skips it.

Example:
    >>> spec = CorpusSpec(merge=False)
    >>> key = input_key(spec, script_sha256="ab12...", movie="fargo")
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgbuild import __version__
from kgbuild.embeddings import Embedder
from kgbuild.llm.settings import LLMSettings
from kgbuild.pipeline import BuildOptions
from kgbuild.readers import DEFAULT_MAX_BYTES
from kgbuild.schema import Schema


class CorpusSpec(BaseModel):
    """The build options every movie of a corpus shares (see `kgbuild.pipeline.BuildOptions`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    token_budget: int | None = Field(default=None, description="Tokens per chunk; None: the build's default.")
    strict_repairs: bool = Field(default=True, description="Drop relations the schema repair cannot fix.")
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, description="Refuse larger input files.")
    merge: bool = Field(default=True, description="Run the entity-merging stage.")
    llm: LLMSettings | None = Field(default=None, description="LLM settings; None builds offline.")
    graph_schema: Schema | None = Field(default=None, description="The schema; None: STAGE-KG.")
    cache_dir: Path | None = Field(default=None, description="Embedding cache folder; None: the default.")

    def build_options(self, *, movie: str, embedder: Embedder | None, llm: LLMSettings | None = None,
                      title: str | None = None, language: str | None = None) -> BuildOptions:
        """The `BuildOptions` of one movie.

        Args:
            movie: Its id.
            embedder: The worker's embedder.
            llm: LLM settings replacing the spec's (a worker's batch file); None: the spec's.
            title: The title to give the graph, if the manifest has one.
            language: The language to build in, if the manifest has one.
        """
        return BuildOptions(token_budget=self.token_budget, strict_repairs=self.strict_repairs,
                            max_bytes=self.max_bytes, embedder=embedder, llm=llm or self.llm, merge=self.merge,
                            movie=movie, title=title, language=language, schema=self.graph_schema)

    def fingerprint(self) -> dict[str, object]:
        """The options that change a graph (not where caches are, how fast, or the budget)."""
        llm = self.llm
        return {
            "token_budget": self.token_budget, "strict_repairs": self.strict_repairs, "merge": self.merge,
            "llm": None if llm is None else {"model": llm.model, "threshold": llm.threshold,
                                             "max_retries": llm.max_retries,
                                             **({"admit_below_threshold": True} if llm.admit_below_threshold else {})},
            "schema": None if self.graph_schema is None else self.graph_schema.model_dump(mode="json"),
        }


def file_sha256(path: Path) -> str:
    """sha256 (hex) of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def input_key(spec: CorpusSpec, *, script_sha256: str, movie: str, title: str | None = None,
              language: str | None = None, corrections_sha256: str | None = None) -> str:
    """The content hash of one movie's input and options (sha256 hex).

    Args:
        spec: The corpus's options.
        script_sha256: sha256 of the script file.
        movie: The movie's id.
        title: The manifest's title, if any.
        language: The manifest's language, if any.
        corrections_sha256: sha256 of the corrections file the build applies, if any.
    """
    payload = {"kgbuild": __version__, "script": script_sha256, "movie": movie, "title": title,
               "language": language, "corrections": corrections_sha256, "options": spec.fingerprint()}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

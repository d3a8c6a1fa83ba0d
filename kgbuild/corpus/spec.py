"""What every movie of a corpus is built with, and the key that says a movie's output is up to date.

A corpus shares one `kgbuild.pipeline.BuildOptions` (the options of a single build; its movie,
title, language, corrections, scenes and embedder left unset): `movie_options` gives one
movie's, with its id, title and language and the worker's embedder. `input_key` hashes the
script's bytes, the movie's id, title and language, the corrections file beside the script, the
options that change a graph (`fingerprint`) and the kgbuild version: a movie folder whose
`build_key.json` holds the same key is complete for the same input and options, and a rerun
skips it.

Example:
    >>> options = BuildOptions(merge=False)
    >>> key = input_key(options, script_sha256="ab12...", movie="fargo")
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from kgbuild.embeddings import Embedder
from kgbuild.llm.settings import LLMSettings
from kgbuild.pipeline import BuildOptions
from kgbuild.version import __version__

#: The options that name one script, which a corpus's shared options leave unset.
PER_SCRIPT = ("movie", "title", "language", "corrections", "scenes")


def movie_options(options: BuildOptions, *, movie: str, embedder: Embedder | None, llm: LLMSettings | None = None,
                  title: str | None = None, language: str | None = None) -> BuildOptions:
    """The `BuildOptions` of one movie of a corpus.

    Args:
        options: The corpus's shared options.
        movie: The movie's id.
        embedder: The worker's embedder (None: the default one over `options.cache_dir`).
        llm: LLM settings replacing the corpus's (a worker's batch file); None: the corpus's.
        title: The title to give the graph, if the manifest has one.
        language: The language to build in, if the manifest has one.
    """
    return replace(options, movie=movie, embedder=embedder, llm=llm or options.llm, title=title, language=language)


def fingerprint(options: BuildOptions) -> dict[str, object]:
    """The options that change a graph (not where caches are, how fast, or the budget)."""
    llm = options.llm
    return {
        "token_budget": options.token_budget, "strict_repairs": options.strict_repairs, "merge": options.merge,
        "llm": None if llm is None else {"model": llm.model, "threshold": llm.threshold,
                                         "max_retries": llm.max_retries,
                                         **({"admit_below_threshold": True} if llm.admit_below_threshold else {})},
        "schema": None if options.schema is None else options.schema.model_dump(mode="json"),
    }


def file_sha256(path: Path) -> str:
    """sha256 (hex) of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def input_key(options: BuildOptions, *, script_sha256: str, movie: str, title: str | None = None,
              language: str | None = None, corrections_sha256: str | None = None) -> str:
    """The content hash of one movie's input and options (sha256 hex).

    Args:
        options: The corpus's shared options.
        script_sha256: sha256 of the script file.
        movie: The movie's id.
        title: The manifest's title, if any.
        language: The manifest's language, if any.
        corrections_sha256: sha256 of the corrections file the build applies, if any.
    """
    payload = {"kgbuild": __version__, "script": script_sha256, "movie": movie, "title": title,
               "language": language, "corrections": corrections_sha256, "options": fingerprint(options)}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

"""`kgbuild build --dry-run`: what a build would read, cut and ask for, without doing it.

It parses the script and cuts the chunks as the build would (`--scenes`, `--budget` and the
LLM chunk size included), and with an LLM builds the exact first requests of every chunk and
estimates the rest (`kgbuild.extraction.llm.estimate`). Nothing is written (the response cache is opened
read-only, no output folder is made) and nothing is sent.
"""

from __future__ import annotations

import os
from pathlib import Path

from kgbuild.pipeline import BuildOptions, prepare_build
from kgbuild.scenes import select_screenplay


def dry_run_lines(script: str | os.PathLike[str], options: BuildOptions) -> list[str]:
    """Parse and chunk `script` as a build with `options` would, and describe the cost of the rest.

    Args:
        script: The screenplay file.
        options: The build's options (`options.llm` None: an offline build).

    Returns:
        Lines of text: the scenes and chunks, then the LLM requests, tokens and cost (or that an
        offline build has none).

    Raises:
        InputError: the script, the --scenes ranges or the --prices file cannot be used.
        CacheError: the response cache exists but cannot be read.
    """
    state = prepare_build(script, options)
    screenplay, chunks = state.screenplay, state.chunks
    built = select_screenplay(screenplay, options.scenes).scenes
    scope = (f"scenes {options.scenes.describe()} ({len(built)} of {len(screenplay.scenes)})"
             if options.scenes is not None else f"all {len(screenplay.scenes)} scenes")
    sizes = sorted(c.token_estimate for c in chunks)
    lines = [f"Dry run of {Path(script)}: nothing is written, nothing is sent.",
             f"{screenplay.title} ({screenplay.source.format.value}, {screenplay.language}): {scope} -> "
             f"{len(chunks)} chunks of <= {options.chunk_budget()} tokens"
             + (f" (median {sizes[len(sizes) // 2]}, max {sizes[-1]}, {sum(sizes):,} in all)" if sizes else "")]
    if options.llm is None:
        lines.append("Offline build (rules and the bundled MiniLM model): no LLM requests, no LLM cost.")
        return lines
    from kgbuild.extraction.llm.estimate import estimate_llm_build, format_estimate

    return lines + format_estimate(estimate_llm_build(screenplay, chunks, options.llm, schema=options.graph_schema()))

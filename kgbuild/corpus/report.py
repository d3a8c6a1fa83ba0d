"""report.md of a corpus output: what was built, skipped and failed, how long it took, what it cost."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kgbuild.corpus.status import MovieStatus
from kgbuild.llm.costs import TaskUsage
from kgbuild.mdescape import md_text


def corpus_report(statuses: Sequence[MovieStatus], *, executor: str, wall_seconds: float) -> str:
    """The Markdown report of a corpus build.

    Args:
        statuses: One per movie, in input order.
        executor: How the movies were built (e.g. 'local processes, 2 workers').
        wall_seconds: Wall time of the whole corpus build.
    """
    by_status = Counter(s.status for s in statuses)
    built = [s for s in statuses if s.status == "done"]
    lines = ["# Corpus build", "",
             f"{len(statuses)} movies: " + ", ".join(f"{by_status[k]} {k}" for k in ("done", "skipped", "failed",
                                                                                      "pending") if by_status[k])
             + f". {executor}; wall time {wall_seconds:.1f} s"
             + (f", {sum(s.seconds for s in built):.1f} s of builds in the workers." if built else "."), ""]
    peaks = {s.worker: s.peak_rss_mb for s in built if s.worker}
    if peaks:
        lines += [f"Peak memory per worker: {', '.join(f'{w} {m:.0f} MB' for w, m in sorted(peaks.items()))}.", ""]
    llm = [s.llm for s in statuses if s.llm is not None and s.status == "done"]
    if llm:
        total = TaskUsage()
        for usage in llm:
            total = total.plus(usage)
        lines += [f"LLM (extraction, movies built now): {total.requests} requests, {total.cache_hits} cache hits, "
                  f"{total.prompt_tokens:,} prompt + {total.completion_tokens:,} completion tokens, "
                  f"${total.cost_usd:.4f}.", ""]
    lines += ["| movie | status | seconds | scenes | entities | relations | script / error |",
              "|---|---|---|---|---|---|---|"]
    for s in statuses:
        detail = s.error if s.error else s.script
        lines.append(f"| {md_text(s.movie)} | {s.status} | {s.seconds:.1f} | {s.counts.get('scenes', '')} | "
                     f"{s.counts.get('entities', '')} | {s.counts.get('relations', '')} | {md_text(detail or '')} |")
    failed = [s for s in statuses if s.status == "failed"]
    if failed:
        lines += ["", f"{len(failed)} movies failed; fix their scripts (or the cause named) and rerun the same "
                  "command: complete movies are skipped."]
    return "\n".join(lines) + "\n"

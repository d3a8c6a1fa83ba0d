"""Benchmark of `kgbuild ask` offline: the latency of one question with the store and the models
loaded, and apart from it what a new process costs.

Two STAGE development movies (Birthday Girl, English; 我不是药神, Chinese) are built offline into a
temporary folder; one `AskSession` per build then answers every development question of the
movie (pointer removed, as `kgbuild qa-eval` asks them) with the ranked evidence and no LLM. The
first question of a session opens the index and loads MiniLM: that is reported as the opening,
the rest as the per-question latency (median and 90th percentile). A process start-up is one
whole `python -m kgbuild ask BUILD QUESTION` in a new process, timed from outside.

Example:
    >>> result = bench_ask(Path("../shared/data"))
    >>> print("\\n".join(format_ask_bench(result)))
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

#: The movies measured: (language folder, movie id) under ../shared/data/stage.
MOVIES = (("English", "en049957b3c0b54085baddbec23e00506c"), ("Chinese", "ch48a3d3de9f887c24c526ff5db17160702612afcb"))
#: The issue's target for one question with everything loaded, in seconds.
TARGET_SECONDS = 1.0


class AskRun(BaseModel):
    """One movie's questions asked in one session."""

    model_config = ConfigDict(extra="forbid")

    movie: str
    language: str
    questions: int
    open_seconds: float = Field(description="The first question: index opened, MiniLM loaded.")
    median_seconds: float = Field(description="Median latency of the other questions.")
    p90_seconds: float
    process_seconds: float = Field(description="One question in a new process, start-up included.")


class AskBench(BaseModel):
    """The ask benchmark's result."""

    model_config = ConfigDict(extra="forbid")

    runs: list[AskRun]
    target_seconds: float = TARGET_SECONDS


def _run_movie(data: Path, language: str, movie: str, work: Path) -> AskRun:
    from kgbuild.ask import AskSession
    from kgbuild.evaluation.qa_eval import read_questions, strip_pointer

    folder = data / "stage" / language / movie
    build = work / movie
    subprocess.run([sys.executable, "-m", "kgbuild", "build", str(folder / "script.json"), "-o", str(build), "-q"],
                   check=True, capture_output=True)
    questions = [strip_pointer(item.question) for item in read_questions(folder / "question_pairs.csv")]
    times: list[float] = []
    with AskSession(build) as session:
        for question in questions:
            start = time.perf_counter()
            session.retrieve(question)
            times.append(time.perf_counter() - start)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kgbuild", "ask", str(build), questions[0]], check=True,
                   capture_output=True)
    process = time.perf_counter() - start
    rest = sorted(times[1:]) or times
    return AskRun(movie=movie, language=language, questions=len(questions), open_seconds=times[0],
                  median_seconds=statistics.median(rest), p90_seconds=rest[int(0.9 * (len(rest) - 1))],
                  process_seconds=process)


def bench_ask(data: Path) -> AskBench:
    """Build the two movies offline and time their development questions (see the module docstring).

    Args:
        data: The shared data folder (holds stage/<Language>/<movie>/).
    """
    with tempfile.TemporaryDirectory(prefix="kgbuild-ask-bench-") as tmp:
        return AskBench(runs=[_run_movie(data, language, movie, Path(tmp)) for language, movie in MOVIES])


def format_ask_bench(result: AskBench) -> list[str]:
    """The result as lines for the terminal."""
    lines = [f"ask, offline (target: one question < {result.target_seconds:.1f} s with everything loaded)"]
    for run in result.runs:
        lines.append(f"  {run.language} {run.movie[:12]}: {run.questions} questions; opening "
                     f"{run.open_seconds:.2f} s; then median {run.median_seconds * 1000:.0f} ms, "
                     f"p90 {run.p90_seconds * 1000:.0f} ms; one question in a new process "
                     f"{run.process_seconds:.1f} s")
    return lines

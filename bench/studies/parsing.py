"""Screenplay line tagging measured against human tags (MovieCoref `parse.csv`).

The MovieCoref release tags every line of 11 IMSDb-style screenplays with one of S (heading),
N (action), C (cue), D (dialogue), E (parenthetical), T (transition), M (metadata) and O
(other/blank), and gives two automatic taggings beside the human one: `rule` (their rule-based
parser) and `robust` (their neural parser). `parse.csv` rows align one to one with the lines of
`screenplay/<movie>.txt`; the csv `text` column is stripped inconsistently, so the `.txt` files
are the classifier's input.

Run `python -m bench.studies.parsing [--data DIR] [--movie NAME] [--errors N] [--flat]
[--list TAG]`; `--list S` prints every heading line we tag differently from the gold, with the
tag the neural parser gave it.
"""

from __future__ import annotations

import csv
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import click

from bench.paths import SHARED_DATA
from kgbuild.errors import InputError

#: The tags scored (M and O are bookkeeping and not scored).
SCORED_TAGS: tuple[str, ...] = ("S", "C", "D", "N", "E", "T")
SYSTEMS: tuple[str, ...] = ("kgbuild", "rule", "robust")
_MOVIECOREF = Path("external") / "moviecoref"

Classifier = Callable[[list[str]], list[str]]


@dataclass(frozen=True)
class MovieLines:
    """One movie's lines with the human tags and the two reference taggings."""

    movie: str
    lines: list[str]
    gold: list[str]
    rule: list[str]
    robust: list[str]


@dataclass(frozen=True)
class TagScore:
    """Precision, recall and F1 of one tag."""

    tag: str
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class Confusion:
    """A (gold, predicted) pair, how often it happened and a few example lines."""

    gold: str
    predicted: str
    count: int
    examples: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TagError:
    """One line where either the gold or the system (not both) has `tag`."""

    movie: str
    line: int  # 1-based
    tag: str
    gold: str
    predicted: str
    robust: str  # the neural parser's tag, for judging the gold
    text: str

    @property
    def kind(self) -> str:
        """'FN' when the gold has the tag (the system missed it), 'FP' otherwise."""
        return "FN" if self.gold == self.tag else "FP"


@dataclass(frozen=True)
class SystemReport:
    """All numbers for one tagging system over a set of movies."""

    system: str
    tags: dict[str, TagScore]
    accuracy: dict[str, float]
    confusions: list[Confusion]
    tag_errors: list[TagError] = field(default_factory=list)


def _split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def load_moviecoref(data: Path, movies: list[str] | None = None) -> list[MovieLines]:
    """Load the MovieCoref screenplays and their line tags.

    Args:
        data: The shared data directory (holding external/moviecoref).
        movies: Only these movies (default: all).

    Returns:
        One `MovieLines` per movie, in csv order.

    Raises:
        InputError: the files are missing, or a movie's csv rows do not align with its .txt
            lines (count or text).
    """
    root = data / _MOVIECOREF
    csv_path = root / "parse.csv"
    if not csv_path.is_file():
        raise InputError("MovieCoref parse.csv not found; pass --data DIR", path=str(csv_path))
    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    with csv_path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            rows[row["movie"]].append(row)
    out: list[MovieLines] = []
    for movie, movie_rows in rows.items():
        if movies and movie not in movies:
            continue
        txt = root / "screenplay" / f"{movie}.txt"
        lines = _split_lines(txt.read_text(encoding="utf-8"))
        _check_alignment(movie, lines, movie_rows, str(txt))
        out.append(
            MovieLines(
                movie=movie,
                lines=lines,
                gold=[r["correct"] for r in movie_rows],
                rule=[r["rule"] for r in movie_rows],
                robust=[r["robust"] for r in movie_rows],
            )
        )
    if movies and len(out) != len(set(movies)):
        found = {m.movie for m in out}
        raise InputError(f"unknown movie(s): {sorted(set(movies) - found)}; known: {sorted(rows)}")
    return out


def _check_alignment(movie: str, lines: list[str], rows: list[dict[str, str]], path: str) -> None:
    if len(lines) != len(rows):
        raise InputError(f"{movie}: {len(rows)} csv rows but {len(lines)} lines", path=path)
    # The csv text is stripped and, in places, re-encoded; compare the ASCII letters only.
    bad = sum(1 for line, row in zip(lines, rows, strict=True) if _ascii(line) != _ascii(row["text"]))
    if bad > 0.02 * len(lines):
        raise InputError(f"{movie}: {bad} csv rows do not match their .txt lines", path=path)


def _ascii(text: str) -> str:
    return "".join(ch for ch in text if ch.isascii() and ch.isalnum())


def score(movies: list[MovieLines], predictions: dict[str, list[str]], system: str,
          errors: int = 0, list_tag: str | None = None) -> SystemReport:
    """Score one system's tags against the human tags.

    Args:
        movies: The movies with gold tags.
        predictions: Movie name -> one predicted tag per line.
        system: The system's name, for the report.
        errors: Keep the N most frequent confusions with example lines.
        list_tag: Also keep every line where gold or prediction (not both) is this tag.

    Returns:
        Per-tag precision/recall/F1 (micro over all lines), per-movie accuracy, confusions.
    """
    counts = {t: [0, 0, 0] for t in SCORED_TAGS}
    accuracy: dict[str, float] = {}
    confusions: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    listed: list[TagError] = []
    for m in movies:
        pred = predictions[m.movie]
        right = 0
        for n, (g, p) in enumerate(zip(m.gold, pred, strict=False)):
            right += g == p
            if g in counts:
                counts[g][0 if g == p else 2] += 1
            if p in counts and p != g:
                counts[p][1] += 1
            if g != p and (g in counts or p in counts):
                confusions[(g, p)] += 1
                if len(examples[(g, p)]) < 5:
                    examples[(g, p)].append(f"{m.movie}:{n + 1}: {m.lines[n].strip()[:70]}")
            if list_tag is not None and g != p and list_tag in (g, p):
                listed.append(TagError(m.movie, n + 1, list_tag, g, p, m.robust[n],
                                       m.lines[n].strip()))
        accuracy[m.movie] = right / len(m.gold) if m.gold else 0.0
    tags = {t: TagScore(t, *c) for t, c in counts.items()}
    top = [
        Confusion(g, p, c, examples[(g, p)]) for (g, p), c in confusions.most_common(errors)
    ]
    return SystemReport(system=system, tags=tags, accuracy=accuracy, confusions=top,
                        tag_errors=listed)


def flatten(movie: MovieLines) -> MovieLines:
    """The same movie with its layout removed: lines stripped, blank lines dropped.

    This is how STAGE `script.json` contents look; the human tags still apply line by line, so
    it measures the classifier on text with no indentation and no blank lines. (The `rule` and
    `robust` tags were made on the laid-out text; they are carried along unchanged.)
    """
    keep = [n for n, line in enumerate(movie.lines) if line.strip()]
    return MovieLines(
        movie=movie.movie,
        lines=[movie.lines[n].strip() for n in keep],
        gold=[movie.gold[n] for n in keep],
        rule=[movie.rule[n] for n in keep],
        robust=[movie.robust[n] for n in keep],
    )


def evaluate(data: Path, movies: list[str] | None = None, errors: int = 0,
             classifier: Classifier | None = None, flat: bool = False,
             list_tag: str | None = None) -> dict[str, SystemReport]:
    """Run the classifier over the MovieCoref screenplays and score it and the two baselines.

    Args:
        data: The shared data directory.
        movies: Only these movies (default: all 11).
        errors: Keep the N most frequent confusions per system.
        classifier: Lines -> tags (default: `kgbuild.readers.plaintext.classify_lines`).
        flat: Strip indentation and drop blank lines first (see `flatten`).
        list_tag: List every line our tagging gets wrong for this tag (in our report).

    Returns:
        System name ("kgbuild", "rule", "robust") -> its report.

    Raises:
        InputError: missing or misaligned data.

    Example:
        >>> reports = evaluate(Path("../shared/data"))  # doctest: +SKIP
        >>> round(reports["kgbuild"].tags["C"].f1, 3)  # doctest: +SKIP
        0.995
    """
    if classifier is None:
        from kgbuild.readers.plaintext import classify_lines

        classifier = classify_lines
    loaded = load_moviecoref(data, movies)
    if flat:
        loaded = [flatten(m) for m in loaded]
    ours = {m.movie: classifier(m.lines) for m in loaded}
    return {
        "kgbuild": score(loaded, ours, "kgbuild", errors, list_tag),
        "rule": score(loaded, {m.movie: m.rule for m in loaded}, "rule", errors),
        "robust": score(loaded, {m.movie: m.robust for m in loaded}, "robust", errors),
    }


def format_reports(reports: dict[str, SystemReport]) -> str:
    """A plain-text table of the reports (per-tag P/R/F1, per-movie accuracy, confusions)."""
    out = ["per-tag precision / recall / F1 (micro over lines)", ""]
    header = "tag  " + "  ".join(f"{s:>20}" for s in reports)
    out += [header, "-" * len(header)]
    for tag in SCORED_TAGS:
        cells: list[str] = []
        for rep in reports.values():
            t = rep.tags[tag]
            cells.append(f"{t.precision:.3f}/{t.recall:.3f}/{t.f1:.3f}")
        out.append(f"{tag:<4} " + "  ".join(f"{c:>20}" for c in cells))
    out += ["", "per-movie accuracy (all 8 tags)", ""]
    first = next(iter(reports.values()))
    out.append(f"{'movie':<22}" + "".join(f"{s:>10}" for s in reports))
    for movie in first.accuracy:
        row = "".join(f"{r.accuracy[movie]:>10.4f}" for r in reports.values())
        out.append(f"{movie:<22}{row}")
    ours = reports.get("kgbuild")
    if ours and ours.confusions:
        out += ["", "most frequent confusions (gold -> kgbuild)", ""]
        for c in ours.confusions:
            out.append(f"{c.gold} -> {c.predicted}: {c.count}")
            out += [f"    {e}" for e in c.examples]
    if ours and ours.tag_errors:
        out += ["", format_tag_errors(ours.tag_errors)]
    return "\n".join(out)


def format_tag_errors(errors: list[TagError]) -> str:
    """Every listed line (false negatives first) with the gold, our and the neural parser's
    tags, then on how many of them the neural parser's tag is the gold tag."""
    tag = errors[0].tag
    fn = [e for e in errors if e.kind == "FN"]
    fp = [e for e in errors if e.kind == "FP"]
    out = [f"every {tag} error: {len(fn)} false negatives, {len(fp)} false positives",
           "(kind movie:line gold/ours/neural text)", ""]
    for e in fn + fp:
        out.append(f"{e.kind} {e.movie}:{e.line} {e.gold}/{e.predicted}/{e.robust} {e.text[:80]}")
    same = sum(e.robust == e.gold for e in errors)
    out += ["", f"the neural parser's tag equals the gold on {same} of these {len(errors)} lines"]
    return "\n".join(out)


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=SHARED_DATA,
              show_default=True, help="The shared data folder.")
@click.option("--movie", multiple=True, help="Only this movie (repeatable).")
@click.option("--errors", type=click.IntRange(min=0), default=0, show_default=True,
              help="Show the N top confusions.")
@click.option("--flat", is_flag=True, help="Strip indentation and blank lines first (STAGE-like text).")
@click.option("--list", "list_tag", type=click.Choice(SCORED_TAGS), metavar="TAG",
              help="List every line we tag differently from the gold for this tag.")
def main(data: Path, movie: tuple[str, ...], errors: int, flat: bool, list_tag: str | None) -> None:
    """Print line-tag accuracy against the human tags of MovieCoref `parse.csv`.

    Exit status 2 when the data cannot be read.
    """
    try:
        reports = evaluate(data, list(movie) or None, errors, flat=flat, list_tag=list_tag)
    except InputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(format_reports(reports))


if __name__ == "__main__":
    main()

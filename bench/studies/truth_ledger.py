"""The truth ledger: every script whose offline graph was audited, and whether its verdicts shaped a rule.

A truth rate is honest only on scripts no rule was corrected against. The ledger
(`tests/fixtures/audit/ledger.jsonl`, one JSON object per script) records every audited script:
where it comes from, the seeded draw that picked it, the commit of the rules it was judged on, the
first-look shares, and whether its judged facts then informed a rule. Fresh scripts come only from
the movies `stage-pool/split.tsv` marks `truth`, drawn with a recorded seed among those the ledger
does not hold yet; a draw is never discarded or repeated.

    python -m bench.studies.truth_ledger draw --name after-1 --seed 2 --english 3 --chinese 1
    python -m bench.studies.truth_ledger record MOVIE_ID AUDIT_DIR --commit abc1234
    python -m bench.studies.truth_ledger inform MOVIE_ID ... --note "heading grammar"
    python -m bench.studies.truth_ledger table --draws after-1,after-2

Example:
    >>> entries = load_ledger(LEDGER)
    >>> picked = draw_scripts(read_split(POOL / "split.tsv"), entries, seed=2, english=3, chinese=1)
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bench.paths import REPO, SHARED_DATA
from kgbuild.evaluation.audit.tally import weighted_share
from kgbuild.evaluation.audit.types import AuditReport, TypeShare, WeightedShare

LEDGER = REPO / "tests" / "fixtures" / "audit" / "ledger.jsonl"
POOL = SHARED_DATA / "stage-pool"
#: The 95th percentile of the standard normal distribution (two-sided 90% intervals).
Z90 = 1.6448536269514722


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Shares(_Model):
    """First-look shares of one kind of fact (relations or entities) of one audited script."""

    judged: int
    supported: int
    cant_tell: int
    weighted: float = Field(description="Supported share weighted by type frequency in the graph.")
    low95: float
    high95: float
    types: list[TypeShare] = Field(description="The per-type tally the weighted share comes from.")


class LedgerEntry(_Model):
    """One audited (or drawn and not yet audited) script."""

    script: str = Field(description="Path under ../shared/data, or a name for scripts kept elsewhere.")
    movie: str = Field(description="Movie id (the STAGE id, or the file's stem).")
    title: str
    language: str
    origin: str = Field(description="'truth-draw' (a seeded draw from stage-pool's truth half), 'shared-data' "
                        "(a script of ../shared/data) or 'maintainers' (a script kept outside it).")
    draw: str | None = Field(default=None, description="The draw's name, e.g. 'before-1'.")
    draw_seed: int | None = None
    drawn: str | None = Field(default=None, description="The date of the draw (ISO).")
    audited: str | None = Field(default=None, description="The date the first-look verdicts were tallied.")
    rules_commit: str | None = Field(default=None, description="The commit of the rules the audited graph came from.")
    audit_seed: int | None = None
    relations: Shares | None = None
    entities: Shares | None = None
    informed_rules: bool = Field(description="Its judged facts informed a rule: its later shares are no first look.")
    note: str = ""


def load_ledger(path: Path = LEDGER) -> list[LedgerEntry]:
    """The ledger's entries, in file order."""
    if not path.exists():
        return []
    return [LedgerEntry.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def save_ledger(entries: Sequence[LedgerEntry], path: Path = LEDGER) -> None:
    """Write the ledger, one entry per line (a temporary file renamed over the old one)."""
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(e.model_dump_json(exclude_none=True) + "\n" for e in entries), encoding="utf-8")
    tmp.replace(path)


def read_split(path: Path) -> dict[str, tuple[str, str]]:
    """stage-pool/split.tsv as {movie id: (language, use)}."""
    with path.open(encoding="utf-8", newline="") as f:
        return {row["movie_id"]: (row["language"], row["use"]) for row in csv.DictReader(f, delimiter="\t")}


def draw_scripts(split: dict[str, tuple[str, str]], ledger: Sequence[LedgerEntry], *, seed: int,
                 english: int, chinese: int) -> list[str]:
    """Movie ids drawn with `seed` from the `truth` movies no ledger entry holds, per language.

    The candidates of each language are sorted by id, so the same split, ledger and seed give the
    same draw on any machine.

    Raises:
        ValueError: fewer fresh movies are left than asked for.
    """
    held = {e.movie for e in ledger}
    rng = random.Random(seed)
    picked: list[str] = []
    for language, count in (("English", english), ("Chinese", chinese)):
        fresh = sorted(m for m, (lang, use) in split.items() if lang == language and use == "truth" and m not in held)
        if count > len(fresh):
            raise ValueError(f"{count} {language} scripts asked for, {len(fresh)} fresh ones left")
        picked += rng.sample(fresh, count)
    return picked


def _titles(pool: Path) -> dict[str, str]:
    titles: dict[str, str] = {}
    for info in pool.glob("*_movie_info.csv"):
        with info.open(encoding="utf-8", newline="") as f:
            titles.update({row["movie_id"]: row["title"] for row in csv.DictReader(f)})
    return titles


def shares_of(weighted: WeightedShare, types: list[TypeShare]) -> Shares:
    """The ledger's record of one kind from an audit's tally."""
    return Shares(judged=weighted.judged, supported=weighted.supported, cant_tell=weighted.cant_tell,
                  weighted=weighted.share or 0.0, low95=weighted.low or 0.0, high95=weighted.high or 0.0,
                  types=types)


def pooled(entries: Sequence[LedgerEntry], kind: str, *, z: float = Z90) -> WeightedShare:
    """The share supported over several scripts' facts of one kind, stratified by (script, type).

    Each (script, type) is a stratum weighted by its count in that script's graph, so the pooled
    share is the supported share of all the scripts' facts together, with the interval of the
    stratified sample (90% by default, as the targets are stated).
    """
    strata: list[TypeShare] = []
    for entry in entries:
        shares = entry.relations if kind == "relation" else entry.entities
        if shares is None:
            raise ValueError(f"{entry.movie} has no audited {kind} shares")
        strata += [t.model_copy(update={"type": f"{entry.movie}/{t.type}"}) for t in shares.types]
    return weighted_share("relation" if kind == "relation" else "entity", strata, z=z)


def _record(args: argparse.Namespace) -> int:
    entries = load_ledger(args.ledger)
    report = AuditReport.model_validate_json((args.audit / "audit.json").read_text(encoding="utf-8"))
    for i, entry in enumerate(entries):
        if entry.movie == args.movie:
            if entry.relations is not None and not args.replace:
                print(f"{args.movie} already has first-look shares; they are kept (--replace to overwrite)",
                      file=sys.stderr)
                return 2
            entries[i] = entry.model_copy(update={
                "audited": dt.date.today().isoformat(), "rules_commit": args.commit, "audit_seed": report.seed,
                "relations": shares_of(report.relations, report.relation_types),
                "entities": shares_of(report.entities, report.entity_types)})
            save_ledger(entries, args.ledger)
            return 0
    print(f"{args.movie} is not in the ledger; draw it first", file=sys.stderr)
    return 2


def _draw(args: argparse.Namespace) -> int:
    entries = load_ledger(args.ledger)
    if any(e.draw == args.name for e in entries):
        print(f"a draw named {args.name!r} is already in the ledger; draws are never repeated", file=sys.stderr)
        return 2
    split = read_split(args.pool / "split.tsv")
    picked = draw_scripts(split, entries, seed=args.seed, english=args.english, chinese=args.chinese)
    titles = _titles(args.pool)
    today = dt.date.today().isoformat()
    for movie in picked:
        language = split[movie][0]
        entries.append(LedgerEntry(
            script=f"stage-pool/{language}/{movie}/script.json", movie=movie, title=titles.get(movie, movie),
            language=language, origin="truth-draw", draw=args.name, draw_seed=args.seed, drawn=today,
            informed_rules=False))
        print(f"{movie}\t{language}\t{titles.get(movie, '')}")
    save_ledger(entries, args.ledger)
    return 0


def _inform(args: argparse.Namespace) -> int:
    entries = load_ledger(args.ledger)
    unknown = set(args.movies) - {e.movie for e in entries}
    if unknown:
        print(f"not in the ledger: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for i, entry in enumerate(entries):
        if entry.movie in args.movies:
            note = "; ".join(x for x in (entry.note, args.note) if x)
            entries[i] = entry.model_copy(update={"informed_rules": True, "note": note})
    save_ledger(entries, args.ledger)
    return 0


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _table(args: argparse.Namespace) -> int:
    entries = load_ledger(args.ledger)
    if args.draws:
        names = set(args.draws.split(","))
        entries = [e for e in entries if e.draw in names]
    print("| script | title | draw (seed) | relations supported, weighted (95%) | judged | entities supported "
          "| informed rules |")
    print("|---|---|---|---|---|---|---|")
    audited = [e for e in entries if e.relations is not None and e.entities is not None]
    for e in entries:
        draw = f"{e.draw} ({e.draw_seed})" if e.draw else e.origin
        if e.relations is None or e.entities is None:
            print(f"| {e.movie[:14]} | {e.title} | {draw} | not audited | | | {'yes' if e.informed_rules else 'no'} |")
            continue
        r, n = e.relations, e.entities
        print(f"| {e.movie[:14]} | {e.title} | {draw} | {_pct(r.weighted)} ({_pct(r.low95)}–{_pct(r.high95)}) "
              f"| {r.supported}/{r.judged} | {n.supported}/{n.judged} ({_pct(n.weighted)}) "
              f"| {'yes' if e.informed_rules else 'no'} |")
    if args.draws and audited:
        rel, ent = pooled(audited, "relation"), pooled(audited, "entity")
        print(f"\nPooled over {len(audited)} scripts: relations {_pct(rel.share)} (90% {_pct(rel.low)}–"
              f"{_pct(rel.high)}), entities {_pct(ent.share)} (90% {_pct(ent.low)}–{_pct(ent.high)})")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: draw, record, inform, table."""
    parser = argparse.ArgumentParser(prog="python -m bench.studies.truth_ledger",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--ledger", type=Path, default=LEDGER)
    parser.add_argument("--pool", type=Path, default=POOL)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("draw", help="draw fresh truth scripts and add them to the ledger")
    p.add_argument("--name", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--english", type=int, default=3)
    p.add_argument("--chinese", type=int, default=1)
    p.set_defaults(run=_draw)
    p = sub.add_parser("record", help="record a drawn script's first-look shares from its tallied audit folder")
    p.add_argument("movie")
    p.add_argument("audit", type=Path)
    p.add_argument("--commit", required=True, help="The commit of the rules the audited graph was built with.")
    p.add_argument("--replace", action="store_true")
    p.set_defaults(run=_record)
    p = sub.add_parser("inform", help="mark scripts whose judged facts informed a rule")
    p.add_argument("movies", nargs="+")
    p.add_argument("--note", default="")
    p.set_defaults(run=_inform)
    p = sub.add_parser("table", help="the ledger as a Markdown table; pooled shares with --draws")
    p.add_argument("--draws", help="Comma-separated draw names to show and pool.")
    p.set_defaults(run=_table)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())

"""Do the formats of one screenplay read the same? (.fountain, .fdx and .pdf side by side)

For each script the Fountain file is the reference (it states every element explicitly). Each
other format is compared with it on:

- the scene count;
- the scene headings, text with white space normalised, matched in order (the share of the
  longer list that is matched; 100% means the same headings in the same order), and the same
  for the INT./EXT. headings alone (a PDF prints a forced heading such as 'ON THE TV' exactly
  like a shot line, see `kgbuild.readers.pdf.read_pdf`);
- the cue sequence (who speaks, in order), matched the same way.

The target is the same scene count and headings and at least 99% of the cue sequence.

Run `python -m bench.studies.formats [--data DIR] [--script NAME] [--pdf-secondary-headings]`.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict

from bench.paths import SHARED_DATA
from kgbuild.errors import InputError
from kgbuild.model import ElementKind, Scene
from kgbuild.readers import read_screenplay
from kgbuild.readers.headings import is_english_heading
from kgbuild.readers.pdf import read_pdf

#: The scripts the shared data holds in all three formats.
SCRIPTS: tuple[str, ...] = ("big-fish", "the-last-birthday-card", "brick-and-steel")
FORMATS: tuple[str, ...] = ("fountain", "fdx", "pdf")
REFERENCE = "fountain"
#: The share of the cue sequence that must agree.
CUE_TARGET = 0.99


class FormatReading(BaseModel):
    """What one file of a script says: its headings and its cue sequence."""

    model_config = ConfigDict(extra="forbid")

    script: str
    format: str
    headings: list[str]
    cues: list[str]


class FormatAgreement(BaseModel):
    """One format of a script compared with the reference format."""

    model_config = ConfigDict(extra="forbid")

    script: str
    format: str
    scenes: int
    reference_scenes: int
    heading_agreement: float
    int_ext_agreement: float
    cues: int
    reference_cues: int
    cue_agreement: float
    missing_headings: list[str]
    extra_headings: list[str]

    @property
    def meets_target(self) -> bool:
        """Same scenes, same headings, and the cue sequences agree to CUE_TARGET."""
        return (self.scenes == self.reference_scenes and self.heading_agreement == 1.0
                and self.cue_agreement >= CUE_TARGET)


def reading(script: str, fmt: str, scenes: list[Scene]) -> FormatReading:
    """The headings (white space normalised) and cue speakers of a script's scenes."""
    return FormatReading(
        script=script,
        format=fmt,
        headings=[" ".join(s.heading.split()) for s in scenes],
        cues=[
            e.speaker or e.text for s in scenes for e in s.elements
            if e.kind is ElementKind.CHARACTER
        ],
    )


def _agreement(a: list[str], b: list[str]) -> tuple[float, list[str], list[str]]:
    """Share of the longer list matched in order, and what only `a` / only `b` has."""
    if not a and not b:
        return 1.0, [], []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    only_a: list[str] = []
    only_b: list[str] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "equal":
            only_a += a[i1:i2]
            only_b += b[j1:j2]
    return matched / max(len(a), len(b)), only_a, only_b


def compare(reference: FormatReading, other: FormatReading) -> FormatAgreement:
    """Compare one format's reading with the reference reading of the same script.

    Example:
        >>> ref = FormatReading(script="x", format="fountain", headings=["INT. A"], cues=["AL"])
        >>> compare(ref, ref.model_copy(update={"format": "pdf"})).meets_target
        True
    """
    headings, missing, extra = _agreement(reference.headings, other.headings)
    int_ext, _, _ = _agreement([h for h in reference.headings if is_english_heading(h)],
                               [h for h in other.headings if is_english_heading(h)])
    cues, _, _ = _agreement(reference.cues, other.cues)
    return FormatAgreement(
        script=other.script,
        format=other.format,
        scenes=len(other.headings),
        reference_scenes=len(reference.headings),
        heading_agreement=headings,
        int_ext_agreement=int_ext,
        cues=len(other.cues),
        reference_cues=len(reference.cues),
        cue_agreement=cues,
        missing_headings=missing,
        extra_headings=extra,
    )


def read_format(path: Path, *, pdf_secondary_headings: bool = False) -> list[Scene]:
    """The scenes of one file; a PDF may read its slug lines as headings (see `read_pdf`).

    Raises:
        InputError: the file is missing or cannot be read.
    """
    if path.suffix == ".pdf" and pdf_secondary_headings:
        if not path.is_file():
            raise InputError("no such file", path=str(path))
        return read_pdf(path.read_bytes(), path=str(path), secondary_headings=True).scenes
    return read_screenplay(path).scenes


def evaluate_formats(
    data: Path, scripts: tuple[str, ...] | list[str] = SCRIPTS, *,
    pdf_secondary_headings: bool = False,
) -> list[FormatAgreement]:
    """Read every script in every format and compare each format with the Fountain file.

    Args:
        data: The shared data directory (holding screenplays/).
        scripts: File stems under screenplays/ present as .fountain, .fdx and .pdf.
        pdf_secondary_headings: Read PDF slug lines without INT./EXT. as headings.

    Returns:
        One row per script and non-reference format.

    Raises:
        InputError: a file is missing or unreadable.

    Example:
        >>> rows = evaluate_formats(Path("../shared/data"), ["big-fish"])  # doctest: +SKIP
        >>> [r.meets_target for r in rows]  # doctest: +SKIP
        [True, True]
    """
    folder = data / "screenplays"
    rows: list[FormatAgreement] = []
    for script in scripts:
        readings = {
            fmt: reading(script, fmt, read_format(
                folder / f"{script}.{fmt}", pdf_secondary_headings=pdf_secondary_headings))
            for fmt in FORMATS
        }
        rows += [compare(readings[REFERENCE], readings[f]) for f in FORMATS if f != REFERENCE]
    return rows


def format_table(rows: list[FormatAgreement], examples: int = 4) -> str:
    """A plain-text table of the rows, then the headings each disagreeing format misses."""
    header = (f"{'script':<24}{'format':<8}{'scenes':>10}{'headings':>10}{'INT/EXT':>9}"
              f"{'cues':>10}{'cue agr.':>10}  target")
    out = [header, "-" * len(header)]
    for r in rows:
        out.append(
            f"{r.script:<24}{r.format:<8}{f'{r.scenes}/{r.reference_scenes}':>10}"
            f"{r.heading_agreement:>10.1%}{r.int_ext_agreement:>9.1%}"
            f"{f'{r.cues}/{r.reference_cues}':>10}"
            f"{r.cue_agreement:>10.1%}  {'met' if r.meets_target else 'NOT MET'}"
        )
    for r in rows:
        for label, items in (("missing", r.missing_headings), ("extra", r.extra_headings)):
            if items:
                shown = "; ".join(items[:examples]) + ("; ..." if len(items) > examples else "")
                out.append(f"{r.script} {r.format}: {len(items)} headings {label}: {shown}")
    return "\n".join(out)


@click.command()
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=SHARED_DATA,
              show_default=True, help="The shared data folder.")
@click.option("--script", multiple=True, help="Only this script (repeatable).")
@click.option("--pdf-secondary-headings", is_flag=True,
              help="Read PDF slug lines without INT./EXT. as scene headings.")
def main(data: Path, script: tuple[str, ...], pdf_secondary_headings: bool) -> None:
    """Print how the Fountain, FDX and PDF files of each script agree.

    Exit status 1 when a row misses the target, 2 when a script cannot be read.
    """
    try:
        rows = evaluate_formats(data, list(script) or SCRIPTS, pdf_secondary_headings=pdf_secondary_headings)
    except InputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    click.echo(format_table(rows))
    sys.exit(0 if all(r.meets_target for r in rows) else 1)


if __name__ == "__main__":
    main()

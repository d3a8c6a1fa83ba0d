"""The format-agreement table: one script read as Fountain, FDX and PDF, compared."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.studies.formats import FormatReading, compare, evaluate_formats, format_table, main
from kgbuild.readers.headings import is_english_heading
from tests.readers.pdf_writer import ACTION, CUE, DIALOGUE, Page, make_pdf

FOUNTAIN = """\
INT. KITCHEN - NIGHT

Anna pours tea.

ANNA
Sit down.

TOM
I'd rather stand.

.ON THE TABLE

A letter, unopened.

EXT. GARDEN - DAY

TOM
Nice day for it.

ANNA
It is.
"""

FDX = """\
<?xml version="1.0" encoding="UTF-8"?>
<FinalDraft DocumentType="Script" Template="No" Version="5">
  <Content>
    <Paragraph Type="Scene Heading"><Text>INT. KITCHEN - NIGHT</Text></Paragraph>
    <Paragraph Type="Action"><Text>Anna pours tea.</Text></Paragraph>
    <Paragraph Type="Character"><Text>ANNA</Text></Paragraph>
    <Paragraph Type="Dialogue"><Text>Sit down.</Text></Paragraph>
    <Paragraph Type="Character"><Text>TOM</Text></Paragraph>
    <Paragraph Type="Dialogue"><Text>I'd rather stand.</Text></Paragraph>
    <Paragraph Type="Scene Heading"><Text>ON THE TABLE</Text></Paragraph>
    <Paragraph Type="Action"><Text>A letter, unopened.</Text></Paragraph>
    <Paragraph Type="Scene Heading"><Text>EXT. GARDEN - DAY</Text></Paragraph>
    <Paragraph Type="Character"><Text>TOM</Text></Paragraph>
    <Paragraph Type="Dialogue"><Text>Nice day for it.</Text></Paragraph>
    <Paragraph Type="Character"><Text>ANNA</Text></Paragraph>
    <Paragraph Type="Dialogue"><Text>It is.</Text></Paragraph>
  </Content>
</FinalDraft>
"""


def _pdf() -> bytes:
    """The same script printed: the forced heading looks exactly like a shot line."""
    page = Page()
    page.line(ACTION, "INT. KITCHEN - NIGHT").blank()
    page.line(ACTION, "Anna pours tea.").blank()
    page.line(CUE, "ANNA").line(DIALOGUE, "Sit down.").blank()
    page.line(CUE, "TOM").line(DIALOGUE, "I'd rather stand.").blank()
    page.line(ACTION, "ON THE TABLE").blank()
    page.line(ACTION, "A letter, unopened.").blank()
    page.line(ACTION, "EXT. GARDEN - DAY").blank()
    page.line(CUE, "TOM").line(DIALOGUE, "Nice day for it.").blank()
    page.line(CUE, "ANNA").line(DIALOGUE, "It is.")
    return make_pdf([page.runs])


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "screenplays"
    folder.mkdir()
    (folder / "tea.fountain").write_text(FOUNTAIN, encoding="utf-8")
    (folder / "tea.fdx").write_text(FDX, encoding="utf-8")
    (folder / "tea.pdf").write_bytes(_pdf())
    return tmp_path


def _reading(fmt: str, headings: list[str], cues: list[str]) -> FormatReading:
    return FormatReading(script="x", format=fmt, headings=headings, cues=cues)


def test_identical_readings_meet_the_target() -> None:
    ref = _reading("fountain", ["INT. A - DAY", "EXT. B - NIGHT"], ["ANNA", "TOM"])
    row = compare(ref, ref.model_copy(update={"format": "fdx"}))
    assert (row.scenes, row.heading_agreement, row.cue_agreement) == (2, 1.0, 1.0)
    assert row.meets_target and not row.missing_headings and not row.extra_headings


def test_a_missing_heading_is_named_and_misses_the_target() -> None:
    ref = _reading("fountain", ["INT. A - DAY", "ON THE TV", "EXT. B - NIGHT"], ["ANNA"])
    row = compare(ref, _reading("pdf", ["INT. A - DAY", "EXT. B - NIGHT"], ["ANNA"]))
    assert row.missing_headings == ["ON THE TV"] and row.extra_headings == []
    assert (row.scenes, row.reference_scenes) == (2, 3)
    assert row.heading_agreement == pytest.approx(2 / 3) and row.int_ext_agreement == 1.0
    assert not row.meets_target


def test_cue_agreement_threshold_is_99_percent() -> None:
    cues = [f"C{n % 7}" for n in range(100)]
    ref = _reading("fountain", ["INT. A - DAY"], cues)
    one_off = compare(ref, _reading("pdf", ["INT. A - DAY"], [*cues[:50], "X", *cues[51:]]))
    assert one_off.cue_agreement == pytest.approx(0.99) and one_off.meets_target
    two_off = compare(ref, _reading("pdf", ["INT. A - DAY"], ["X", "Y", *cues[2:]]))
    assert two_off.cue_agreement == pytest.approx(0.98) and not two_off.meets_target


def test_three_formats_of_a_small_script(data: Path) -> None:
    rows = {r.format: r for r in evaluate_formats(data, ["tea"])}
    assert rows["fdx"].meets_target
    pdf = rows["pdf"]
    assert (pdf.scenes, pdf.reference_scenes, pdf.missing_headings) == (2, 3, ["ON THE TABLE"])
    assert (pdf.cues, pdf.cue_agreement) == (4, 1.0)
    secondary = {r.format: r for r in evaluate_formats(data, ["tea"], pdf_secondary_headings=True)}
    assert secondary["pdf"].meets_target


def test_command_line_prints_the_table_and_exit_status(data: Path) -> None:
    runner = CliRunner()
    missed = runner.invoke(main, ["--data", str(data), "--script", "tea"])
    assert missed.exit_code == 1
    assert "tea" in missed.stdout and "NOT MET" in missed.stdout
    assert "1 headings missing: ON THE TABLE" in missed.stdout
    met = runner.invoke(main, ["--data", str(data), "--script", "tea", "--pdf-secondary-headings"])
    assert met.exit_code == 0 and "NOT MET" not in met.stdout
    unreadable = runner.invoke(main, ["--data", str(data), "--script", "nope"])
    assert unreadable.exit_code == 2 and unreadable.stderr.startswith("error: ")


@pytest.mark.shared_data
def test_shared_scripts(shared_data: Path) -> None:
    """Big Fish agrees in every format; the FDX files agree with Fountain. The PDFs agree on
    every cue and every INT./EXT. heading, and miss exactly the forced headings without
    INT./EXT., which they print like shot lines (see `read_pdf`)."""
    rows = evaluate_formats(shared_data)
    table = format_table(rows)
    for row in rows:
        assert row.cue_agreement >= 0.99 and row.cues == row.reference_cues, table
        assert row.extra_headings == [], table
        if row.script == "big-fish" or row.format == "fdx":
            assert row.meets_target, table
        else:
            assert row.missing_headings and row.int_ext_agreement == 1.0, table
            assert not any(is_english_heading(h) for h in row.missing_headings), table
            assert row.scenes == row.reference_scenes - len(row.missing_headings), table

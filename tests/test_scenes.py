"""Scene selections: parsing `--scenes`, restricting graphs, and builds of part of a script."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kgbuild.cli import cli
from kgbuild.errors import InputError
from kgbuild.graph import load_graph
from kgbuild.model import KnowledgeGraph, MovieInfo
from kgbuild.pipeline import BuildOptions, prepare_build, run_build
from kgbuild.readers import read_screenplay
from kgbuild.scenes import (
    SceneSelection,
    check_selection,
    parse_scene_ranges,
    recorded_selection,
    restrict_graph,
    select_screenplay,
)
from tests.factories import ent, ev, rel

SCRIPT = """Title: Six Short Scenes

INT. KITCHEN - DAY

ANNA pours coffee for BEN.

ANNA
Morning, Ben.

BEN
Morning, Anna.

EXT. GARDEN - DAY

Ben digs a hole. Anna watches.

BEN
Hand me the spade, Anna.

INT. GARAGE - NIGHT

Carl opens the toolbox.

CARL
Where is the hammer?

INT. KITCHEN - NIGHT

ANNA
Carl took the hammer.

BEN
Of course he did.

EXT. STREET - NIGHT

Carl walks away with the hammer.

INT. GARAGE - LATER

Anna finds the toolbox empty.

ANNA
Carl!
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "six.fountain"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_ranges_are_read_sorted_and_merged():
    selection = parse_scene_ranges("12-40, 3,41-45")
    assert selection.ranges == ((3, 3), (12, 45))
    assert selection.describe() == "3, 12-45"
    assert 3 in selection and 45 in selection and 4 not in selection and "3" not in selection
    assert len(selection) == 35 and list(parse_scene_ranges("1-3,5")) == [1, 2, 3, 5]
    assert parse_scene_ranges("7") == SceneSelection.of([(7, 7)])


@pytest.mark.parametrize("text", ["12-", "a-b", "0", "9-3", "", "1-2,,4"])
def test_unreadable_ranges_are_refused_with_the_form_to_use(text):
    with pytest.raises(InputError):
        parse_scene_ranges(text)


def test_restrict_graph_keeps_the_facts_grounded_in_the_scenes():
    anna = ent("Character", "Anna", scenes=[1, 4, 6], evidence=[ev(1), ev(4)])
    carl = ent("Character", "Carl", scenes=[3, 5], evidence=[ev(3)])
    garage = ent("Location", "Garage", scenes=[3, 6], evidence=[ev(3), ev(6)])
    in_range = rel(anna, "located_at", garage, scenes=[6], evidence=[ev(6)])
    outside = rel(carl, "located_at", garage, scenes=[3], evidence=[ev(3)])
    graph = KnowledgeGraph(movie=MovieInfo(title="t", language="en", scenes=6), entities=[anna, carl, garage],
                           relations=[in_range, outside])
    part = restrict_graph(graph, parse_scene_ranges("4-6"))
    assert part.movie.scene_ranges == [(4, 6)] and part.movie.scenes == 6
    by_id = {e.id: e for e in part.entities}
    assert set(by_id) == {anna.id, carl.id, garage.id}  # Carl: scene 5 is among his scenes
    assert by_id[anna.id].scenes == [4, 6] and [e.scene for e in by_id[anna.id].evidence] == [4]
    assert by_id[carl.id].evidence == []
    assert [r.id for r in part.relations] == [in_range.id]
    assert graph.entities[0].scenes == [1, 4, 6]  # the input is not changed
    assert recorded_selection(part) == parse_scene_ranges("4-6") and recorded_selection(graph) is None


def test_a_selection_past_the_last_scene_is_refused(script):
    screenplay = read_screenplay(script)
    check_selection(parse_scene_ranges("2-6"), screenplay)
    with pytest.raises(InputError, match="the script has 6 scenes"):
        check_selection(parse_scene_ranges("5-9"), screenplay)
    assert [s.index for s in select_screenplay(screenplay, parse_scene_ranges("2,5-6")).scenes] == [2, 5, 6]


def test_an_offline_build_of_some_scenes_holds_only_their_facts(script, tmp_path):
    whole = run_build(script, BuildOptions())
    part = run_build(script, BuildOptions(scenes=parse_scene_ranges("3-5")))
    assert part.graph.movie.scene_ranges == [(3, 5)] and part.graph.movie.scenes == 6
    assert {i for c in part.chunks for i in c.scene_indices} <= {3, 4, 5}
    for fact in [*part.graph.entities, *part.graph.relations]:
        assert fact.evidence and all(3 <= e.scene <= 5 for e in fact.evidence), fact.id
        assert all(3 <= s <= 5 for s in fact.scenes), fact.id
    # The same facts as the whole script's build, on those scenes: ids and evidence unchanged.
    restricted = restrict_graph(whole.graph, parse_scene_ranges("3-5"))
    assert {e.id for e in part.graph.entities} == {e.id for e in restricted.entities}
    assert {r.id for r in part.graph.relations} == {r.id for r in restricted.relations}
    quotes = {(r.id, e.scene, e.quote) for r in restricted.relations for e in r.evidence}
    assert {(r.id, e.scene, e.quote) for r in part.graph.relations for e in r.evidence} == quotes


def test_build_scenes_on_the_command_line_records_them_and_reports_them(script, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(script), "-o", str(out), "-q", "--scenes", "2-3"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("scenes 2-3 of 6 ->")
    assert load_graph(out / "graph.json").movie.scene_ranges == [(2, 3)]
    report = (out / "report.md").read_text()
    assert "- Scenes: 2 of 6 (--scenes 2-3)" in report
    bad = CliRunner().invoke(cli, ["build", str(script), "-o", str(out), "--scenes", "4-"])
    assert bad.exit_code == 2 and "--scenes" in bad.output


def test_prepare_build_stops_before_extraction(script):
    state = prepare_build(script, BuildOptions(scenes=parse_scene_ranges("6")))
    assert [c.scene_indices for c in state.chunks] == [[6]]
    assert not hasattr(state, "graph")

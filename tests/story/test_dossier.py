"""Dossiers: verbatim lines with scene ids, actions, relations, places, objects; --top; Markdown."""

from __future__ import annotations

import json

from kgbuild.graph import save_graph
from kgbuild.readers.cues import normalize_name
from kgbuild.story.dossier import (
    MAX_FILE_STEM_BYTES,
    Line,
    build_dossier,
    character_degree,
    characteristic,
    dossier_file_stem,
    top_characters,
)
from kgbuild.story.render import dossier_markdown
from tests.cli_in_process import Ran, run_cli


def _dialogue(screenplay, line: Line) -> str:
    scene = next(s for s in screenplay.scenes if s.index == line.scene)
    first, last = line.lines
    return " ".join(el.text for el in scene.elements if el.kind.value == "dialogue"
                    and first <= el.line_start and el.line_end <= last)


def test_every_line_is_verbatim_under_the_characters_cue_and_every_item_has_a_scene(story_build):
    graph, screenplay = story_build.graph, story_build.screenplay
    for who in ("Anna", "Ben", "Clara"):
        d = build_dossier(graph, screenplay, who.lower())
        entity = next(e for e in graph.entities if e.name == who)
        assert d.lines and len(d.lines) == d.lines_total
        for line in d.lines:
            assert line.text == _dialogue(screenplay, line)
            assert normalize_name(line.speaker) in {normalize_name(f) for f in (entity.name, *entity.aliases)}
        for item in [*d.actions, *d.relations, *d.places, *d.times, *d.objects]:
            assert item.scenes and item.evidence and all(ev.scene in item.scenes or ev.scene for ev in item.evidence)


def test_bens_dossier(story_build):
    d = build_dossier(story_build.graph, story_build.screenplay, "BEN")
    assert (d.name, d.first_scene, d.last_scene, d.scene_count, d.in_scenes) == ("Ben", 1, 3, 3, [1, 2, 3])
    assert [(x.scene, x.heard, x.text) for x in d.lines] == [
        (1, "on screen", "No. Never."), (2, "voice", "I should never have left her alone with it."),
        (3, "on screen", "She did? Then it is over.")]
    assert [(a.kind, a.other, a.scenes) for a in d.actions] == [("performs", "Ben cuts the roses", [2])]
    assert {(r.kind, r.other, r.direction) for r in d.relations} == {
        ("speaks_to", "Anna", "in"), ("speaks_to", "Anna", "out"), ("speaks_to", "Clara", "in"),
        ("speaks_to", "Clara", "out")}
    assert [p.other for p in d.places] == ["Parlour", "Garden", "Kitchen"]
    assert [o.other for o in d.objects] == ["roses"] and [t.other for t in d.times] == ["1990"]
    text = dossier_markdown(d)
    assert text.startswith("# Ben\n") and "## Lines (all of 3)" in text
    assert '- scene 2, lines 25-26, BEN (V.O.) (voice): I should never have left her alone with it.' in text


def test_annas_actions_are_in_story_order_and_clara_shares_no_event(story_build):
    d = build_dossier(story_build.graph, story_build.screenplay, "Anna")
    assert [(a.kind, a.other) for a in d.actions] == [("performs", "Anna burns the letter"),
                                                     ("performs", "Anna hides the key")]
    assert d.mentioned_in == [3] and d.in_scenes == [1, 4]


def test_the_most_characteristic_lines_keep_scene_order():
    lines = [Line(scene=i, lines=(i, i), cue="A", speaker="A", heard="on screen", text=t) for i, t in
             enumerate(["Yes.", "The quantum flux capacitor hums again tonight.", "I think so.",
                        "Bring the flux capacitor, the quantum one."], start=1)]
    chosen = characteristic(lines, ["I think so, yes.", "Yes, I think so."], 2)
    assert [x.scene for x in chosen] == [2, 4]


def test_top_characters_by_degree_and_the_cli(story_build, tmp_path):
    degree = character_degree(story_build.graph)
    assert degree["character:anna"] >= degree["character:ben"] > degree["character:clara"]
    assert [e.name for e in top_characters(story_build.graph, 2)] == ["Anna", "Ben"]
    save_graph(story_build.graph, tmp_path / "graph.json")
    (tmp_path / "screenplay.json").write_text(story_build.screenplay.model_dump_json(), encoding="utf-8")

    def run(*args: str) -> Ran:
        return run_cli("dossier", str(tmp_path), *args)

    one = run("clara", "--format", "json")
    assert one.returncode == 0, one.stderr
    assert json.loads(one.stdout)["lines"][0]["text"] == "What is that smell?"
    top = run("--top", "2")
    assert top.returncode == 0, top.stderr
    assert sorted(p.name for p in (tmp_path / "dossiers").iterdir()) == ["anna.json", "anna.md", "ben.json",
                                                                           "ben.md"]
    both = run("Ben", "--top", "2")
    assert both.returncode == 2 and "not both" in both.stderr


def test_dossier_file_names_are_capped_in_bytes_and_stay_distinct():
    for name in ("Anna", "蜡烛" * 50, "A" * 300, "Ünïcödé " * 40):
        stem = dossier_file_stem(name)
        assert len(stem.encode("utf-8")) <= MAX_FILE_STEM_BYTES
        assert stem == dossier_file_stem(name)
    assert dossier_file_stem("Anna") == "anna"
    assert dossier_file_stem("A" * 300) != dossier_file_stem("A" * 299)  # a short hash keeps them apart
    assert dossier_file_stem("蜡烛" * 50).startswith("蜡烛蜡烛")  # cut between characters, not inside one
    assert dossier_file_stem("!!!") == "character"


def test_top_dossiers_of_characters_with_very_long_names(story_build, tmp_path):
    long_names = {"character:anna": "Anna " + "Maria " * 49, "character:ben": "本" * 100}
    graph = story_build.graph.model_copy(update={"entities": [
        e.model_copy(update={"name": long_names.get(e.id, e.name)}) for e in story_build.graph.entities]})
    save_graph(graph, tmp_path / "graph.json")
    (tmp_path / "screenplay.json").write_text(story_build.screenplay.model_dump_json(), encoding="utf-8")
    top = run_cli("dossier", str(tmp_path), "--top", "3")
    assert top.returncode == 0, top.stderr
    written = sorted((tmp_path / "dossiers").iterdir())
    assert len(written) == 6 and all(len(p.name.encode("utf-8")) <= MAX_FILE_STEM_BYTES + 5 for p in written)
    for name in long_names.values():
        stem = dossier_file_stem(name)
        assert json.loads((tmp_path / "dossiers" / f"{stem}.json").read_text(encoding="utf-8"))["name"] == name
        assert f"-> {tmp_path / 'dossiers' / stem}.md" in top.stdout

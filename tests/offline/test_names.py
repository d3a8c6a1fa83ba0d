"""Names from the script's own introductions, and cues that name someone else or no one.

The fixtures (tests/fixtures/names/, written for these tests) hold each case the before-1 audit
found, in Fountain, STAGE script.json and Chinese:

- introductions.fountain: 'Her name is NORA VALE.' and a mother introduced as EDITH VALE on a
  video call (cue EDITH, who talks with VALE); 'JUNE PARKER (Ada Lind) steps out'.
- cues_stage.json: a joint cue 'OTTO BRUNO', an actor's cue 'FELIX AS HAMLET', a shot 'REVEAL
  OTTO', YOUNG WOMAN and OLD WOMAN, GOOD COP BOB and BAD COP BOB (two people each), and YOUNG
  OTTO (Otto as a boy).
- manner_zh.json: cues that say how a line is said ('很生气', '尴尬的对李明', '很激动') and a
  modifier before a name ('旁边的王芳').

Round 2 (the after-1 and after-2 audits):

- cues_round2.json: a dual-dialogue cue run into one line ('NORA LITTLE SAM', two speakers who
  never answer each other), a group introduced with an age range ('OLD NEIGHBOURS, 50s to 80s'),
  an action line's last word and an editing direction on lines of their own ('WITHOUT', 'LOSE
  SUPER'), and a surname of two words ('Ray Van Dorn', not 'Ray Van').
- ocr_cues_zh.json: a Chinese script as OCR leaves it: a cue misread once ('王弦' among the
  many of 王强), a cue cut to one character ('一'), and '中年男子' beside '男子' (descriptions,
  no life stage).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbuild.canonicalize.constraints import Candidate, life_stage_link
from kgbuild.canonicalize.normalize import normalize_name
from kgbuild.graph import save_graph
from kgbuild.offline.characters import converse, find_cast
from kgbuild.pipeline import run_build
from kgbuild.readers import read_screenplay
from kgbuild.readers.chinese import manner_note
from kgbuild.readers.cues import camera_direction, parse_cue
from kgbuild.story.names import find_entity
from tests.cli_in_process import run_cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "names"
INTRODUCTIONS = FIXTURES / "introductions.fountain"
CUES = FIXTURES / "cues_stage.json"
MANNER = FIXTURES / "manner_zh.json"
ROUND2 = FIXTURES / "cues_round2.json"
OCR_ZH = FIXTURES / "ocr_cues_zh.json"


@pytest.fixture(scope="module")
def introductions():
    return run_build(INTRODUCTIONS)


@pytest.fixture(scope="module")
def cues():
    return run_build(CUES)


def _characters(graph) -> set[str]:
    return {e.name for e in graph.entities if e.type == "Character"}


def _relations(graph, rtype: str) -> set[tuple[str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], names[r.target]) for r in graph.relations if r.type == rtype}


def test_a_surname_shared_with_someone_she_talks_to_is_not_her_name():
    screenplay = read_screenplay(INTRODUCTIONS)
    assert frozenset({"VALE", "EDITH"}) in converse(screenplay)
    cast = find_cast(screenplay)
    assert cast.resolve("VALE") == "Nora Vale"  # 'Her name is NORA VALE.', not her mother's name
    assert cast.resolve("EDITH") == "Edith Vale"
    assert cast.resolve("JUNE") == "June Parker"  # 'JUNE PARKER (Ada Lind) steps out of a truck'


def test_the_graph_names_the_heroine_from_her_introduction(introductions):
    graph = introductions.graph
    assert {"Nora Vale", "Edith Vale", "June Parker"} <= _characters(graph)
    # Before, VALE was an alias of her mother's name: 'June speaks_to Edith Vale'.
    assert _relations(graph, "speaks_to") == {("June Parker", "Nora Vale"), ("Nora Vale", "June Parker")}
    june = find_entity(graph, "June Parker", types=("Character",))
    assert "June" in june.aliases


def test_dossier_finds_a_character_by_the_full_name_of_her_introduction(introductions, tmp_path):
    save_graph(introductions.graph, tmp_path / "graph.json")
    (tmp_path / "screenplay.json").write_text(introductions.screenplay.model_dump_json(), encoding="utf-8")
    done = run_cli("dossier", str(tmp_path), "June Parker", "--format", "json")
    assert done.returncode == 0, done.stderr
    dossier = json.loads(done.stdout)
    assert dossier["name"] == "June Parker"
    assert [line["text"] for line in dossier["lines"]] == ["You're late again.", "Always traffic."]


def test_cue_shapes_that_name_no_one_or_an_actor():
    assert parse_cue("REVEAL HENRY").name == "" and camera_direction("ANGLE ON MAX")
    assert parse_cue("HENRY").name == "HENRY" and parse_cue("DOLLY PARTON").name == "DOLLY PARTON"
    cue = parse_cue("ARNOLD AS LOPHAKIN (O.S.)")
    assert (cue.name, cue.extensions) == ("ARNOLD", ["O.S.", "AS LOPHAKIN"])
    cast = find_cast(read_screenplay(CUES))
    assert cast.speakers("OTTO BRUNO") == ["Otto", "Bruno"]  # both at once, two people who talk
    assert cast.resolve("FELIX AS HAMLET") is None and cast.speakers("FELIX") == ["Felix"]


def test_the_graph_has_no_shot_joint_cue_or_role_as_a_character(cues):
    names = _characters(cues.graph)
    assert not names & {"Reveal Otto", "Otto Bruno", "Felix As Hamlet"}
    assert {"Otto", "Bruno", "Felix", "Greta"} <= names
    assert ("Felix", "Greta") in _relations(cues.graph, "speaks_to")


def test_life_stages_need_a_life_stage_word_and_a_proper_name(cues):
    stages = _relations(cues.graph, "life_stage_of")
    assert stages == {("Young Otto", "Otto")}

    def cand(name: str) -> Candidate:
        return Candidate(id=name, name=name, type="Character", norm=normalize_name(name, person=True))

    assert life_stage_link(cand("YOUNG ELLIE"), cand("Ellie"))
    assert life_stage_link(cand("AGED TUVIA"), cand("Tuvia"))  # an epilogue cue: Tuvia years later
    assert not life_stage_link(cand("YOUNG MAN #1"), cand("MAN #1"))  # two men, told apart by number
    assert not life_stage_link(cand("Young Woman"), cand("Old Woman"))
    assert not life_stage_link(cand("Good Cop Bob"), cand("Bad Cop Bob"))
    assert not life_stage_link(cand("Young Hunter"), cand("Hunter"), frozenset({"hunter"}))
    assert life_stage_link(cand("年轻的静秋"), cand("静秋"))


def test_a_chinese_manner_note_is_not_a_speaker():
    assert manner_note("很激动") and manner_note("尴尬的") and manner_note("严肃地") and manner_note("满脸通红")
    assert not any(manner_note(n) for n in ("老三", "卖菜的", "女的", "乐乐", "比较瘦的同事", "静秋母亲"))
    screenplay = read_screenplay(MANNER)
    said = [(el.text, el.speaker) for scene in screenplay.scenes for el in scene.elements
            if el.kind.value == "character"]
    assert ("很生气", "李明") in said  # '李明放下茶杯，很生气：' is 李明 speaking
    assert ("尴尬的对李明", "王芳") in said
    assert ("很激动", "李明") in said
    assert ("旁边的王芳", "王芳") in said
    assert set(find_cast(screenplay).speeches) == {"李明", "王芳", "卖菜的"}


@pytest.fixture(scope="module")
def round2():
    return run_build(ROUND2)


def test_a_dual_cue_run_into_one_line_is_its_speakers():
    cast = find_cast(read_screenplay(ROUND2))
    # NORA and LITTLE SAM never answer each other, but both speak in the scene on their own.
    assert cast.speakers("NORA LITTLE SAM") == ["Nora Webb", "Little Sam"]
    assert cast.resolve("RAY") == "Ray Van Dorn"  # 'My name is Ray Van Dorn.', not 'Ray Van'


def test_groups_directions_and_broken_lines_are_no_characters(round2):
    names = _characters(round2.graph)
    assert names == {"Nora Webb", "Pete", "Little Sam", "Ray Van Dorn"}
    assert parse_cue("WITHOUT").name == "" and parse_cue("LOSE SUPER").name == ""
    assert parse_cue("SHE").name == "SHE"  # a pronoun names the speakers of a two-hander


def test_chinese_ocr_cues_misread_or_cut_short():
    cast = find_cast(read_screenplay(OCR_ZH))
    assert cast.resolve("王弦") == "王强" and "王弦" in cast.aliases["王强"]
    assert cast.resolve("一") is None
    assert set(cast.speeches) == {"王强", "李梅", "中年男子", "男子"}


def test_a_chinese_description_has_no_life_stage():
    graph = run_build(OCR_ZH).graph
    assert not _relations(graph, "life_stage_of")  # '中年男子' is not '男子' in middle age
    assert {"王强", "李梅"} <= _characters(graph) and not {"王弦", "一"} & _characters(graph)

    def cand(name: str) -> Candidate:
        return Candidate(id=name, name=name, type="Character", norm=normalize_name(name, person=True))

    assert not life_stage_link(cand("中年男子"), cand("男子"))
    assert life_stage_link(cand("少年叶问"), cand("叶问"))


SHIP = """Title: Night Watch

INT. ARGO - BRIDGE - NIGHT

MARA stands at the helm. The Argo shudders.

ARGO VOICE (V.O.)
Hull breach on deck four.

MARA
Seal it.

EXT. SPACE - CONTINUOUS

The Argo banks hard past the moon.

INT. ARGO - CORRIDOR - NIGHT

Mara runs. The Argo groans around her.

MARA
Hold together.
"""


def test_a_word_the_headings_use_as_a_whole_place_does_not_find_a_character(tmp_path):
    """'The Argo banks' is the ship of `INT. ARGO - BRIDGE`, not the cue ARGO VOICE."""
    script = tmp_path / "ship.fountain"
    script.write_text(SHIP, encoding="utf-8")
    graph = run_build(script).graph
    voice = next(e for e in graph.entities if e.type == "Character" and e.name.lower().startswith("argo"))
    located = {r.target for r in graph.relations if r.source == voice.id and r.type == "located_at"}
    assert located == set(), [r for r in graph.relations if r.source == voice.id]
    assert all(scene == 1 for scene in voice.scenes)


DINER = """Title: Late Shift

INT. DINER - NIGHT

The counter is empty. HOWARD, 60s, the night cook, wipes the grill. NELL, 20s, pours coffee.

NELL
Quiet tonight.

HOWARD
Always is after two.

NELL
You ever eat anywhere else?

HOWARD
Only Howard Johnson's. Twice.

NELL
Howard Johnson's, really?

HOWARD
Their pie, Nell.

NELL
Fair enough.

HOWRD
Lock the back door.

NELL
Done.

HOWARD
Good.

NEL
Goodnight.

HOWARD
Night.
"""


def test_a_possessive_is_no_surname_and_a_cue_typed_once_wrong_is_its_speaker(tmp_path):
    """"Howard Johnson's" (a restaurant) does not name the cue HOWARD; HOWRD and NEL, typed once
    one letter away from cues used often in their scene and written nowhere, are HOWARD and NELL."""
    script = tmp_path / "diner.fountain"
    script.write_text(DINER, encoding="utf-8")
    cast = find_cast(read_screenplay(script))
    assert set(cast.speeches) == {"Howard", "Nell"}
    assert cast.resolve("HOWRD") == "Howard" and cast.resolve("NEL") == "Nell"



def _cues_screenplay(lines: list[tuple[str, str]]):
    """A one-scene screenplay of (cue, speech) pairs, as a reader leaves them."""
    from kgbuild.model import Element, ElementKind, Scene, Screenplay

    elements = []
    for n, (cue, speech) in enumerate(lines):
        line = 2 * n + 2
        elements += [Element(kind=ElementKind.CHARACTER, text=cue, line_start=line, line_end=line, speaker=cue),
                     Element(kind=ElementKind.DIALOGUE, text=speech, line_start=line+1, line_end=line+1, speaker=cue)]
    scene = Scene(index=1, heading="审讯室·日·内", elements=elements, line_span=(1, 2 * len(lines) + 1))
    return Screenplay.model_construct(scenes=[scene])  # find_cast reads only the scenes


def test_a_chinese_cue_with_a_reduplicated_verb_glued_on_is_its_speaker():
    """'审讯官指指' (he points) and '审讯官支支吾吾' (stammering), cues a reader left whole, are
    审讯官's lines; '陈末妈妈' is a mother, not 陈末 (a kin word doubled)."""
    cast = find_cast(_cues_screenplay([("审讯官", "坐吧。"), ("老周", "谢谢。"), ("审讯官指指", "先量血压。"),
                                       ("陈末", "好。"), ("审讯官支支吾吾", "再观察吧。"), ("陈末妈妈", "他没事吧？"),
                                       ("审讯官", "没事。")]))
    assert cast.resolve("审讯官指指") == "审讯官" and cast.resolve("审讯官支支吾吾") == "审讯官"
    assert set(cast.speeches) == {"审讯官", "老周", "陈末", "陈末妈妈"}

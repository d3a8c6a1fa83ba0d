"""The Chinese line reader: headings, colon and own-line cues, △ action, transitions, wrapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgbuild.model import Element, ElementKind
from kgbuild.readers.chinese import chinese_elements
from kgbuild.readers.headings import parse_chinese_heading

H, A, C, P, D, T, B = (
    ElementKind.SCENE_HEADING, ElementKind.ACTION, ElementKind.CHARACTER,
    ElementKind.PARENTHETICAL, ElementKind.DIALOGUE, ElementKind.TRANSITION,
    ElementKind.PAGE_BREAK,
)


def _read(fixtures: Path, name: str) -> list[Element]:
    text = (fixtures / "chinese" / name).read_text(encoding="utf-8")
    elements, _ = chinese_elements(text.split("\n"))
    return elements


def _rows(elements: list[Element]) -> list[tuple]:
    return [
        (e.kind, e.text, e.speaker, e.extensions, e.line_start, e.line_end, e.number)
        for e in elements
    ]


def test_colon_layout_every_heading_form(fixtures: Path) -> None:
    assert _rows(_read(fixtures, "colon_layout.txt")) == [
        (H, "1 老师家 内 日", None, [], 1, 1, "1"),
        (A, "书房里堆满了旧报纸，台灯还亮着。", None, [], 2, 2, None),
        (C, "张父", "张父", [], 3, 3, None),
        (P, "（喝酒）", "张父", [], 3, 3, None),
        (D, "……", "张父", [], 3, 3, None),
        (C, "小红", "小红", [], 4, 4, None),
        (D, "爸，您少喝点。", "小红", [], 4, 4, None),
        (C, "张父一脸不耐烦", "张父", [], 5, 5, None),
        (D, "你管得着吗？", "张父", [], 5, 5, None),
        (C, "小红", "小红", [], 6, 6, None),
        (D, "我不管谁管。", "小红", [], 6, 6, None),
        (C, "张父", "张父", [], 7, 7, None),
        (D, "行了行了。", "张父", [], 7, 7, None),
        (A, "字幕：三年以后", None, [], 8, 8, None),
        (T, "切换。", None, [], 9, 9, None),
        (H, "2、日.外.青石崔", None, [], 10, 10, "2"),
        (A, "小红走在山路上，背着一个竹篓。", None, [], 11, 11, None),
        (C, "小红旁白", "小红", ["V.O."], 12, 12, None),
        (D, "那一年，我十六岁。", "小红", [], 12, 12, None),
        (C, "张父（画外音）", "张父", ["V.O."], 13, 13, None),
        (D, "小红，回来吃饭！", "张父", [], 13, 13, None),
        (H, "3. 日 外 青石岭", None, [], 14, 14, "3"),
        (T, "淡入。", None, [], 15, 15, None),
        (A, "路边的牌子上写着：前方施工，请绕行。", None, [], 16, 16, None),
        (C, "小红", "小红", [], 17, 17, None),
        (P, "（喘气）", "小红", [], 17, 17, None),
        (D, "终于到了。", "小红", [], 17, 17, None),
        (H, "第一场", None, [], 18, 18, "一"),
        (C, "张父", "张父", [], 19, 19, None),
        (D, "这是哪儿？", "张父", [], 19, 19, None),
        (H, "第1场", None, [], 20, 20, "1"),
        (C, "Tom", "TOM", [], 21, 21, None),
        (D, "Hello，小红。", "TOM", [], 21, 21, None),
        (C, "小红", "小红", [], 22, 22, None),
        (D, "Hi，Tom。", "小红", [], 22, 22, None),
        (H, "1.     王子神油店日内", None, [], 23, 23, "1"),
        (C, "张父", "张父", [], 24, 24, None),
        (D, "还开着门呢。", "张父", [], 24, 24, None),
        (H, "1、重庆市，日，外", None, [], 25, 25, "1"),
        (A, "雨一直下。", None, [], 26, 26, None),
        (H, "2、银行监控室，日，内", None, [], 27, 27, "2"),
        (T, "淡出", None, [], 28, 28, None),
    ]


def test_cue_on_its_own_line_padded_names(fixtures: Path) -> None:
    assert _rows(_read(fixtures, "cue_layout.txt")) == [
        (H, "第一场 张家客厅 夜 内", None, [], 1, 1, "一"),
        (A, "客厅里只开着一盏落地灯。", None, [], 3, 3, None),
        (C, "夫 人", "夫人", [], 5, 5, None),
        (P, "（放下茶杯）", "夫人", [], 6, 6, None),
        (D, "你今天又回来得这么晚。饭在锅里，自己热一下。", "夫人", [], 7, 8, None),
        (C, "张 父", "张父", [], 10, 10, None),
        (D, "我在厂里加班。", "张父", [], 11, 11, None),
        (C, "夫 人", "夫人", ["V.O."], 13, 13, None),
        (D, "加班加到半夜？", "夫人", [], 15, 15, None),
        (T, "叠化", None, [], 17, 17, None),
        (H, "第二场 厂房 日 外", None, [], 19, 19, "二"),
        (A, "机器轰鸣，工人们来来往往。", None, [], 21, 21, None),
        (T, "切至：", None, [], 22, 22, None),
    ]


def test_wrapped_pdf_text_is_joined_and_inner_cues_split(fixtures: Path) -> None:
    assert [(k, t, s, x, a, b) for k, t, s, x, a, b, _ in _rows(_read(fixtures, "wrapped.txt"))] == [
        (H, "第3场", None, [], 1, 1),
        (T, "淡入。", None, [], 2, 5),
        (A, "雨夜里，老周撑着伞站在码头边，远处的货船亮着灯，他一直望着江面出神。", None, [], 2, 5),
        (C, "老周旁白", "老周", ["V.O."], 2, 5),
        (D, "那年我三十岁，在码头上扛了十年的包。", "老周", [], 2, 5),
        (C, "阿芳", "阿芳", [], 2, 5),
        (P, "（跑过来）", "阿芳", [], 2, 5),
        (D, "周哥，船老大叫你。", "阿芳", [], 2, 5),
        (C, "老周", "老周", [], 2, 5),
        (D, "知道了，你先回去。", "老周", [], 2, 5),
        (C, "阿芳", "阿芳", [], 2, 5),
        (D, "你别又喝酒。", "阿芳", [], 2, 5),
        (C, "老周", "老周", [], 6, 6),
        (D, "我不喝。阿芳转身走了。", "老周", [], 6, 6),
        (B, "5", None, [], 7, 7),
        (A, "老周把伞收起来，慢慢地走向那艘货船，船上的人朝他招手，他回了一下头。", None, [], 8, 9),
        (T, "切换。", None, [], 10, 10),
    ]


def test_line_numbers_start_at_first_line() -> None:
    elements, _ = chinese_elements(["第2场", "张父：走吧。"], first_line=41)
    assert [(e.kind, e.line_start) for e in elements] == [(H, 41), (C, 42), (D, 42)]


def test_descriptive_prefix_needs_a_recurring_name() -> None:
    lines = ["程勇：交不出来啊。", "程勇一脸颓势：谢了。", "程勇爸爸：香烟。", "程勇爸爸无奈地：啊。",
             "程勇爸爸：气死我了。", "宾馆老板：房租赶紧付吧。"]
    elements, _ = chinese_elements(lines)
    assert [e.speaker for e in elements if e.kind is C] == [
        "程勇", "程勇", "程勇爸爸", "程勇爸爸", "程勇爸爸", "宾馆老板",
    ]


def test_colons_that_are_not_cues() -> None:
    lines = [
        "字幕：一代宗师",
        "邝科长和徐姐一起转动门上的扳手，嘴里喊着：转啊！",
        "对讲机里传来了声音：钱库有点耽误。",
        "墙上的钟指向十二点，他忽然想起那句话：人要往前看。",
    ]
    elements, _ = chinese_elements(lines)
    assert [e.kind for e in elements] == [A, A, A, A]
    assert [e.text for e in elements] == [line for line in lines]


def test_voice_markers_become_extensions() -> None:
    lines = ["吕受益OS：药效完全一样。", "于小慧画外音：你在哪儿？", "吕受益：走了。", "于小慧：嗯。",
             "刘波：（画外音）我在楼下。", "刘波：好。"]
    elements, _ = chinese_elements(lines)
    cues = [(e.speaker, e.extensions) for e in elements if e.kind is C]
    assert cues == [
        ("吕受益", ["O.S."]), ("于小慧", ["V.O."]), ("吕受益", []), ("于小慧", []),
        ("刘波", ["V.O."]), ("刘波", []),
    ]
    assert not [e for e in elements if e.kind is P]


def test_cue_after_a_sentence_inside_a_line() -> None:
    elements, _ = chinese_elements(["叶问在祠堂里练棍。叶问旁白：我是佛山人。", "叶问：请。"])
    assert [(e.kind, e.text) for e in elements[:3]] == [
        (A, "叶问在祠堂里练棍。"), (C, "叶问旁白"), (D, "我是佛山人。"),
    ]


def test_unrecognised_one_off_speakers_are_warned_about() -> None:
    _, warnings = chinese_elements(["收银：下次按月交啊。", "程勇：好。", "程勇：走了。"])
    assert [w.line for w in warnings] == [1]


def test_form_feed_does_not_end_a_wrapped_paragraph() -> None:
    width = "雨水从他的帽檐上滴下，一个人将铁链缠绕在手上，叶"
    lines = [width, "\f", "问严阵以待。", width, "问站着。"]
    elements, _ = chinese_elements(lines)
    assert [(e.text[-8:], e.line_start, e.line_end) for e in elements] == [
        ("，叶问严阵以待。", 1, 3), ("手上，叶问站着。", 4, 5),
    ]


def test_inside_location_is_not_int_when_ext_is_stated() -> None:
    h = parse_chinese_heading("3、面包车内，日，外")
    assert (h.number, h.int_ext, h.location, h.time_of_day) == ("3", "EXT", ["面包车内"], "日")
    assert parse_chinese_heading("1936年佛山").number is None


# Reference characters of the three Chinese STAGE movies that the cue inventory must cover.
# Many reference characters never speak (soldiers, children, crowds), so 1.0 is out of reach;
# the floors are what the rules reach today (measured: 0.581, 0.690, 0.420).
_STAGE_FLOORS = {
    "ch0c733d3c1e5b335c7a44a0c18d42e0b8ec40a841": 0.55,  # 一代宗师: OCR text, wrapped lines
    "ch48a3d3de9f887c24c526ff5db17160702612afcb": 0.65,  # 我不是药神: descriptive cue prefixes
    "chc287cf500dba3fdc512a55d138da55aa1b4d72c5": 0.40,  # 火锅英雄: narration-heavy
}


def _reference_characters(folder: Path, text: str) -> set[str]:
    results = json.loads((folder / "extraction_results.json").read_text(encoding="utf-8"))
    renames = json.loads((folder / "rename_map.json").read_text(encoding="utf-8"))
    names = {
        renames.get(e["name"], e["name"])
        for part in results.values()
        for e in part.get("entities", [])
        if e["type"] == "Character"
    }
    return {n for n in names if n in text}


@pytest.mark.parametrize("movie", sorted(_STAGE_FLOORS))
def test_stage_chinese_cue_coverage(shared_data: Path, movie: str) -> None:
    folder = shared_data / "stage" / "Chinese" / movie
    if not folder.is_dir():
        pytest.skip(f"{folder} not found")
    entries = json.loads((folder / "script.json").read_text(encoding="utf-8"))
    renames = json.loads((folder / "rename_map.json").read_text(encoding="utf-8"))
    lines = [ln for e in entries for ln in e["content"].split("\n")]
    elements, _ = chinese_elements(lines)
    speakers = {e.speaker for e in elements if e.kind is C}
    inventory = speakers | {renames.get(s, s) for s in speakers}
    reference = _reference_characters(folder, "".join(e["title"] + e["content"] for e in entries))
    coverage = len(reference & inventory) / len(reference)
    assert coverage >= _STAGE_FLOORS[movie], sorted(reference - inventory)
    # Precision side: the speakers who speak most are reference characters.
    counts = sorted(speakers, key=lambda s: -sum(1 for e in elements if e.kind is C and e.speaker == s))
    assert sum(1 for s in counts[:5] if renames.get(s, s) in reference) >= 4


# Cue-shaped text that is a sentence: the speaker is the sentence's subject, a name the script
# establishes; a verb, an adverb, a manner, a body part, a camera word or a place never speaks.
# The lines are written for this test.
SENTENCE_CUES = [
    "1、小院，日，外",
    "阿福：来了。",
    "阿福推开院门，抬头：有人吗？",
    "秀兰：在这儿。",
    "秀兰放下竹篮，然后指着屋里：进去坐。",
    "阿福看着她，惊叹：好大的院子！",
    "老郎中抬起头，眼睛盯着阿福：你是谁？",
    "老郎中放下药碗，轻声：坐吧。",
    "挑夫忽然：让一让！",
    "挑夫摆手：不用了。",
    "定格：一张旧照片。",
    "堂屋一角：",
    "阿福坐下喝茶。",
    "门开了，悄声：谁？",
    "阿福：“走吧！”秀兰跟了上去。“快点！”",
    "电台播音员：现在播报新闻。",
    "电台播音员：天气晴。",
]


def test_a_sentence_before_the_colon_is_spoken_by_its_subject() -> None:
    elements, _ = chinese_elements(SENTENCE_CUES)
    cues = {e.line_start: e.speaker for e in elements if e.kind is C}
    assert cues == {2: "阿福", 3: "阿福", 4: "秀兰", 5: "秀兰", 6: "阿福", 7: "老郎中", 8: "老郎中",
                    9: "挑夫", 10: "挑夫", 15: "阿福", 16: "电台播音员", 17: "电台播音员"}
    # A sentence after quoted speech is action; a voice named by a broadcast is heard through it.
    assert [(e.kind, e.text) for e in elements if e.line_start == 15][1:] == [
        (D, "“走吧！”"), (A, "秀兰跟了上去。"), (C, "阿福"), (D, "“快点！”")]
    assert [e.extensions for e in elements if e.kind is C and e.line_start == 16] == [["RADIO"]]
    # What the subject does before speaking stays action, in one piece.
    assert (A, "阿福推开院门，抬头") in [(e.kind, e.text) for e in elements]
    assert [(e.kind, e.text) for e in elements if e.line_start in (11, 12, 14)] == [
        (A, "定格：一张旧照片。"), (A, "堂屋一角：阿福坐下喝茶。"), (A, "门开了，悄声：谁？")]


def _speakers(lines: list[str]) -> list[tuple[str, str | None]]:
    elements, _ = chinese_elements(lines)
    return [(e.text, e.speaker) for e in elements if e.kind is C]


def test_a_verb_of_speaking_glued_to_a_cue_is_no_part_of_the_name() -> None:
    lines = [
        "1、仓库，日，内", "老周：都停一下。", "一个搬运工嘀咕：又停？", "老周：停。",
        "一个搬运工嘀咕：好吧。", "2、河堤，日，外", "杨林大吼：不是我！", "老周：是你。",
        "老周看着杨林认真地开口：我信你。",
    ]
    assert _speakers(lines) == [
        ("老周", "老周"), ("一个搬运工嘀咕", "搬运工"), ("老周", "老周"),
        ("一个搬运工嘀咕", "搬运工"), ("杨林大吼", "杨林"), ("老周", "老周"), ("老周", "老周"),
    ]
    # A sentence before the verb is no name: its subject speaks, what he does stays action.
    elements, _ = chinese_elements(lines)
    assert (A, "老周看着杨林认真地开口") in [(e.kind, e.text) for e in elements]


def test_a_stage_note_written_as_a_cue_that_says_nothing_is_action() -> None:
    lines = ["1、客厅，夜，内", "老周：说话啊。", "发呆：", "老周：好，不说。", "阿梅：我没有。"]
    elements, _ = chinese_elements(lines)
    assert (A, "发呆：", None) in [(e.kind, e.text, e.speaker) for e in elements]
    assert [s for _, s in _speakers(lines)] == ["老周", "老周", "阿梅"]


def test_a_name_ending_in_di_is_a_name_not_a_manner() -> None:
    # 地 after a noun is part of the name the script writes again and again ('豆子地'), not the
    # adverbial of a manner ('严肃地'); a sentence it opens is spoken by the whole name.
    lines = ["1、院子，日，外", "豆子地：走吧。", "阿梅：去哪？", "豆子地：河边。", "豆子地把门推开，回头：快点。",
             "阿梅：来了。", "豆子地：好。"]
    assert [s for _, s in _speakers(lines)] == ["豆子地", "阿梅", "豆子地", "豆子地", "阿梅", "豆子地"]

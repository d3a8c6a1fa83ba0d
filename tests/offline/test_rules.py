"""The offline rules one by one: assembly, headings, times, Chinese text, kinship, dialogue,
action clauses."""

from __future__ import annotations

import re

from kgbuild.evidence import quote_evidence
from kgbuild.model import Element, ElementKind, Scene, Screenplay, Source, SourceFormat
from kgbuild.offline.actions import clauses
from kgbuild.offline.address import listeners
from kgbuild.offline.chinese import add_chinese_sentences, owned, places, things
from kgbuild.offline.dialogue import Speech, attitude_cues
from kgbuild.offline.facts import Facts, RelationFinding
from kgbuild.offline.headings import heading_places
from kgbuild.offline.kinship import apposed_kin, calls_listener_kin, kin_in_name, speaker_kin
from kgbuild.offline.phrases import noun_phrases
from kgbuild.offline.scenes import ActionSentence
from kgbuild.offline.selection import assemble
from kgbuild.offline.stoplists import TIME_WORDS
from kgbuild.offline.times import is_title_card, years
from kgbuild.timewords import TIME_OF_DAY_WORDS


def _scene(heading: str, location: list[str], texts: list[str] = ()) -> Scene:
    elements = [Element(kind=ElementKind.ACTION, text=t, line_start=i + 2, line_end=i + 2)
                for i, t in enumerate(texts)]
    marker = re.match(r"(INT|EXT)\b", heading)
    return Scene(index=1, heading=heading, location=location, elements=elements,
                 line_span=(1, len(texts) + 1), int_ext=marker.group(1) if marker else None)


def _screenplay() -> Screenplay:
    source = Source(path="t.fountain", format=SourceFormat.FOUNTAIN, sha256="0" * 64, size_bytes=1)
    return Screenplay(title="t", language="en", source=source, scenes=[])


def test_assembly_keeps_what_has_evidence_and_both_ends():
    scene = _scene("INT. ROOM - DAY", ["ROOM"], ["Anna hugs Ben.", "Anna holds a knife."])
    hug = quote_evidence(scene, scene.elements[0], "Anna hugs Ben.", "rule:embrace")
    knife = quote_evidence(scene, scene.elements[1], "Anna holds a knife.", "rule:handles")
    facts = Facts()
    anna = facts.mention("person", "Anna", 1, "speaks", [hug])
    ben = facts.mention("person", "Ben", 1, "speaks", [hug])
    assert anna == ("Character", "Anna")  # the rules speak in roles; the schema gives the type
    facts.mention("thing", "knife", 1, "handles", [knife])
    facts.mention("thing", "spoon", 1, "handles", [])  # no evidence: not an entity
    facts.relate(ben, "affinity_with", anna, 1, "embrace", [hug])
    facts.relate(anna, "interacts_with", facts.ref("thing", "knife"), 1, "handles", [knife])
    facts.relate(anna, "interacts_with", facts.ref("thing", "spoon"), 1, "handles", [knife])
    facts.relate(anna, "hostility_with", ben, 1, "violence", [None])  # no evidence: not a relation
    assert [(type(r), r.rule) for r in facts.relations] == [
        (RelationFinding, "embrace"), (RelationFinding, "handles"), (RelationFinding, "handles")]
    graph = assemble(facts, _screenplay())
    names = {e.id: e.name for e in graph.entities}
    triples = {(names[r.source], r.type, names[r.target]) for r in graph.relations}
    # Symmetric relations are stored once, the smaller id first; the spoon never had evidence.
    assert triples == {("Anna", "affinity_with", "Ben"), ("Anna", "interacts_with", "knife")}
    assert set(names.values()) == {"Anna", "Ben", "knife"}
    assert all(f.evidence for f in [*graph.entities, *graph.relations])


def test_heading_places_clean_and_order():
    assert heading_places(_scene("INT. APARTMENT, CHICAGO - NIGHT", ["APARTMENT", "CHICAGO"])) == [
        "CHICAGO", "APARTMENT"]
    assert heading_places(_scene("INT. CARL'S HOUSE, LIVING ROOM - DAY", ["CARL'S HOUSE", "LIVING ROOM"])) == [
        "CARL'S HOUSE", "LIVING ROOM"]
    assert heading_places(_scene("INT. DINING ROOM, CLIFF HOUSE INN, COLORADO SPRINGS -- DUSK",
                                 ["DINING ROOM", "CLIFF HOUSE INN", "COLORADO SPRINGS"])) == [
        "COLORADO SPRINGS", "CLIFF HOUSE INN", "DINING ROOM"]
    assert heading_places(_scene("INT. AUDITORIUM, ALBERT HALL", ["AUDITORIUM", "ALBERT HALL"])) == [
        "ALBERT HALL", "AUDITORIUM"]
    assert heading_places(_scene("INT. SCALA THEATRE, ONSTAGE", ["SCALA THEATRE", "ONSTAGE"])) == [
        "SCALA THEATRE", "ONSTAGE"]
    assert heading_places(_scene("INT. STAGE THEATRE, BACKSTAGE", ["STAGE THEATRE", "BACKSTAGE"])) == [
        "STAGE THEATRE", "BACKSTAGE"]
    assert heading_places(_scene("INT. HOTEL ROOM, NEW YORK CITY", ["HOTEL ROOM", "NEW YORK CITY"])) == [
        "NEW YORK CITY", "HOTEL ROOM"]
    assert heading_places(_scene("EXT. STREET - SAME - INTERCUT", ["STREET", "SAME", "INTERCUT"])) == ["STREET"]
    assert heading_places(_scene("INT. CHURCH -", ["CHURCH -"])) == ["CHURCH"]
    # Furniture and camera notes are not places.
    assert heading_places(_scene("INT. CAFETERIA - TABLE", ["CAFETERIA", "TABLE"])) == ["CAFETERIA"]
    assert heading_places(_scene("EXT. VARIOUS EMMETT SHOTS", ["VARIOUS EMMETT SHOTS"])) == []
    assert heading_places(_scene("EXT. HOUSE - NIGHT [CONTINUOUS]", ["HOUSE", "NIGHT [CONTINUOUS]"])) == ["HOUSE"]
    assert heading_places(_scene("EXT. ROAD - NIGHT / LATER", ["ROAD", "NIGHT / LATER"])) == ["ROAD"]
    assert heading_places(_scene("EXT. ROAD - DAY [STORY]", ["ROAD", "DAY [STORY]"])) == ["ROAD"]
    assert heading_places(_scene("INT. CAR - [THE STORM]", ["CAR", "[THE STORM]"])) == ["CAR"]
    assert heading_places(_scene("EXT. FURTHER ALONG - ROUGH PATH", ["FURTHER ALONG", "ROUGH PATH"])) == [
        "ROUGH PATH"]
    assert heading_places(_scene("INT. TINY, GRUBBY THEATRE -- NIGHT", ["TINY", "GRUBBY THEATRE"])) == [
        "TINY, GRUBBY THEATRE"]
    assert heading_places(_scene("EXT. CEMETERY / GRAVESIDE - DAY", ["CEMETERY / GRAVESIDE"])) == ["CEMETERY"]
    assert heading_places(_scene("INT. 747 / FLYING - NIGHT", ["747 / FLYING"])) == ["747"]
    assert heading_places(_scene("INT. WILL'S CAR - DAY / DRIVING", ["WILL'S CAR", "DAY / DRIVING"])) == [
        "WILL'S CAR"]
    assert heading_places(_scene("街道日外", ["街道"])) == ["街道"]
    # Every time a reader knows (kgbuild.timewords) is kept out of the places.
    assert heading_places(_scene("EXT. DOCKS - THE NEXT MORNING - INTERCUT",
                                 ["DOCKS", "THE NEXT MORNING", "INTERCUT"])) == ["DOCKS"]
    assert heading_places(_scene("EXT. ROAD - A FEW MINUTES LATER - POV",
                                 ["ROAD", "A FEW MINUTES LATER", "POV"])) == ["ROAD"]
    assert heading_places(_scene("EXT. PIER - NIGHTFALL AT LOW TIDE", ["PIER", "NIGHTFALL AT LOW TIDE"])) == ["PIER"]


def test_time_words_stoplist_holds_every_time_of_day():
    assert TIME_OF_DAY_WORDS <= TIME_WORDS
    assert {"night", "dusk", "nightfall", "summer", "hour"} <= TIME_WORDS


def test_heading_and_title_card_years():
    assert years("EXT. LONDON - NIGHT (1897)") == ["1897"] and years("SCENE 1812A #12") == ["1812"]
    assert years("Room 12") == []
    assert is_title_card("SUPER: COLORADO SPRINGS, 1899") and not is_title_card("The 1812 Overture plays.")


def test_chinese_places_things_owners():
    assert places("他走进监控室") == ["监控室"]
    assert places("大厅里") == ["大厅"] and places("车内") == ["车内"]
    assert places("他慢慢站起来") == []
    assert things("司机接过对讲机", []) == ["对讲机"]
    assert things("阿强递给阿明一个打火机", ["阿强", "阿明"]) == ["打火机"]
    assert owned("阿明的手机一直在响", ["阿明"]) == [("阿明", "手机")]


def test_chinese_names_end_where_their_words_end():
    """Judged errors of the offline Chinese graphs: particles, verbs and adverbs glued to names,
    names cut short, body parts and positions as places or things."""
    names = ["刘波", "许东", "宫二", "程勇", "唐僧", "外公"]
    assert places("唐僧走到了柜台里", names) == []  # not '了柜台', and a counter is furniture
    assert places("他离开金库大门", names) == ["金库"] and places("他走到大门", names) == []  # a door
    assert places("外公在医务室门口的椅子上坐着", names) == ["医务室门口"]
    assert places("刘波跟在身后一瘸一拐地走着", names) == []  # a position and an adverb
    assert places("劫匪的刀刺进了刘波的腹部", names) == []  # a body part
    assert places("许东坐在地上", names) == [] and places("摸向腰间的手枪", names) == []
    assert places("眼镜正在收拾店铺", names) == []  # 正在: doing, not being somewhere
    assert places("于小慧哭着往工厂外跑", names) == []  # toward is not at
    assert places("未进宫家前", names) == []  # a negated movement
    assert places("望着窗外", names) == [] and places("病床上", names) == [] and places("另外", names) == []
    assert places("程勇卧室里", names) == ["程勇卧室"]
    assert things("拿着手里的戒指", names) == ["戒指"]  # not '手里的戒'
    assert things("警察将驾驶证递给了司机", names) == ["驾驶证"]  # the driver is given to
    assert things("程勇喝着酒拿着小卡片", names) == ["酒", "卡片"]
    assert things("曹斌抽了口烟", names) == ["烟"] and things("喝了一罐牛奶", names) == ["牛奶"]
    assert things("用手扇着鼻子", names) == [] and things("程勇把大家送上车", names) == []
    assert things("从墙上拿起包裹", names) == ["包裹"]
    assert things("刘波将包夹在咯吱窝", names) == ["包"]  # jieba's '包夹': the bag, then the verb
    assert things("劫匪用刀架在眼镜的脖子上", names) == ["刀"]  # not a knife rack
    assert things("程勇点着纸牌游戏", names) == []  # the game is played, not the cards handled
    assert owned("许东揪住许东的衣领", names) == []  # '衣' is not the collar
    assert owned("刘波的脑袋", names) == [] and owned("电脑上显示着刘波的照片", names) == []


def test_chinese_handling_belongs_to_the_subject_before_the_verb():
    facts = Facts()
    texts = ["刘波站起身来，从墙上拿起包裹。", "一个人将铁链缠在手上。", "医生将彭浩的尸袋打开。"]
    scene = _scene("银行日内", ["银行"], texts)
    sents = [ActionSentence(element=e, text=e.text, spans=[], phrases=[]) for e in scene.elements]
    add_chinese_sentences(facts, scene, sents, ["刘波", "彭浩"])
    handled = {(r.subject[1], r.object[1]) for r in facts.relations if r.type == "interacts_with"}
    assert handled == {("刘波", "包裹")}  # not the chain nor the body bag: others handle them


def test_kinship_cues():
    assert kin_in_name("Ben's Mother", {"Ben", "Ben's Mother"}) == ("Ben", "Mother")
    assert kin_in_name("Ben's Car", {"Ben", "Ben's Car"}) is None
    assert kin_in_name("程勇儿子", {"程勇", "程勇儿子"}) == ("程勇", "儿子")
    assert kin_in_name("张三", {"张三", "张"}) is None
    assert calls_listener_kin("Mom, listen to me.") and calls_listener_kin("Not now, Dad.")
    assert calls_listener_kin("爸，你别管了。")
    assert calls_listener_kin("My dad is away.") is None and calls_listener_kin("爸爸不在家。") is None
    # 'son' and 'father' are said to strangers and priests.
    assert calls_listener_kin("Listen, son.") is None and calls_listener_kin("Father, forgive me.") is None
    text = "Borden's daughter, JESS, runs in."
    spans = [(0, 6, "Borden"), (18, 22, "Jess")]
    assert [(k, o) for k, o, _ in apposed_kin(text, spans)] == [("Jess", "Borden")]
    # A kin word with no name beside it ties no one.
    assert apposed_kin("Jess waves. Borden's daughter runs.", [(0, 4, "Jess"), (12, 18, "Borden")]) == []
    assert [n for n, _ in speaker_kin("This is my wife, Sarah.", [(17, 22, "Sarah")])] == ["Sarah"]
    assert speaker_kin("Sarah, my husband is a bore.", [(0, 5, "Sarah")]) == []
    assert speaker_kin("My husband is a bore, Sarah.", [(22, 27, "Sarah")]) == []


def _speech(speaker: str, text: str, away: bool = False) -> Speech:
    cue = Element(kind=ElementKind.CHARACTER, text=speaker.upper(), line_start=1, line_end=1, speaker=speaker)
    line = Element(kind=ElementKind.DIALOGUE, text=text, line_start=2, line_end=2, speaker=speaker)
    return Speech(speaker, text, cue, (line,), away)


def test_listeners_are_settled_by_the_text_only():
    import re

    vocatives = {"Ben": re.compile(r"^\W*(?:Ben)\s*[,!?]|,\s*(?:Ben)\s*[.!?]+[\"']?\s*$")}
    two = [_speech("Anna", "Sit down."), _speech("Ben", "No.")]
    assert listeners(two, 0, {"Anna", "Ben"}, {}) == [("Ben", "two_speakers")]
    # Two named speakers among a crowd's voices (ALL, '一人应和') are not the whole conversation.
    assert listeners(two, 0, {"Anna", "Ben"}, {}, other_voices=True) == []
    three = [_speech("Anna", "Sit down."), _speech("Ben", "No."), _speech("Cleo", "Quiet.")]
    assert listeners(three, 0, {"Anna", "Ben", "Cleo"}, {}) == []
    assert listeners([_speech("Anna", "Sit down, Ben."), *three[1:]], 0, {"Anna", "Ben", "Cleo"},
                     vocatives) == [("Ben", "vocative")]
    # Presenting Ben to someone else calls no one.
    assert listeners([_speech("Anna", "This is our youngest, Ben."), *three[1:]], 0, {"Anna", "Ben", "Cleo"},
                     vocatives) == []
    exchange = [_speech("Ben", "Well?"), _speech("Anna", "Sit down."), _speech("Ben", "No."),
                _speech("Cleo", "Quiet.")]
    assert listeners(exchange, 1, {"Anna", "Ben", "Cleo"}, {}) == [("Ben", "exchange")]
    asked = [_speech("Anna", "Who did it?"), _speech("Ben", "Cleo did."), _speech("Cleo", "Did not!")]
    assert listeners(asked, 1, {"Anna", "Ben", "Cleo"}, {}) == [("Anna", "answer")]
    assert listeners(asked, 2, {"Anna", "Ben", "Cleo"}, {}) == []
    narrated = [_speech("Anna", "I remember him.", away=True), _speech("Ben", "Hi.")]
    assert listeners(narrated, 0, {"Ben"}, {}) == []


def test_attitude_cues():
    assert [c.relation for c, _ in attitude_cues("Thank you so much for the lift, Neil.")] == ["favorable_toward"]
    # Manners and dismissals are not warmth.
    assert attitude_cues("Thank you for playing, Mr. Dalton.") == [] and attitude_cues("Thanks.") == []
    assert [c.relation for c, _ in attitude_cues("I'll kill you.")] == ["hostility_with"]
    assert [c.relation for c, _ in attitude_cues("You're a liar.")] == ["unfavorable_toward"]
    # Love and endearments are one side's attitude; a tie needs both sides (`mutual_warmth`).
    assert [c.rule for c, _ in attitude_cues("I love you, darling.")] == ["love", "endearment"]
    assert {c.relation for c, _ in attitude_cues("I love you, darling.")} == {"favorable_toward"}
    assert attitude_cues("You can't kill time.") == [] and attitude_cues("See you tomorrow.") == []


def _clauses(sentence: str, names: list[str], previous: str | None = None):
    spans = []
    for name in names:
        for i in [m for m in range(len(sentence)) if sentence.startswith(name, m)]:
            spans.append((i, i + len(name), name))
    return clauses(sentence, sorted(spans), noun_phrases(sentence, names=frozenset(names)), frozenset(),
                   previous)


def test_action_clauses():
    [hand] = _clauses("Neil hands Todd the letter.", ["Neil", "Todd"])
    assert hand.event_name() == "Neil hands Todd the letter"
    assert _clauses("Neil and Todd grab the box.", ["Neil", "Todd"])[0].subjects == ("Neil", "Todd")
    # Not a clause: a name owned or after 'of', a look shot at someone, a name not starting a clause.
    assert _clauses("The footage of Lang plays on the screen.", ["Lang"]) == []
    assert _clauses("Sophie shoots Markus a look.", ["Sophie", "Markus"]) == []
    assert _clauses("Neil's pen falls.", ["Neil"]) == []
    [slap] = _clauses("Cameron slaps Todd on the back.", ["Cameron", "Todd"])
    assert slap.friendly
    assert _clauses("He grabs the gun.", ["Neil"], previous="Neil")[0].subjects == ("Neil",)
    assert _clauses("He grabs the gun.", ["Neil"], previous=None) == []


def test_voices_out_of_frame_or_away_are_not_shown_in_the_scene():
    from kgbuild.offline.characters import Cast
    from kgbuild.offline.dialogue import scene_speeches

    def cue(name: str, ext: list[str], line: int) -> list[Element]:
        return [Element(kind=ElementKind.CHARACTER, text=name, line_start=line, line_end=line, speaker=name,
                        extensions=ext),
                Element(kind=ElementKind.DIALOGUE, text="Hello.", line_start=line + 1, line_end=line + 1,
                        speaker=name)]

    scene = Scene(index=1, heading="INT. HALL - DAY", location=["HALL"], line_span=(1, 9),
                  elements=[*cue("ANNA", ["O.S."], 2), *cue("BEN", ["V.O."], 4), *cue("CLEO", [], 6)])
    cast = Cast(canonical={"ANNA": "Anna", "BEN": "Ben", "CLEO": "Cleo"})
    speeches = scene_speeches(scene, cast)
    assert [(s.speaker, s.away, s.offscreen) for s in speeches] == [
        ("Anna", False, True), ("Ben", True, False), ("Cleo", False, False)]


def test_a_name_in_an_insert_or_after_of_is_not_someone_shown():
    from kgbuild.offline.scenes import ActionSentence

    def shown(text: str, spans: list[tuple[int, int, str]]) -> list[str]:
        el = Element(kind=ElementKind.ACTION, text=text, line_start=1, line_end=1)
        return ActionSentence(el, text, spans, []).shown()

    assert shown("Cutter waits by the tank.", [(0, 6, "Cutter")]) == ["Cutter"]
    assert shown("INSERT CUT: ANGIER SCREAMING BUBBLES", [(12, 18, "Angier")]) == []
    assert shown("She holds a photo of Sarah.", [(21, 26, "Sarah")]) == []
    assert shown("Borden's hat lies there.", [(0, 6, "Borden")]) == []
    assert shown("It reveals TESLA'S MACHINE.", [(11, 16, "Tesla")]) == []


def test_a_heading_without_int_or_ext_names_a_place_only_by_its_words():
    # Sub-headings cut as scene titles: shots and sentences are no places.
    for heading in ["TWO MEN HIDE IN THE NEARBY WOODS", "THE BROTHERS", "A BURNING TRUCK", "SEEN FROM ABOVE",
                    "ZUS OPENS FIRE", "THEY WADE IN", "SEVERAL MORE REFUGEES", "UP AHEAD", "SUDDENLY",
                    "A SPOTTER PLANE BUZZES HIGH ABOVE", "THE CAMP HAS BEGUN TO SHOW PROGRESS", "117A"]:
        assert heading_places(_scene(heading, [heading])) == [], heading
    places = {
        "A REMOTE FARM": ["A REMOTE FARM"],
        "IN THE LOFT": ["THE LOFT"],
        "BACK AT THE STAFF CAR": ["THE STAFF CAR"],
        "THE FOREST AT DUSK": ["THE FOREST"],
        "AN ALLEY WAY IN NOVAGRUDOK": ["AN ALLEY WAY IN NOVAGRUDOK"],
        "NOVAGRUDOK": ["NOVAGRUDOK"],
    }
    for heading, want in places.items():
        assert heading_places(_scene(heading, [heading])) == want, heading
    # A bare name after a part that is a sentence is no place; nor is a speaker's name.
    assert heading_places(_scene("TUVIA STANDS THERE, FROZEN", ["TUVIA STANDS THERE", "FROZEN"])) == []
    assert heading_places(_scene("ZUS", ["ZUS"]), speakers=frozenset({"ZUS"})) == []
    # With INT. or EXT. the heading is a place as before.
    assert heading_places(_scene("EXT. COLORADO SPRINGS - DUSK", ["COLORADO SPRINGS"])) == ["COLORADO SPRINGS"]

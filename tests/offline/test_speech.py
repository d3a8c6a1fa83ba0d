"""Whom a speech is aimed at, on small screenplays written for these tests: a listener is in the
room when the words are said, is not the one they speak of, and a line read or sung, asked or
said of someone else shows no attitude toward the one who hears it."""

from __future__ import annotations

from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

REHEARSAL = """Title: The Understudy

INT. GRAND THEATRE - NIGHT

OTTO sits in the front row. He folds his arms.

WALTER paces the stage. He stops at the footlights.

GRETA waits by the piano. She hums a scale.

OTTO
Again. From the top of the act.

Walter takes her hand.

WALTER
You were always the braver of us two. I love you.

OTTO
Better. Much better.

INT. OTTO'S OFFICE - DAY

Greta sits on the desk. She opens an envelope.

Otto pours coffee. He waits.

GRETA
(reading)
Dear sir, you are a liar and a fraud.

OTTO
Who sent that?

GRETA
A friend of yours.

OTTO
Are you a thief or something?

GRETA
Only on Sundays.

INT. HOTEL LOBBY - DAY

Walter crosses to the desk, where KARL, the night porter, reads a newspaper.

WALTER
Dad, it's me.

KARL
I'm not your father. Go home, son.

INT. BACKSTAGE KITCHEN - NIGHT

Greta and Walter chop onions. Otto sets the table.

OTTO
Dinner in five minutes.

Otto walks out.

WALTER
Taste this.

INT. REHEARSAL ROOM - DAY

Otto, Walter and Greta stand around a table.

WALTER
I had to come back.

OTTO
Why is Walter back on my stage?

WALTER
Because the play needs me.

GRETA
Can we stop for a while?

OTTO
Everyone, take five.

GRETA
Thank heavens.

WALTER
(to Greta)
Pass me the script.

OTTO
Now.
"""

COURTYARD = """1 厨房 夜 内

秀兰和老周在做饭。

大娘：我来吧！

大娘推门走了。

老周：尝尝。

2 院子 日 内

大娘领着秀兰走进院子。小军走了进来。

大娘：这是我家老二，小军。

小军：我爹让我挑水。

秀兰：大娘，我帮您。

3 街道 日 外

老周：那个混蛋又来了。

秀兰：别理他。

4 会场 日 内

老周、秀兰、小军坐在台下。

大娘：大家安静一下。

老周：好。

5 河边 日 外

老周：你这个骗子！

秀兰：我没骗你。

6 山谷 日 外

老周：你们看见了吗？

小军：我弄死你妈呀！
"""


def _relations(tmp_path, text: str, name: str, embedder) -> set[tuple[str, str, str, int]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    graph = extract_offline(read_screenplay(path), embedder=embedder)
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source], r.type, names[r.target], scene) for r in graph.relations for scene in r.scenes}


def test_a_listener_is_the_one_the_words_are_aimed_at(tmp_path, embedder):
    facts = _relations(tmp_path, REHEARSAL, "rehearsal.fountain", embedder)
    spoken = {(a, b, s) for a, t, b, s in facts if t == "speaks_to"}
    # Walter, taking her hand, plays the scene to Greta, not to the director; a line of the
    # play is no attitude of his.
    assert ("Walter", "Otto", 1) not in spoken and ("Walter", "Greta", 1) in spoken
    assert not any(t == "favorable_toward" for _, t, _, _ in facts)
    # A letter read aloud and a question are no insult to the one who hears them.
    assert ("Greta", "Otto", 2) in spoken
    assert not any(t == "unfavorable_toward" for _, t, _, _ in facts)
    # 'Dad' that the next line denies is no kinship.
    assert ("Walter", "Karl", 3) in spoken
    assert not any(t == "kinship_with" for _, t, _, _ in facts)
    # Otto has walked out: Walter speaks to Greta, not to him.
    assert ("Walter", "Otto", 4) not in spoken
    # Otto speaks of Walter, not to him; 'Everyone' speaks to the room, not to Greta; a
    # direction says whom a speech is for.
    assert ("Otto", "Walter", 5) not in spoken
    assert ("Otto", "Greta", 5) not in spoken
    assert ("Walter", "Greta", 5) in spoken


def test_a_chinese_listener_is_in_the_room_and_called_not_introduced(tmp_path, embedder):
    facts = _relations(tmp_path, COURTYARD, "courtyard.txt", embedder)
    spoken = {(a, b, s) for a, t, b, s in facts if t == "speaks_to"}
    assert ("老周", "大娘", 1) not in spoken  # 大娘推门走了: she is gone
    assert ("大娘", "小军", 2) not in spoken  # '这是我家老二，小军' presents him to 秀兰
    assert ("秀兰", "大娘", 2) in spoken  # '大娘，我帮您' calls her
    assert ("大娘", "老周", 4) not in spoken  # '大家安静一下' speaks to the room
    insults = {(a, b, s) for a, t, b, s in facts if t == "unfavorable_toward"}
    # '那个混蛋' is said of someone else; '你这个骗子' to the listener.
    assert ("老周", "秀兰", 3) not in insults and ("老周", "秀兰", 5) in insults
    # '我弄死你妈' is a curse, not a threat to the one who hears it.
    assert not any(t == "hostility_with" for _, t, _, _ in facts)


def test_the_pieces_of_whom_words_are_aimed_at():
    import re

    from kgbuild.model import Element, ElementKind
    from kgbuild.offline.address import direction, talked_about
    from kgbuild.offline.comings import Move, in_room
    from kgbuild.offline.dialogue import Direction, Speech, attitude_cues
    from kgbuild.offline.kinship import denies_kin

    patterns = {"Walter": re.compile(r"\bWalter\b"), "Greta": re.compile(r"\bGreta\b")}
    assert talked_about("Why is Walter back on my stage?", "Walter", patterns)
    assert not talked_about("Thank you Walter, that will do.", "Walter", patterns)  # a call
    assert not talked_about("Walter looks at Greta.", "Walter", patterns)  # an action line glued to a speech
    cue = Element(kind=ElementKind.CHARACTER, text="OTTO", line_start=1, line_end=1, speaker="Otto")
    said = Speech("Otto", "Sit.", cue, (), False, directions=(Direction("(to Greta, softly)", 0, True),))
    assert direction(said, patterns) == ("Greta", True)
    crowd = Speech("Otto", "Sit.", cue, (), False, directions=(Direction("(to all, especially Greta)", 0, True),))
    assert direction(crowd, patterns) == (None, True)
    assert [c.rule for c, _ in attitude_cues("我发现你就是个骗子，干嘛？")] == ["insult_zh"]
    assert attitude_cues("Are you a murderer or something?") == [] and attitude_cues("你是骗子吗？") == []
    assert attitude_cues("那个混蛋又来了。") == [] and attitude_cues("Do you think I'm going to hurt you?") == []
    assert denies_kin("Look, pal, I'm not your father.") and denies_kin("我不是你爸！")
    assert denies_kin("I'm not your friend.") is None and denies_kin("我不是你女朋友。") is None
    seen = {"Otto": [2, 10], "Walter": [2]}
    moves = [Move("Otto", 5, "goes"), Move("Otto", 10, "comes"), Move("Walter", 2, "goes")]
    assert in_room("Walter", 8, seen, moves)  # leaving at his first sighting is coming in
    assert not in_room("Otto", 8, seen, moves) and in_room("Otto", 12, seen, moves)
    # Seen again with no arrival between: 'Max leaves... then turns back to Henry'.
    assert in_room("Otto", 8, seen, [Move("Otto", 5, "goes")])
    # Not there before he comes in, unless he comes in right after the speech that greets him.
    assert not in_room("Greta", 3, {"Greta": [7]}, [Move("Greta", 7, "comes")], upto=5)
    assert in_room("Greta", 3, {"Greta": [7]}, [Move("Greta", 7, "comes")], upto=9)


OBSERVATORY = """Title: The Night Shift

INT. OBSERVATORY CONTROL ROOM - NIGHT

CAPTAIN RAY HOLT, fifties, sits at the back. He reads a report. VERA and OSKAR work the consoles.

OSKAR
Captain... I'm getting something on the long band.

VERA
Put it on the speakers.

HOLT
Wait. Not yet.

VERA
Yes, Captain Holt.

INT. LAB - DAY

NELL sits by the monitor. Her son TOBY paces behind her. She types.

On the monitor is KELLER. He smiles.

KELLER
We have new orders.

TOBY
Make him say it, mother! Who gave the orders?

KELLER
The orders come from the board.

TOBY
I knew it!

NELL
This is completely improper, Keller.

INT. LAB - LATER

Nell and Toby lean over the desk. Keller sits at a table behind them. He yawns.

NELL
Can anyone hear me?

Keller stares at the ceiling. Toby drops a cup.

TOBY
Who said that?

KELLER
(more to himself than to Toby)
Keller, you old fool.

INT. HOLT'S CABIN - NIGHT

Holt and Vera sit by the window.

HOLT
Don't wait up for me, sweetheart.

VERA
You never change, Holt.

INT. PORCH - NIGHT

Toby writes a letter. Nell sits beside him.

NELL
I don't know. "Get well. I love you."

TOBY
Mom, this is my fiance, Vera. I told you.

INT. VERA'S ROOM - NIGHT

Vera and Toby sit on the bed.

VERA
I love you, darling.

TOBY
I love you too, darling.

INT. RADIO ROOM - NIGHT

Vera sits at the radio alone.

HOLT (FILTERED)
Vera, come in. Do you read me?

VERA
Loud and clear.

INT. PORCH - LATER

Nell sits alone on the porch.

TOBY (V.O.)
I always knew, Nell, that you would leave us.

INT. GALLEY - DAY

Vera, Toby and Nell eat in silence.

NELL
Oh, Vera, you look tired.
"""


def test_titles_kin_words_of_address_and_warmth_both_ways(tmp_path, embedder):
    facts = _relations(tmp_path, OBSERVATORY, "observatory.fountain", embedder)
    spoken = {(a, b, s) for a, t, b, s in facts if t == "speaks_to"}
    # 'Captain...' alone fits whoever holds the rank; 'Captain Holt' calls him.
    assert ("Oskar", "Captain Ray Holt", 1) not in spoken
    assert ("Vera", "Captain Ray Holt", 1) in spoken
    # 'mother' is not said to Keller, and his reply to it is no reply to Toby.
    assert ("Toby", "Keller", 2) not in spoken and ("Keller", "Toby", 2) not in spoken
    # 'This is completely improper, Keller.' introduces no one: it calls him.
    assert ("Nell", "Keller", 2) in spoken
    # Words more to himself than to Toby are to no one.
    assert ("Keller", "Toby", 3) not in spoken
    # One side's endearment is that side's attitude; warmth both ways is a tie.
    assert ("Captain Ray Holt", "favorable_toward", "Vera", 4) in facts
    assert not any(t == "affinity_with" and {a, b} == {"Captain Ray Holt", "Vera"} for a, t, b, _ in facts)
    # Words suggested for a letter are not the speaker's; an engagement is no kin tie.
    assert not any(t == "favorable_toward" and a == "Nell" for a, t, _, _ in facts)
    assert not any(t == "kinship_with" and "Vera" in (a, b) for a, t, b, _ in facts)
    assert {(a, b) for a, t, b, s in facts if t == "affinity_with" and s == 6} in ({("Toby", "Vera")},
                                                                                    {("Vera", "Toby")})
    # A voice on a radio calls whom it names; a narrator's voice-over speaks to no one there.
    assert ("Captain Ray Holt", "Vera", 7) in spoken
    assert ("Toby", "Nell", 8) not in spoken
    # A call after an interjection.
    assert ("Nell", "Vera", 9) in spoken

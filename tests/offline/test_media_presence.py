"""Who the offline graph puts at a scene's heading place when the text shows someone only through
a medium: a voice on the phone (and the call going on under plain cues), a face on a screen or a
laptop, a photograph, a poster, a sign or a caller display, or a line saying they are gone."""

from __future__ import annotations

from kgbuild.extraction.presence import read_presence
from kgbuild.model import PresenceMode
from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = """Title: Voices and Screens

INT. KITCHEN - NIGHT

NORA BELL (40s) stirs a pot. Her phone buzzes. Call display: MARK.

NORA
Hello?

MARK (V.O.)
I'm stuck at the office again.

NORA
Again?

MARK
Put me on the laptop, I want to see the kids.

Nora props the laptop on the counter and MARK appears, tie loosened.

MARK
There they are.

INT. HOSPITAL WARD - NIGHT

CLOSE ON TV, Victor is in the middle of his monologue.

VICTOR
(on TV)
Good evening, everybody!

Victor laughs at his own joke. Ruth lies in bed, watching.

RUTH
He's funny.

INT. STATION LOBBY - DAY

Ruth studies a faded photograph of Owen, taped to the wall.

A poster hangs by the door, featuring the whole cast, including CLARA.

The marquee reads: "TONIGHT ONLY. Victor."

RUTH
Nobody comes here.

INT. KITCHEN - LATER

Mark is gone. Nora sits at the table.

NORA
Fine.

INT. GARAGE - DAY

Owen's sitting on the hood of the car. Clara hands him a wrench.

OWEN
Thanks.

CLARA
Sure.

EXT. ROOFTOP - NIGHT

Mark smokes alone. His phone rings.

MARK
Nora?

NORA (OVER PHONE)
Come home.

MARK
Soon.
"""


def _build(tmp_path):
    path = tmp_path / "script.fountain"
    path.write_text(SCRIPT, encoding="utf-8")
    screenplay = read_screenplay(path)
    return screenplay, extract_offline(screenplay)


def test_a_voice_a_screen_a_picture_or_print_is_not_someone_at_the_heading_place(tmp_path):
    _, graph = _build(tmp_path)
    names = {e.id: e.name for e in graph.entities}
    located = {(names[r.source].split()[0], names[r.target]) for r in graph.relations if r.type == "located_at"}
    assert ("Nora", "Kitchen") in located and ("Ruth", "Hospital Ward") in located
    assert ("Mark", "Kitchen") not in located  # a caller display, a voice-over on the phone, then the video call
    assert ("Victor", "Hospital Ward") not in located  # on TV, and still on TV when he laughs
    assert ("Ruth", "Station Lobby") in located
    assert {("Owen", "Station Lobby"), ("Clara", "Station Lobby"), ("Victor", "Station Lobby")}.isdisjoint(located)
    assert ("Owen", "Garage") in located and ("Clara", "Garage") in located  # "Owen's sitting": he is there
    assert ("Nora", "Rooftop") not in located and ("Mark", "Rooftop") in located  # over the phone
    assert {"Mark", "Victor", "Owen", "Clara"} <= {n.split()[0] for n in names.values()}  # still characters


def test_the_scene_layer_says_how_each_one_is_there(tmp_path):
    screenplay, graph = _build(tmp_path)
    layer = read_presence(screenplay, graph)
    names = {e.id: e.name.split()[0] for e in graph.entities}
    modes = {(r.index, names[p.character]): p.mode for r in layer.records for p in r.presence}
    assert modes[(1, "Mark")] is PresenceMode.AWAY and modes[(1, "Nora")] is PresenceMode.PRESENT
    assert modes[(2, "Victor")] is PresenceMode.AWAY and modes[(2, "Ruth")] is PresenceMode.PRESENT
    assert modes[(3, "Owen")] is PresenceMode.AWAY and modes[(3, "Clara")] is PresenceMode.AWAY
    assert modes[(4, "Mark")] is PresenceMode.MENTIONED  # 'Mark is gone.'
    assert modes[(6, "Nora")] is PresenceMode.AWAY


ZH = """1 程勇家 夜 内

程勇坐在沙发上。

吕受益（电话里）：程老板，出事了。

程勇：我马上来。

吕受益：快点。

2 医院 日 内

吕受益躺在病床上。

吕受益：你来了。
"""


def test_a_chinese_voice_on_the_phone_is_not_at_the_heading_place(tmp_path):
    path = tmp_path / "script.txt"
    path.write_text(ZH, encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    names = {e.id: e.name for e in graph.entities}
    located = {(names[r.source], names[r.target]) for r in graph.relations if r.type == "located_at"}
    assert ("程勇", "程勇家") in located and ("吕受益", "医院") in located
    assert ("吕受益", "程勇家") not in located  # '（电话里）', and the call goes on under his plain cue

"""Who is at the other end of a call taken up in the scene, or on a screen a capitalised shot
opens on, is not at the scene's place (`kgbuild.offline.scenes.scene_sights`)."""

from __future__ import annotations

from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = """Title: The Other End

INT. DINER - NIGHT

Ada Quill wipes the counter. Her cell buzzes in her apron. She answers it.

BRUNO
Ada! I've been calling you all night.

ADA
Where are you?

BRUNO
Across town. Stay put.

INT. GARAGE - DAY

Felix Orr sits on a crate. The desk phone sits by him. Felix takes the phone.

FELIX
Yeah?

DORA
They're on their way.

INT. DEN - NIGHT

ON THE TV is the late bulletin: a reporter at a fire.

GRETA
Everyone got out safe.

WIDER - REVEAL Felix on the couch, watching.

FELIX
Good.

INT. KITCHEN - DAY

Ada Quill and Felix Orr argue by the stove. A phone hangs on the wall.

ADA
You never listen.

HUGO
Both of you, stop it.
"""


def test_the_far_end_of_a_call_and_who_a_screen_shot_shows_are_not_there(tmp_path):
    path = tmp_path / "script.fountain"
    path.write_text(SCRIPT, encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    names = {e.id: e.name for e in graph.entities}
    located = {(names[r.source].split()[0], names[r.target]) for r in graph.relations if r.type == "located_at"}
    assert ("Ada", "Diner") in located and ("Bruno", "Diner") not in located  # she answers: he calls
    assert ("Felix", "Garage") in located and ("Dora", "Garage") not in located  # he takes the phone
    assert ("Greta", "Den") not in located and ("Felix", "Den") in located  # on the TV; then revealed
    assert ("Hugo", "Kitchen") in located  # a phone on the wall, taken up by no one: he is in the room

"""Who a picture, print or a list of names shows is not at the scene's place; who looks at it is:
the medium nearest the name ('a torn photo of Hal with Greta'), print by or on someone ('articles
by Greta', 'a file on Greta'), a list going on past a semicolon ('a portrait of Hal; Hal at a
parade'), one identified in a picture ('The man is Hal') and a list of names ('Two names: ...')."""

from __future__ import annotations

from kgbuild.offline import extract_offline
from kgbuild.readers import read_screenplay

SCRIPT = """Title: Pictures

INT. IRVING'S DEN - DAY

Irving sits at the desk. Spread out before him: old receipts, the bank statements,
clippings of articles by Greta, newspaper pictures of Oscar, of Dora, of the mayor
with his wife, a torn photo of Oscar with Greta.

IRVING
Where did it go wrong?

INT. IRVING'S DEN - NIGHT

On the photograph a man and a woman on a bench in the park. The man is Oscar and the woman is Greta.

Irving looks at a file on Oscar and Dora.

IRVING
Enough.

INT. UPSTAIRS HALL - DAY

ON THE FAR WALL -- a framed portrait of Oscar and Irving; Oscar at a parade, waving.

Irving stares at it.

INT. RECORDS ROOM - DAY

Irving types. Two names: Dora Vance, Greta Lind.

IRVING
Found them.

INT. KITCHEN - DAY

Oscar and Greta eat soup. Dora watches them.

OSCAR
Good soup.

GRETA
Thanks.

DORA
Sure.
"""


def test_who_a_picture_print_or_a_list_shows_is_not_at_the_place(tmp_path):
    path = tmp_path / "script.fountain"
    path.write_text(SCRIPT, encoding="utf-8")
    graph = extract_offline(read_screenplay(path))
    names = {e.id: e.name for e in graph.entities}
    located = {(names[r.source].split()[0], names[r.target]) for r in graph.relations if r.type == "located_at"}
    assert ("Irving", "Irving's Den") in located and ("Irving", "Upstairs Hall") in located
    assert ("Irving", "Records Room") in located
    assert ("Greta", "Irving's Den") not in located  # articles by her, a photo of Oscar with her, 'the woman is Greta'
    assert ("Oscar", "Irving's Den") not in located  # in pictures, 'the man is Oscar', a file on him
    assert ("Dora", "Irving's Den") not in located  # a file on Oscar and Dora
    assert ("Oscar", "Upstairs Hall") not in located  # the portrait's list goes on past the semicolon
    assert ("Dora", "Records Room") not in located and ("Greta", "Records Room") not in located
    assert {("Oscar", "Kitchen"), ("Greta", "Kitchen"), ("Dora", "Kitchen")} <= located

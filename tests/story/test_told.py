"""What a character is told, on a small screenplay written for this test: a speech tells of an
earlier event in a past form, and an action line a reader joined to a speech tells nothing."""

from __future__ import annotations

from kgbuild.pipeline import run_build

TWO_LETTERS = """Title: Two Letters

INT. PARLOUR - DAY

ANNA sits alone by the fireplace.

ANNA
No one will read it.

Anna burns the letter. Anna tears the photograph.

INT. KITCHEN - NIGHT

Clara and Ben sit by the stove.

CLARA
It was not my fault, Ben.
Anna tears the photograph:

BEN
What?

CLARA
Anna burned the letter, you know.
"""


def test_a_telling_is_in_a_past_form_not_an_action_line_in_a_speech(tmp_path):
    path = tmp_path / "two-letters.fountain"
    path.write_text(TWO_LETTERS, encoding="utf-8")
    graph = run_build(path).graph
    names = {e.id: e.name for e in graph.entities}
    told = {(names[r.source], names[r.target]) for r in graph.relations if r.type == "told_about"}
    assert ("Ben", "Anna burns the letter") in told
    assert not any(event.startswith("Anna tears") for _, event in told)

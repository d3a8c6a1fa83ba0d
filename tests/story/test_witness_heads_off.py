"""Who witnesses an event: not one who heads off for a place the heading does not name ('heads back
toward the van'), leaves by a verb joined to another of theirs ('nods to Nora, then exits'), or in
an exterior goes in ('start filing in'); one who heads toward someone or for the heading's place stays."""

from __future__ import annotations

from tests.story.test_witness_elsewhere import _witnessed


def _drawer(paragraphs: list[str], heading: str = "INT. KITCHEN - NIGHT") -> set[str]:
    events = [("Nora opens the drawer", "Nora opens the drawer.", "Nora", "opens", "drawer")]
    return {who for who, _ in _witnessed(paragraphs, events, heading)}


def test_who_heads_off_for_another_place_is_gone():
    seen = _drawer(["Nora, Clara, Owen, Mark and Ruth sit at the table.",
                    "Clara grumbles, heads back toward the parked van. Owen heads across the yard, toward the shed.",
                    "Mark heads toward Nora. Ruth heads for the kitchen sink.",
                    "Nora opens the drawer."])
    assert seen == {"Mark", "Ruth"}


def test_a_leaving_joined_to_another_verb_of_the_same_subject():
    seen = _drawer(["Nora, Clara, Owen and Ruth sit at the table.",
                    "Owen stacks the plates; Clara nods to Ruth with a tired smile, then exits.",
                    "Nora opens the drawer."])
    assert seen == {"Owen", "Ruth"}  # Ruth is only nodded to
    seen = _drawer(["Nora, Clara, Owen and Ruth sit at the table.",
                    "Clara waves as Owen shrugs, then exits.",
                    "Nora opens the drawer."])
    assert "Clara" in seen  # the one who exits is Owen, subject of the clause with 'as'


def test_going_in_from_an_exterior_leaves_it():
    seen = _drawer(["Nora, Clara and Owen wait by the gate.",
                    "Clara and Owen start filing in.",
                    "Nora opens the drawer."], heading="EXT. SCHOOL YARD - DAY")
    assert seen == set()
    seen = _drawer(["Nora, Clara and Owen wait by the gate.",
                    "Clara and Owen start filing in.",
                    "Nora opens the drawer."], heading="INT. SCHOOL HALL - DAY")
    assert seen == {"Clara", "Owen"}


def test_a_pronoun_or_a_listed_group_that_leaves_takes_up_who_was_named_before():
    seen = _drawer(["Nora and Clara sit at the table. Owen washes a cup.",
                    "He dries his hands and walks out of the room.",
                    "Nora opens the drawer."])
    assert seen == {"Clara"}
    seen = _drawer(["Nora sits at the table. Clara and Owen argue by the door.",
                    "They exit.",
                    "Nora opens the drawer."])
    assert seen == set()
    seen = _drawer(["The cousins (Clara, Owen and Ruth) wait by the gate with Nora.",
                    "The cousins start filing in.",
                    "Nora opens the drawer."], heading="EXT. SCHOOL YARD - DAY")
    assert seen == set()


def test_a_pronoun_that_names_no_one_for_sure_takes_up_nobody():
    seen = _drawer(["Nora, Clara and Owen sit at the table.",
                    "He walks out.",
                    "Nora opens the drawer."])
    assert seen == {"Clara", "Owen"}  # 'he' after three names: which one is not said

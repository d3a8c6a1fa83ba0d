"""Who witnesses an event: not one the action has gone away before it, by 'go' with a particle of
direction ('goes into the study', 'goes up with the tray', 'get up and go'), by a manner of moving
with 'off' or 'out' ('has wandered off'), or by going after someone who leaves ('with Owen
following her'); one who goes to or into what the heading names stays."""

from __future__ import annotations

from tests.story.test_witness_elsewhere import _witnessed


def _drawer(paragraphs: list[str], heading: str = "INT. KITCHEN - NIGHT") -> set[str]:
    events = [("Nora opens the drawer", "Nora opens the drawer.", "Nora", "opens", "drawer")]
    return {who for who, _ in _witnessed(paragraphs, events, heading)}


def test_who_goes_into_another_room_or_up_the_stairs_is_gone():
    seen = _drawer(["Nora, Clara, Owen, Mark and Ruth sit at the table.",
                    "Clara folds the napkin and goes into the pantry. Mark goes up with the tray.",
                    "Ruth has wandered off.",
                    "Nora opens the drawer."])
    assert seen == {"Owen"}


def test_a_subject_taken_up_by_a_pronoun_and_a_follower_leave_too():
    seen = _drawer(["Nora, Clara, Owen, Mark and Ruth sit at the table.",
                    "CLARA AND MARK, they get up and go without a word.",
                    "We see Ruth going through the door with Owen following her.",
                    "Nora opens the drawer."])
    assert seen == set()


def test_going_within_the_room_or_into_the_headings_place_is_no_leaving():
    seen = _drawer(["Nora, Clara, Owen, Mark and Ruth sit at the table.",
                    "Clara goes up to Nora. Mark goes to the window. Ruth watches Owen go.",
                    "Nora opens the drawer."])
    assert seen == {"Clara", "Mark", "Ruth"}  # Owen went; Ruth only watched him
    seen = _drawer(["Nora and Clara stand in the hall.", "Clara goes into the kitchen.", "Nora opens the drawer."],
                   heading="INT. KITCHEN - NIGHT")
    assert seen == {"Clara"}


def test_the_name_that_leaves_is_read_where_it_stands_not_where_it_is_first_named():
    seen = _drawer(['Nora, Clara and Owen sit at the table.',
                    'Nora smiles with a "thanks, Clara." Clara goes up with the tray.',
                    "Nora opens the drawer."])
    assert seen == {"Owen"}

"""Words said to no one in particular are no speech to the other speaker: muttered, said while
ignoring them, to a group by a verb of speaking, in passing, or to oneself where the action line
before the cue says so ('男子哭着自言自语')."""

from __future__ import annotations

from tests.offline.test_speech import _relations

DOCKS = """Title: The Docks

INT. HARBOUR OFFICE - NIGHT

Ilse and Piet stand by the map table.

PIET
Who signed for the crates?

ILSE
(muttering)
Same as last winter. Always the same.

PIET
I asked you a question.

ILSE
(ignoring him)
Bring the lamps down to the quay.

PIET
Fine.

EXT. QUAY - NIGHT

Marta waits at the gate. Joost stands beside her.

JOOST
Cold enough for you?

Marta turns and yells at reporters by the fence.

MARTA
Nobody boards before the inspector!

JOOST
Suit yourself.

Suddenly Bram comes racing past them, laughing.

BRAM
Last one in is a rotten egg!

JOOST
Slow down!

EXT. GATE - NIGHT

Ilse and Piet wait by the gate.

PIET
Is it open?

ILSE
It opens at six.
"""

ZH = """1 办公室 夜 内

老周和小李坐在桌旁。

老周：东西都装好了？

小李低着头自言自语

小李：我不该来的，真的不该来。

老周：明天一早就走。
"""


def test_muttered_ignoring_to_a_group_or_in_passing_is_to_no_one(tmp_path, embedder):
    spoken = {(a, b, s) for a, t, b, s in _relations(tmp_path, DOCKS, "docks.fountain", embedder) if t == "speaks_to"}
    assert ("Ilse", "Piet", 1) not in spoken  # muttering, then ignoring him
    assert ("Marta", "Joost", 2) not in spoken  # yelling at reporters
    assert ("Bram", "Joost", 2) not in spoken  # racing past them
    assert ("Ilse", "Piet", 3) in spoken and ("Piet", "Ilse", 3) in spoken  # a plain answer stays


def test_the_action_before_the_cue_says_the_words_are_to_oneself(tmp_path, embedder):
    spoken = {(a, b, s) for a, t, b, s in _relations(tmp_path, ZH, "zh.txt", embedder) if t == "speaks_to"}
    assert ("小李", "老周", 1) not in spoken and ("老周", "小李", 1) in spoken

"""What a cue's extensions and name say of how its speaker is heard, and what is no one's name."""

from __future__ import annotations

from kgbuild.offline.media import extension_through, names_a_device, names_a_narrator, names_a_voice
from kgbuild.offline.scenes import said_in_first_person
from kgbuild.readers.cues import parse_cue


def test_what_a_cue_says_of_its_speaker():
    assert extension_through(["O.S. RADIO FILTER"]) and extension_through(["V.O. OVER PHONE"])
    assert not extension_through(["INTO PHONE"]) and not extension_through(["O.S."])
    assert names_a_voice("COMPUTERIZED VOICE") and not names_a_voice("VOICE OVER")
    assert names_a_narrator("TV NARRATOR") and not names_a_narrator("TV NEWSMAN")
    assert names_a_device("TELEVISION SET") and names_a_device("THE LOUDSPEAKERS") and names_a_device("VIDEO MONITOR")
    assert not names_a_device("HALL MONITOR") and not names_a_device("SPEAKER") and not names_a_device("SPEAKER #2")
    assert parse_cue("BERLIN [ROSS]").name == "BERLIN" and parse_cue("BERLIN [PHONE]").extensions == ["PHONE"]
    assert said_in_first_person("Ross was my best friend.") and not said_in_first_person('She reads: "I miss you."')
    assert not said_in_first_person("ANGLE ON I-95")

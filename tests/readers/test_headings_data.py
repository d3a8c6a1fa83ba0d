"""Every heading of the shared screenplays keeps its times out of its places."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.parsing import discover_inputs
from kgbuild.readers import read_screenplay
from kgbuild.timewords import HEADING_NOTES, HEADING_TIMES, ZH_HEADING_NOTES, ZH_RELATIVE_TIMES, ZH_TIMES_OF_DAY

pytestmark = pytest.mark.shared_data

# A location part that is, or holds, a time or a note ('DAY (MOCO)', 'NIGHT [LATER]', 'A BIT LATER').
_TIMELIKE = re.compile(r"\b(?:DAY|NIGHT|MORNING|EVENING|AFTERNOON|DAWN|DUSK|LATER|CONTINUOUS)\b"
                       r"(?!\s+(?:STUDIOS?|ROOM|CLUB|SCHOOL|CARE|TIME)\b)")


@pytest.mark.slow
def test_no_location_part_is_a_time_or_a_note(shared_data: Path):
    bad = []
    for path in discover_inputs(shared_data):
        for scene in read_screenplay(path).scenes:
            for part in scene.location:
                core = part.strip("()[]（）【】 ").upper()
                if (core in HEADING_TIMES or core in HEADING_NOTES or part in ZH_TIMES_OF_DAY
                        or part in ZH_RELATIVE_TIMES or part in ZH_HEADING_NOTES or part[:1] in "-([（【"
                        or _TIMELIKE.search(core)):
                    bad.append(f"{path.name} scene {scene.index}: {scene.heading!r} -> {scene.location}")
            if scene.time_of_day and re.search(r"[()\[\]]", scene.time_of_day):
                bad.append(f"{path.name} scene {scene.index}: time {scene.time_of_day!r}")
    assert bad == []

"""The story-time fixture, built once: a graph with a scene layer, witnesses and tellings."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.pipeline import BuildResult, run_build

STORY = Path(__file__).resolve().parents[1] / "fixtures" / "story" / "vase.fountain"


@pytest.fixture(scope="session")
def story_build() -> BuildResult:
    """The offline build of tests/fixtures/story/vase.fountain (written for these tests):

    scene 1 (1990): Anna and Ben; Ben leaves; Anna burns the letter; Clara speaks off screen.
    scene 2: Ben alone cuts the roses, then speaks as a voice-over.
    scene 3 (LATER): Ben enters; Clara tells him 'Anna burned the letter this morning'.
    scene 4 (1991): Anna hides the key while Clara watches.
    """
    return run_build(STORY)

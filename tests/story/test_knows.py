"""What a character can know at scene N: TimeChara's labels on the hand-made screenplay."""

from __future__ import annotations

import json

import pytest

from kgbuild.errors import InputError
from kgbuild.graph import save_graph
from kgbuild.story.knows import Label, knows
from tests.cli_in_process import Ran, run_cli

BURNS, HIDES = "Anna burns the letter", "Anna hides the key"


def _label(graph, who: str, scene: int, item: str, order: str = "screen") -> Label:
    return knows(graph, who, scene, about=item, order=order).items[0].label


@pytest.mark.parametrize(("who", "scene", "item", "label"), [
    ("Ben", 1, BURNS, Label.PAST_ABSENCE),  # he left before Anna burned it
    ("Ben", 2, BURNS, Label.PAST_ABSENCE),
    ("Ben", 3, BURNS, Label.PAST_PRESENCE),  # Clara tells him in scene 3
    ("Ben", 3, HIDES, Label.FUTURE),
    ("Ben", 4, HIDES, Label.PAST_ABSENCE),
    ("Anna", 1, BURNS, Label.PAST_PRESENCE),  # she did it
    ("Clara", 1, BURNS, Label.PAST_ABSENCE),  # heard off screen only
    ("Clara", 3, BURNS, Label.PAST_ABSENCE),  # she tells it; no line shows how she learned it
    ("Clara", 4, HIDES, Label.PAST_PRESENCE),  # she watches
    ("clara", 3, "key", Label.FUTURE),
    ("Ben", 1, "letter", Label.PAST_PRESENCE),  # on screen with it
    ("Ben", 2, "Clara", Label.PAST_ABSENCE),  # only a voice off screen in scene 1
    ("Ben", 3, "Clara", Label.PAST_PRESENCE),  # both on screen in scene 3
    ("Clara", 3, "Anna", Label.PAST_PRESENCE),  # named in a speech while she is on screen
])
def test_labels_at_each_scene(story_build, who, scene, item, label):
    assert _label(story_build.graph, who, scene, item) == label


def test_the_answer_lists_what_was_done_seen_and_told_with_evidence(story_build):
    k = knows(story_build.graph, "BEN", 3)
    assert (k.character_name, k.scene, k.order.value) == ("Ben", 3, "screen")
    assert [i.name for i in k.took_part] == ["Ben cuts the roses"]
    assert [i.name for i in k.told] == [BURNS] and k.witnessed == []
    told = k.told[0]
    assert told.scene == 3 and told.how == "told in scene 3"
    assert told.evidence[0].quote == "Anna burned the letter this morning, you know."
    assert all(item.evidence and all(ev.scene for ev in item.evidence) for item in k.items)
    assert k.counts() == {"future": 4, "past-absence": 0, "past-presence": 10}


def test_story_order_follows_the_markers(story_build):
    graph = story_build.graph
    k = knows(graph, "Ben", 3, order="story")
    assert k.order.value == "story" and "1990" in k.scene_basis
    # Scenes 2 and 3 carry no year of their own: they follow scene 1 (1990); scene 4 is 1991.
    assert _label(graph, "Ben", 3, HIDES, order="story") == Label.FUTURE


def test_unknown_names_list_close_ones_and_a_graph_without_scenes_is_refused(story_build):
    with pytest.raises(InputError, match="no character is named or called 'Bne'; close: Ben"):
        knows(story_build.graph, "Bne", 1)
    with pytest.raises(InputError, match="no entity or event is named or called"):
        knows(story_build.graph, "Ben", 1, about="the cat")
    with pytest.raises(InputError, match="no scene 9 in this graph; its scenes are 1 to 4"):
        knows(story_build.graph, "Ben", 9)
    with pytest.raises(InputError, match="--from-stage merge"):
        knows(story_build.graph.model_copy(update={"scenes": []}), "Ben", 1)


def test_the_cli_answers_in_json_and_as_a_table(story_build, tmp_path):
    path = save_graph(story_build.graph, tmp_path / "graph.json")

    def run(*args: str) -> Ran:
        return run_cli("knows", str(tmp_path), *args)

    data = json.loads(run("ben", "--scene", "3", "--question-about", BURNS.lower(), "--format", "json").stdout)
    assert [(i["name"], i["label"]) for i in data["items"]] == [(BURNS, "past-presence")]
    table = run("Ben", "--scene", "1").stdout
    assert "Ben at scene 1, screen order" in table and "past-absence" in table
    missing = run("Nobody", "--scene", "1")
    assert missing.returncode == 2 and missing.stderr.startswith("kgbuild: error: no character is named")
    assert path.is_file()

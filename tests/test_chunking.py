import pytest

from kgbuild.chunking import chunk_screenplay, estimate_tokens
from kgbuild.model import Element, ElementKind, Scene, Screenplay, Source, SourceFormat


def _el(kind, text, line, speaker=None):
    return Element(kind=kind, text=text, line_start=line, line_end=line, speaker=speaker)


def _scene(index, n_speeches, words_per_line=10):
    els = [_el(ElementKind.SCENE_HEADING, f"INT. ROOM {index} - DAY", 1)]
    line = 2
    for i in range(n_speeches):
        els.append(_el(ElementKind.ACTION, " ".join(["walks"] * words_per_line), line))
        els.append(_el(ElementKind.CHARACTER, "ANNA", line + 1, "ANNA"))
        els.append(_el(ElementKind.PARENTHETICAL, "(quietly)", line + 2, "ANNA"))
        els.append(_el(ElementKind.DIALOGUE, " ".join(["word"] * words_per_line), line + 3, "ANNA"))
        line += 4
    return Scene(index=index, heading=f"INT. ROOM {index} - DAY", elements=els,
                 line_span=(1, line))


def _screenplay(scenes):
    src = Source(path="x", format=SourceFormat.FOUNTAIN, sha256="0", size_bytes=1)
    return Screenplay(title="t", language="en", source=src, scenes=scenes)


def test_token_estimate_counts_words_punctuation_and_cjk():
    assert estimate_tokens("He opens the door.") == 5
    assert estimate_tokens("张父喝酒") == 4
    assert estimate_tokens("extraordinarily") == 3
    assert estimate_tokens("") == 0


def test_short_scenes_are_packed_within_budget():
    sp = _screenplay([_scene(i, 1) for i in range(1, 6)])
    chunks = chunk_screenplay(sp, token_budget=80)
    assert [c.scene_indices for c in chunks] == [[1, 2], [3, 4], [5]]
    assert chunks[0].id == "scenes_1_2" and chunks[2].id == "scene_5"
    assert all(c.token_estimate <= 80 for c in chunks)


def test_no_pack_gives_one_chunk_per_scene():
    sp = _screenplay([_scene(i, 1) for i in range(1, 4)])
    chunks = chunk_screenplay(sp, token_budget=600, pack_scenes=False)
    assert [c.id for c in chunks] == ["scene_1", "scene_2", "scene_3"]


def test_long_scene_is_split_into_parts_never_inside_a_speech():
    sp = _screenplay([_scene(1, 2), _scene(2, 30), _scene(3, 1)])
    chunks = chunk_screenplay(sp, token_budget=100)
    part_ids = [c.id for c in chunks if c.scene_indices == [2]]
    assert part_ids[0] == "scene_2_part_1" and len(part_ids) > 3
    assert part_ids == [f"scene_2_part_{n}" for n in range(1, len(part_ids) + 1)]
    for c in chunks:
        # every speech keeps its cue, parenthetical and line together
        assert c.text.count("ANNA\n(quietly)\nword") == c.text.count("ANNA")
        assert c.token_estimate <= 100


def test_oversized_single_speech_stays_whole():
    sp = _screenplay([_scene(1, 1, words_per_line=500)])
    chunks = chunk_screenplay(sp, token_budget=50)
    texts = "\n\n".join(c.text for c in chunks)
    assert texts.count("word") == 500
    assert any(c.text.startswith("ANNA") and c.token_estimate > 50 for c in chunks)


def test_budget_must_be_positive():
    with pytest.raises(ValueError):
        chunk_screenplay(_screenplay([_scene(1, 1)]), token_budget=0)

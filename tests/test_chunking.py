from pathlib import Path

import pytest

from kgbuild.chunking import chunk_screenplay
from kgbuild.model import Element, ElementKind, Scene, Screenplay, Source, SourceFormat
from kgbuild.tokens import estimate_tokens

FIXTURES = Path(__file__).parent / "fixtures"


def _el(kind, text, line, speaker=None):
    return Element(kind=kind, text=text, line_start=line, line_end=line, speaker=speaker)


def _scene(index, n_speeches, words_per_line=10):
    els = [_el(ElementKind.SCENE_HEADING, f"INT. ROOM {index} - DAY", 1)]
    line = 2
    for _i in range(n_speeches):
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


# Real counts below are OpenAI's o200k_base tokenizer (gpt-4o and later) on the same text.
@pytest.mark.parametrize(("text", "estimate", "o200k"), [
    ("He opens the door.", 5, 5),                                # 18 ASCII characters
    ("The quick brown fox jumps over the lazy dog.", 11, 10),    # 44
    ('{"name": "Alice", "kind": "Character"}', 10, 12),          # 38
    ("张父喝酒", 4, 4),                                           # one token a CJK character
    ("小红走在山路上，背着一个竹篓。", 15, 15),                     # full-width punctuation too
    ("INT. 张家 - NIGHT", 6, 6),                                  # 4 + ceil(11 / 4)
    ("", 0, 0),
])
def test_token_estimate_is_a_quarter_of_ascii_plus_one_per_other_character(text, estimate, o200k):
    assert estimate_tokens(text) == estimate
    assert abs(estimate - o200k) <= 2


@pytest.mark.parametrize(("path", "o200k"), [
    ("llm/safe_job.fountain", 149),       # English screenplay: estimate 132
    ("chinese/colon_layout.txt", 245),    # Chinese screenplay: estimate 251
])
def test_token_estimate_of_a_passage_is_near_the_real_count(path, o200k):
    text = (FIXTURES / path).read_text(encoding="utf-8")
    assert 0.8 * o200k <= estimate_tokens(text) <= 1.2 * o200k


def test_chunk_estimate_is_the_estimate_of_its_text():
    sp = _screenplay([_scene(i, 3) for i in range(1, 9)])
    for budget in (40, 80, 150, 600):
        for c in chunk_screenplay(sp, token_budget=budget):
            assert c.token_estimate == estimate_tokens(c.text)
            assert c.token_estimate <= budget or len(c.scene_indices) == 1


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

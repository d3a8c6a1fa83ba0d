"""The block reader and the loose output check the docs examples rely on."""

from __future__ import annotations

from tests.docs.blocks import console_commands, missing_output, read_blocks


def test_blocks_carry_their_directives(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n<!-- skip: needs a Neo4j server -->\n```sh\nkgbuild load x\n```\n\n"
                    "<!-- exit: 3 -->\n```console\n$ kgbuild build y\nkgbuild: 3 requests pending\n```\n\n"
                    "````markdown\n```sh\nnot a block of its own\n```\n````\n", encoding="utf-8")
    blocks = read_blocks(page)
    assert [(b.lang, b.line, b.skip, b.exit_status) for b in blocks] == [
        ("sh", 4, "needs a Neo4j server", 0), ("console", 9, None, 3), ("markdown", 14, None, 0)]
    assert blocks[0].text == "kgbuild load x\n"
    assert blocks[2].text == "```sh\nnot a block of its own\n```\n"


def test_console_commands_and_their_shown_output():
    commands = console_commands("$ kgbuild parse a.fdx\nThe Last Keeper (fdx, en): 2 scenes\n...\n$ kgbuild chunk b\n")
    assert [(c.command, c.shown) for c in commands] == [
        ("kgbuild parse a.fdx", ["The Last Keeper (fdx, en): 2 scenes", "..."]), ("kgbuild chunk b", [])]


def test_shown_output_is_checked_in_order_with_ellipses_and_loose_spaces():
    output = ("Question: where?\nNamed in the graph: Reggie Gunn (Character)\n\n"
              "1. Scene 19:   INT. OFFICE  (score 6.75)\n")
    assert missing_output(["Question: where?", "...", "1. Scene 19: INT. OFFICE ..."], output) is None
    assert missing_output(["Named in the graph: ... (Character)"], output) is None
    assert missing_output(["1. Scene 19", "Question: where?"], output) == "Question: where?"  # out of order
    assert missing_output(["2. Scene 9"], output) == "2. Scene 9"

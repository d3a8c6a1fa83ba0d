"""The STAGE benchmark's `script.json`: a JSON list of scenes, each with `title` and `content`.

One entry is one scene, exactly as the benchmark feeds it. The title is the heading (often with
a number prefix such as `1、`); the content is unindented screenplay text, read with the
plain-text line classifier (or the Chinese one; or, for a script that writes speech on the cue's
line, `kgbuild.readers.inline_cues`). Line numbers count through a virtual text in
which each entry is its title line followed by its content lines.

One entry may hold several settings: its content prints further headings ('BEDROOM, JOE'S FLAT -
NIGHT', 'EXT. DOCKS - DAY'), often wrapped over two or three lines in capitals ('LIMO (PARKED)
- HOTEL - EARLY' over 'MORNING') and with the action that follows on the next line, no blank
between. In the plain-text path such a heading, by the plain reader's grammar
(`kgbuild.readers.plaintext.is_heading_line` of its lines joined, `inner_heading`), becomes a
shot element (`ElementKind.SHOT`) with the joined heading as its text: the scene stays one entry,
the heading is no action (nobody is introduced by it, no sentence runs on into it), and the rules
read the scene as a run of settings (`kgbuild.offline.stretches`).

A STAGE release names its movies in `english_movie_info.csv` and `chinese_movie_info.csv`
(movie_id, title, ...) beside its `English/` and `Chinese/` folders: `stage_title` reads a movie
folder's title there, and a `script.json` read from such a folder is titled by it.
"""

from __future__ import annotations

import csv
import json
import re
from functools import lru_cache
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.model import Element, ElementKind, ParseWarning, Scene
from kgbuild.readers.assemble import ReadResult, attach_speakers, heading_facts
from kgbuild.readers.headings import chinese_heading_number, strip_scene_numbers
from kgbuild.readers.inline_cues import inline_elements, uses_inline_cues

_CJK = re.compile(r"[\u3400-\u9fff]")


def _entries(text: str, path: str) -> list[dict]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"not valid JSON ({e.msg}, column {e.colno}); a STAGE script.json is a list of "
            '{"title": ..., "content": ...} objects',
            path=path,
            line=e.lineno,
        ) from e
    if not isinstance(data, list) or not data:
        raise InputError(
            'a STAGE script.json must be a non-empty JSON list of {"title", "content"} objects',
            path=path,
        )
    for n, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
            raise InputError(
                f'entry {n} has no "content" string; each scene needs "title" and "content"',
                path=path,
            )
    return data


def _heading(title: str, line: int, fallback_number: str) -> Element:
    number, rest = chinese_heading_number(title.strip())
    if not _CJK.search(rest):
        rest, printed = strip_scene_numbers(rest)
        if number and not printed:
            # The number printed on both sides ('6 AN ALLEY WAY IN NOVAGRUDOK 6'): the leading one
            # is taken already, so the trailing one goes too.
            rest = re.sub(rf"\s+{re.escape(number)}\s*\.?$", "", rest, flags=re.IGNORECASE)
        number = number or printed
    return Element(
        kind=ElementKind.SCENE_HEADING,
        text=rest or title.strip(),
        line_start=line,
        line_end=line,
        number=number or fallback_number,
        forced=True,
    )


_LOWER = re.compile(r"[a-z]")
_LETTER = re.compile(r"[A-Za-z]")
# What may open a heading before its first word: a model year's apostrophe (''89 FORD TEMPO').
_OPENING_MARKS = "'‘’\"`. "
#: A heading wrapped over more lines than this is not looked for.
WRAPPED_LINES = 3


def _joined(lines: list[str]) -> str:
    return " ".join(" ".join(line.split()) for line in lines)


def inner_heading(text: str) -> bool:
    """Whether a line in capitals (or wrapped lines joined) printed inside a STAGE entry is a scene
    heading by the plain reader's grammar: INT./EXT., or places and a time after a dash
    ('BEDROOM, JOE'S FLAT - EARLY MORNING', ''89 FORD (MOVING) - LOWELL - DAY').

    Example:
        >>> inner_heading("BEDROOM, JOE'S FLAT - EARLY MORNING"), inner_heading("NO - WAIT!")
        (True, False)
    """
    from kgbuild.readers.plaintext import is_heading_line

    body, _ = strip_scene_numbers(text.lstrip(_OPENING_MARKS))  # '79 CONTINUED: 79' is no heading
    return bool(_LETTER.search(body)) and not _LOWER.search(body) and is_heading_line(body, longest=10 * len(body))


def _caps(line: str) -> bool:
    return bool(_LETTER.search(line)) and not _LOWER.search(line)


def _wraps(line: str) -> bool:
    """A line in capitals that may go on over the next: it ends no sentence, call or transition
    ('CUT TO:', 'WAKE UP!', 'FIGHTAHS.')."""
    return _caps(line) and not line.rstrip().endswith((":", ".", "!", "?", "…"))


def heading_runs(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) index of each heading printed in a scene's lines: the fewest consecutive lines
    in capitals, up to `WRAPPED_LINES`, whose text joined is a heading (`inner_heading`); every
    line but the last ends no sentence, call or transition.

    Example:
        >>> heading_runs(["He waits.", "LIMO (PARKED) - HOTEL - EARLY", "MORNING", "Ann gets in."])
        [(1, 2)]
    """
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        end = next((j for j in range(i, min(i + WRAPPED_LINES, len(lines)))
                    if all(_wraps(line) for line in lines[i:j]) and _caps(lines[j])
                    and inner_heading(_joined(lines[i:j + 1]))),
                   None)
        if end is None:
            i += 1
            continue
        runs.append((i, end))
        i = end + 1
    return runs


def _plain_body(lines: list[str], first_line: int) -> tuple[list[Element], list[ParseWarning]]:
    """The plain reader's elements, with each heading printed inside the scene a shot of its own
    (its lines blanked for the classifier, so no paragraph runs into it)."""
    from kgbuild.readers.plaintext import plain_elements

    runs = heading_runs(lines)
    if not runs:
        return plain_elements(lines, first_line=first_line)
    blanked = list(lines)
    for a, b in runs:
        blanked[a:b + 1] = [""] * (b + 1 - a)
    elements, warnings = plain_elements(blanked, first_line=first_line)
    shots = [Element(kind=ElementKind.SHOT, text=_joined(lines[a:b + 1]), line_start=first_line + a,
                     line_end=first_line + b) for a, b in runs]
    return sorted([*elements, *shots], key=lambda e: e.line_start), warnings


def _body(lines: list[str], first_line: int, document: list[str] | None, *,
          inline: bool) -> tuple[list[Element], list[ParseWarning]]:
    """A scene's elements; `document` (every scene's lines) is given for a Chinese script, `inline`
    for a script that writes speech on the cue's line (`kgbuild.readers.inline_cues`)."""
    if inline:
        return inline_elements(lines, first_line=first_line), []
    if document is not None:
        from kgbuild.readers.chinese import chinese_elements

        return chinese_elements(lines, first_line=first_line, document=document)
    return _plain_body(lines, first_line)


def _demote_headings(elements: list[Element]) -> list[Element]:
    # The benchmark fixes one scene per entry: a heading inside the content (a spill of the next
    # scene) stays in this scene as action.
    return [
        e.model_copy(update={"kind": ElementKind.ACTION})
        if e.kind is ElementKind.SCENE_HEADING
        else e
        for e in elements
    ]


def read_stage_json(text: str, *, path: str) -> ReadResult:
    """Read a STAGE `script.json` into one scene per entry.

    Args:
        text: The decoded JSON text.
        path: The file's path, for messages.

    Returns:
        Scenes in list order, one per entry.

    Raises:
        InputError: not JSON, not a list, or an entry without content.
    """
    entries = _entries(text, path)
    chinese = bool(_CJK.search(" ".join(str(e.get("title", "")) + e["content"][:200] for e in entries[:20])))
    scenes: list[Scene] = []
    warnings: list[ParseWarning] = []
    # The Chinese reader treats a form feed as a page end inside a paragraph.
    contents = [e["content"].replace("\r\n", "\n") for e in entries]
    contents = [c.lstrip("、") if chinese else c.replace("\f", "\n") for c in contents]
    # Who speaks is learned from the whole script, not scene by scene.
    document = [line for c in contents for line in c.split("\n")] if chinese else None
    inline = not chinese and uses_inline_cues([line for c in contents for line in c.split("\n")])
    line = 1
    for n, (entry, content) in enumerate(zip(entries, contents, strict=True), start=1):
        title = str(entry.get("title") or "")
        heading = _heading(title, line, str(entry.get("_id", n)))
        lines = content.split("\n")
        body, found = _body(lines, line + 1, document, inline=inline)
        warnings.extend(found)
        elements = attach_speakers([heading, *_demote_headings(body)])
        facts = heading_facts(heading)
        last = line + len(lines)
        scenes.append(
            Scene(
                index=n,
                number=heading.number,
                heading=facts.text,
                int_ext=facts.int_ext,
                location=facts.location,
                time_of_day=facts.time_of_day,
                elements=elements,
                line_span=(line, last),
            )
        )
        line = last + 1
    return ReadResult(scenes=scenes, warnings=warnings)


@lru_cache(maxsize=16)
def _titles_of(path: Path, mtime_ns: int, size: int) -> dict[str, str]:
    """The titles one `*movie_info.csv` gives (read once while the file stays the same)."""
    titles: dict[str, str] = {}
    try:
        with path.open(encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"cannot read the movie titles: {e}", path=str(path)) from e
    for row in rows:
        movie_id, title = (row.get("movie_id") or "").strip(), (row.get("title") or "").strip()
        if movie_id and title:
            titles[movie_id] = title
    return titles


def _titles_in(folder: Path) -> dict[str, str]:
    titles: dict[str, str] = {}
    for path in sorted(folder.glob("*movie_info.csv")):
        info = path.stat()
        titles.update(_titles_of(path, info.st_mtime_ns, info.st_size))
    return titles


def stage_title(movie_dir: str | Path) -> str:
    """The title of a STAGE movie folder, from a `*movie_info.csv` beside it or one level up.

    The STAGE release keeps `english_movie_info.csv` and `chinese_movie_info.csv` (columns
    movie_id, title, ...) next to its `English/` and `Chinese/` folders.

    Returns:
        The title, or "" when no such file names the folder.

    Example:
        >>> stage_title("path/to/stage/English/en049957b3c0b54085baddbec23e00506c")
        'Birthday Girl'
    """
    folder = Path(movie_dir).resolve()
    for parent in (folder.parent, folder.parent.parent):
        title = _titles_in(parent).get(folder.name)
        if title:
            return title
    return ""

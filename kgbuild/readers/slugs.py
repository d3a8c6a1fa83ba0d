"""Lines a reader took for a cue that are a heading's place or an editing note.

A line in capitals over a line of text has the shape of a cue in every format, and so do two
lines that are no speaker:

- a *slug line*: a place the script's headings name, written alone inside a scene to move the
  action there (a sub-heading in an intercut or a montage: 'ENTERPRISE BRIDGE' over 'They watch
  on screen as Reliant hauls off.'; '拳击馆' and '仓库' in turn under '一组镜头'). A cue is one
  only if the name is no place of the script's headings, or if the lines under it speak in the
  first or second person somewhere in the script (a character named like a place talks: 'I',
  'you', '我', '你'); the narration under a slug never does;
- an *editing note*: a heading note or a camera note, alone or after a verb of the editing
  ('LOSE SUPER', 'END MONTAGE', 'ANOTHER ANGLE'; `kgbuild.readers.headings.is_editing_note`).

Such a line becomes a shot (`ElementKind.SHOT`) and the lines read as its speech become action,
so the place or the note is no character and its narration is no one's speech. This runs once
on every reader's scenes (`kgbuild.readers.read_screenplay`), so it holds for every format.
"""

from __future__ import annotations

import re

from kgbuild.model import Element, ElementKind, Scene
from kgbuild.readers.headings import is_editing_note

_CJK = re.compile(r"[\u3400-\u9fff]")
_SPEECH = frozenset({ElementKind.DIALOGUE, ElementKind.PARENTHETICAL, ElementKind.LYRIC})
# Words that only a speaker uses of themselves or of whom they speak to.
_FIRST_SECOND_PERSON = re.compile(
    r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself|we|us|our|ours|you|your|yours|yourself)\b"
    r"|[我你您咱]", re.IGNORECASE)


def _key(name: str) -> str:
    return " ".join(name.upper().split())


def _not_speakers(scenes: list[Scene]) -> frozenset[str]:
    """The cue names of the script that are slug lines or editing notes."""
    places = frozenset(_key(p) for s in scenes for p in s.location)
    speaking = frozenset(_key(e.speaker) for s in scenes for e in s.elements
                         if e.kind is ElementKind.DIALOGUE and e.speaker and _FIRST_SECOND_PERSON.search(e.text))
    names = {_key(e.speaker) for s in scenes for e in s.elements if e.kind is ElementKind.CHARACTER and e.speaker}
    return frozenset(n for n in names
                     if (is_editing_note(n) and not _CJK.search(n)) or (n in places and n not in speaking))


def _cue_key(el: Element) -> str:
    """The name a cue line stands for: its speaker, or, when the cue reader found no name in it
    (an editing note such as 'LOSE SUPER' names no one), the line as written."""
    return _key(el.speaker or el.text)


def _is_note_cue(el: Element, names: frozenset[str]) -> bool:
    key = _cue_key(el)
    return key in names or (not el.speaker and is_editing_note(key) and not _CJK.search(key))


def _demoted(elements: list[Element], names: frozenset[str]) -> list[Element]:
    out: list[Element] = []
    under_note = False  # whether the lines read as speech follow a cue that is a slug or a note
    for el in elements:
        if el.kind is ElementKind.CHARACTER:
            under_note = _is_note_cue(el, names)
            out.append(el.model_copy(update={"kind": ElementKind.SHOT, "speaker": None, "extensions": []})
                       if under_note else el)
        elif el.kind in _SPEECH and under_note:
            out.append(el.model_copy(update={"kind": ElementKind.ACTION, "speaker": None}))
        else:
            under_note = False
            out.append(el)
    return out


def demote_slug_cues(scenes: list[Scene]) -> list[Scene]:
    """The scenes with every cue that is a slug line or an editing note read as a shot, and its
    'speech' as action (see the module docstring).

    Args:
        scenes: A whole script's scenes, as a reader assembled them.

    Returns:
        New scenes; those without such a cue are returned as they were.

    Example:
        >>> [e.kind.value for e in demote_slug_cues(scenes)[0].elements]  # doctest: +SKIP
        ['scene_heading', 'shot', 'action']
    """
    names = _not_speakers(scenes)
    return [scene.model_copy(update={"elements": _demoted(scene.elements, names)})
            if any(e.kind is ElementKind.CHARACTER and _is_note_cue(e, names) for e in scene.elements) else scene
            for scene in scenes]

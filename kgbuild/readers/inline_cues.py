"""Speech written on the cue's own line: 'XENIA (quietly): If you want, I can cut out ...'.

Some scripts (translated European screenplays among them) print who speaks as a name in
capitals with a colon, the speech after it on the same line, and more speech in indented lines
under it, also after an action line in between ('No reaction.' / '    Would you like that?!'),
until the next name. The layout reader finds no cue there (a cue stands alone on its line) and
reads all of it as action, so such a script has no speaker at all.

`uses_inline_cues` tells such a script from its whole text: many lines open with a name and a
colon, and several names do so more than once. `inline_elements` then reads a scene of it: a
name line gives a cue (a voice note in its parentheses, such as o.s., an extension; any other
note a parenthetical) and the speech on the line a dialogue; an indented line is speech of the
scene's last speaker (a cue marked CONT'D where an action line came between); an unindented
line is action, or a transition (CUT TO:). A note in parentheses may wrap onto the next line
('RUDOLPH (interrupts her softly, his head still' / 'bowed): What if ...').
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from kgbuild.model import Element, ElementKind
from kgbuild.readers.cues import camera_direction, not_a_name, parse_cue
from kgbuild.readers.headings import is_editing_note

_NAME = r"[A-Z][A-Z0-9'’. -]{0,36}[A-Z0-9'’.]"
_INLINE = re.compile(rf"^(?P<indent>[ \t]*)(?P<name>{_NAME})[ \t]*(?:\((?P<note>[^()]*)\))?[ \t]*:(?P<speech>.*)$")
_NOTE_OPENS = re.compile(rf"^[ \t]*(?P<name>{_NAME})[ \t]*\((?P<note>[^()]*)$")
_NOTE_CLOSES = re.compile(r"^[ \t]*(?P<note>[^()]*)\)[ \t]*:(?P<speech>.*)$")
_VOICE = re.compile(r"^\s*(O\.?\s?S\.?|V\.?\s?O\.?|O\.?\s?C\.?|OFF|CONT['’]?D)(?=[\s,.;]|$)", re.IGNORECASE)
_PAGE_NUMBER = re.compile(r"^\s*\d{1,3}\.?\s*$")
_SPEECH_INDENT = 4
# 'CUT TO:', 'FADE IN:', 'JUMP CUT:' are transitions; 'INSERT:', 'SUPER:' notes.
_TRANSITION_END = re.compile(r"(?:\bTO|\bIN|\bOUT|\bCUT|\bON|\bOVER)$")
_NOT_SPEAKERS = frozenset({"INSERT", "SUPER", "TITLE", "NOTE", "CARD", "CAPTION", "SIGN", "LEGEND",
                           "WE SEE", "WE HEAR"})
# A script reads this way when this many lines open with a name and a colon, and this many
# names do so at least three times.
_MIN_LINES, _MIN_NAMES = 12, 3


@dataclass(frozen=True)
class _Cue:
    name: str
    note: str
    speech: str
    lines: int  # how many source lines the cue takes (2 when its note wraps)


def _speaker(name: str) -> str | None:
    if len(name.split()) > 5 or camera_direction(name) or not_a_name(name) or is_editing_note(name):
        return None
    if _TRANSITION_END.search(name) or name in _NOT_SPEAKERS:
        return None
    return parse_cue(name).name or None


def _cue_at(lines: list[str], i: int) -> _Cue | None:
    m = _INLINE.match(lines[i])
    if m and _speaker(m.group("name")):
        return _Cue(m.group("name"), m.group("note") or "", m.group("speech").strip(), 1)
    m = _NOTE_OPENS.match(lines[i])
    if m and i + 1 < len(lines) and _speaker(m.group("name")):
        closes = _NOTE_CLOSES.match(lines[i + 1])
        if closes:
            note = f"{m.group('note').strip()} {closes.group('note').strip()}".strip()
            return _Cue(m.group("name"), note, closes.group("speech").strip(), 2)
    return None


def uses_inline_cues(lines: list[str]) -> bool:
    """Whether a script writes its speech on the cue's line ('EVA: I know.'), judged from all of
    its lines: at least 12 such lines, by at least 3 names that each speak at least three times,
    and more of them than cues standing alone on their line (a form filled in on screen,
    'NAME: ...', is no way of writing speech)."""
    names = Counter(cue.name for i in range(len(lines)) if (cue := _cue_at(lines, i)))
    if sum(names.values()) < _MIN_LINES or sum(n >= 3 for n in names.values()) < _MIN_NAMES:
        return False
    from kgbuild.readers.plaintext import cue_name

    alone = sum(1 for i, line in enumerate(lines[:-1])
                if line.strip() and lines[i + 1].strip() and cue_name(line.strip()))
    return sum(names.values()) > alone


def _indent(line: str) -> int:
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip())


def _cue_elements(cue: _Cue, line: int, speaker: str) -> list[Element]:
    voice = _VOICE.match(cue.note)
    extensions = parse_cue(f"{cue.name} ({voice.group(1)})").extensions if voice else []
    out = [Element(kind=ElementKind.CHARACTER, text=cue.name, line_start=line, line_end=line,
                   speaker=speaker, extensions=extensions)]
    if cue.note and not voice:
        end = line + cue.lines - 1
        out.append(Element(kind=ElementKind.PARENTHETICAL, text=f"({' '.join(cue.note.split())})",
                           line_start=line, line_end=end, speaker=speaker))
    return out


def inline_elements(lines: list[str], *, first_line: int = 1) -> list[Element]:
    """A scene's elements in a script that writes speech on the cue's line (see the module
    docstring).

    Args:
        lines: The scene's text split on newlines.
        first_line: The source line number of `lines[0]`.

    Example:
        >>> els = inline_elements(["Eva waits.", "    EVA (quietly): Come in.", "    It's open."])
        >>> [(e.kind.value, e.text) for e in els][1:]
        [('character', 'EVA'), ('parenthetical', '(quietly)'), ('dialogue', "Come in. It's open.")]
    """
    from kgbuild.readers.plaintext import is_transition

    out: list[Element] = []
    run: list[str] = []
    run_kind: ElementKind | None = None
    run_start = 0
    speaker: str | None = None
    cue_open = False  # whether the last element read is this speaker's cue or speech

    def flush(end: int) -> None:
        nonlocal run, run_kind
        if run and run_kind is not None:
            out.append(Element(kind=run_kind, text=" ".join(run), line_start=run_start, line_end=end,
                               speaker=speaker if run_kind is ElementKind.DIALOGUE else None))
        run, run_kind = [], None

    i = 0
    while i < len(lines):
        line_no, text = first_line + i, " ".join(lines[i].split())
        cue = _cue_at(lines, i)
        if cue is not None:
            flush(line_no - 1)
            speaker = _speaker(cue.name)
            assert speaker is not None
            out.extend(_cue_elements(cue, line_no, speaker))
            cue_open = True
            if cue.speech:
                run, run_kind, run_start = [cue.speech], ElementKind.DIALOGUE, line_no + cue.lines - 1
            i += cue.lines
            continue
        if not text or _PAGE_NUMBER.match(lines[i]):
            flush(line_no - 1)
            i += 1
            continue
        if is_transition(text):
            flush(line_no - 1)
            out.append(Element(kind=ElementKind.TRANSITION, text=text, line_start=line_no, line_end=line_no))
            cue_open = False
            i += 1
            continue
        if speaker is not None and _indent(lines[i]) >= _SPEECH_INDENT:
            if run_kind is not ElementKind.DIALOGUE:
                flush(line_no - 1)
                if not cue_open:
                    out.append(Element(kind=ElementKind.CHARACTER, text=speaker, line_start=line_no,
                                       line_end=line_no, speaker=speaker, extensions=["CONT'D"]))
                run_kind, run_start, cue_open = ElementKind.DIALOGUE, line_no, True
            run.append(text)
        else:
            if run_kind is not ElementKind.ACTION:
                flush(line_no - 1)
                run_kind, run_start = ElementKind.ACTION, line_no
            cue_open = False
            run.append(text)
        i += 1
    flush(first_line + len(lines) - 1)
    return out

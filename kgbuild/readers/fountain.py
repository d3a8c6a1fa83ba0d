"""Fountain 1.1 (https://fountain.io/syntax): plain-text screenplays with light markup.

The reader works in passes over the lines, each a small function, and keeps every line's
1-based source number throughout:

1. boneyard (`/* ... */`) is cut out; lines it covered vanish, blank lines inside it stay blank;
2. the title page (`Key: value` lines at the top) becomes a dict;
3. notes (`[[ ... ]]`) are cut out of the text and kept as NOTE elements;
4. the rest is split into paragraphs at blank lines, and each paragraph is classified
   (heading, cue + speech, transition, centered, section, synopsis, lyric, page break, action).

Fountain has no syntax errors: anything unrecognised is action. Real files bend the rules
(a heading right after `CUT TO:` with no blank line, a transition glued to the next paragraph),
so a few such layouts are accepted and reported as `ParseWarning`s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgbuild.model import Element, ElementKind, Emphasis, ParseWarning
from kgbuild.readers.assemble import ReadResult, assemble_scenes
from kgbuild.readers.cues import parse_cue

# --- line patterns -----------------------------------------------------------------------------
_HEADING = re.compile(r"^(?:INT\.?/EXT|EXT\.?/INT|INT|EXT|EST|I/E|E/I)[.\s]", re.IGNORECASE)
_FORCED_HEADING = re.compile(r"^\.[^\W_]")
_SCENE_NUMBER = re.compile(r"\s*#(?P<num>[\w.\-]+)#\s*$")
_PAGE_BREAK = re.compile(r"^={3,}$")
_SECTION = re.compile(r"^(?P<marks>#+)\s*(?P<text>.*)$")
_SYNOPSIS = re.compile(r"^=(?!=)\s*(?P<text>.*)$")
_CENTERED = re.compile(r"^>\s*(?P<text>.*?)\s*<$")
_CUE = re.compile(r"^(?P<name>[^()^]+?)\s*(?P<ext>(?:\([^()]*\)\s*)*)(?P<dual>\^)?$")
_TITLE_KEY = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _\-]{0,39}):(?P<value>.*)$")
_KNOWN_TITLE_KEYS = {
    "title", "credit", "author", "authors", "source", "draft date", "date", "contact",
    "notes", "copyright", "revision",
}
_INLINE_NOTE = re.compile(r"\[\[.*?\]\]")
# Transitions that do not end in "TO:"; the spec would make them action, but on a line of
# their own they are never anything but a transition.
_STANDARD_TRANSITIONS = {
    "FADE IN:", "FADE IN", "FADE OUT.", "FADE OUT", "FADE OUT:", "FADE TO BLACK.",
    "CUT TO BLACK.", "SMASH TO BLACK.", "FADE TO WHITE.",
}

# --- emphasis ----------------------------------------------------------------------------------
_BOLD, _ITALIC, _UNDERLINE = 1, 2, 4
_STYLE_NAMES = ((_BOLD, "bold"), (_ITALIC, "italic"), (_UNDERLINE, "underline"))
_STAR_FLAGS = {1: _ITALIC, 2: _BOLD, 3: _BOLD | _ITALIC}
_ESCAPE = re.compile(r"\\[*_]")
_STAR_RUN = re.compile(r"\*+")
_UNDERSCORE_RUN = re.compile(r"_+")
_LITERAL = "\x01"


@dataclass(frozen=True, slots=True)
class _Line:
    """One source line that survived boneyard and note removal."""

    no: int
    text: str

    @property
    def blank(self) -> bool:
        return not self.text.strip()

    @property
    def soft(self) -> bool:
        """Two or more spaces alone on a line: an intentional blank line inside dialogue."""
        return len(self.text) >= 2 and not self.text.strip(" ")


def strip_emphasis(text: str) -> tuple[str, list[Emphasis]]:
    """Remove Fountain emphasis markup and say which spans it styled.

    `***x***` is bold italic, `**x**` bold, `*x*` italic, `_x_` underline; a backslash makes
    the next `*` or `_` literal. A delimiter must touch its text (`5 * 3` is not italic) and
    underline may not start or end inside a word (`snake_case_name` stays as written). Spans
    may nest and may cross lines inside one element. Runs in linear time.

    Args:
        text: Element text with markup.

    Returns:
        The text without markup, and its styled spans (offsets into that text).

    Example:
        >>> strip_emphasis("a **big** deal")
        ('a big deal', [Emphasis(start=2, end=5, style='bold')])
    """
    if "*" not in text and "_" not in text:
        return text, []
    removed = bytearray(len(text))
    chars = list(text)
    for m in _ESCAPE.finditer(text):
        removed[m.start()] = 1
        chars[m.start()] = chars[m.start() + 1] = _LITERAL
    view = "".join(chars)
    # Per style, +1 where a styled range opens and -1 where it closes (a difference array),
    # so nested and overlapping spans cost nothing extra.
    delta = {flag: [0] * (len(text) + 1) for flag, _ in _STYLE_NAMES}
    matches = [*_pair_stars(view), *_pair_underscores(view)]
    for open_start, content_start, content_end, close_end, flag in matches:
        removed[open_start:content_start] = b"\x01" * (content_start - open_start)
        removed[content_end:close_end] = b"\x01" * (close_end - content_end)
        for bit, _ in _STYLE_NAMES:
            if flag & bit:
                delta[bit][content_start] += 1
                delta[bit][content_end] -= 1
    plain: list[str] = []
    level = {bit: 0 for bit, _ in _STYLE_NAMES}
    styles: list[int] = []
    for i, char in enumerate(text):
        for bit in level:
            level[bit] += delta[bit][i]
        if not removed[i]:
            plain.append(char)
            styles.append(sum(bit for bit, n in level.items() if n > 0))
    return "".join(plain), _spans(styles)


def _pair_stars(view: str) -> list[tuple[int, int, int, int, int]]:
    """Pair `*` runs into (open start, content start, content end, close end, style flag)."""
    out: list[tuple[int, int, int, int, int]] = []
    openers: list[list[int]] = []  # [start, count] of still-open runs, innermost last
    for m in _STAR_RUN.finditer(view):
        pos, count = m.start(), m.end() - m.start()
        before = view[pos - 1] if pos else " "
        after = view[m.end()] if m.end() < len(view) else " "
        if not before.isspace():
            while count and openers:
                start, available = openers[-1]
                used = min(available, count, 3)
                inner = start + available
                out.append((inner - used, inner, pos, pos + used, _STAR_FLAGS[used]))
                pos, count = pos + used, count - used
                if available == used:
                    openers.pop()
                else:
                    openers[-1][1] -= used
        if count and not after.isspace():
            openers.append([pos, count])
    return out


def _pair_underscores(view: str) -> list[tuple[int, int, int, int, int]]:
    """Pair single `_` that open before a word and close after one."""
    out: list[tuple[int, int, int, int, int]] = []
    openers: list[int] = []
    for m in _UNDERSCORE_RUN.finditer(view):
        if m.end() - m.start() != 1:
            continue
        pos = m.start()
        before = view[pos - 1] if pos else " "
        after = view[pos + 1] if pos + 1 < len(view) else " "
        if openers and not before.isspace() and not after.isalnum():
            start = openers.pop()
            out.append((start, start + 1, pos, pos + 1, _UNDERLINE))
        elif not before.isalnum() and not after.isspace():
            openers.append(pos)
    return out


def _spans(styles: list[int]) -> list[Emphasis]:
    spans: list[Emphasis] = []
    for flag, name in _STYLE_NAMES:
        start = None
        for i, st in enumerate([*styles, 0]):
            if st & flag and start is None:
                start = i
            elif not st & flag and start is not None:
                spans.append(Emphasis(start=start, end=i, style=name))
                start = None
    return sorted(spans, key=lambda e: (e.start, e.end))


def _join_pieces(pieces: list[str]) -> str:
    """Glue a line back together after cutting markup out, without doubling spaces."""
    out = pieces[0]
    for piece in pieces[1:]:
        if not out.strip():
            out += piece.lstrip()
        elif out[-1:].isspace() and piece[:1].isspace():
            out = out.rstrip() + " " + piece.lstrip()
        else:
            out += piece
    return out


def _remove_boneyard(lines: list[str]) -> tuple[list[_Line], list[ParseWarning]]:
    """Cut `/* ... */` out of the text.

    A line that held only boneyard disappears; a blank line inside the boneyard stays blank,
    so paragraphs on either side of a removed block stay apart.
    """
    out: list[_Line] = []
    open_at: int | None = None
    for no, text in enumerate(lines, start=1):
        pos = 0
        touched = False
        if open_at is not None:
            end = text.find("*/")
            if end < 0:
                if not text.strip():
                    out.append(_Line(no, ""))
                continue
            open_at, touched = None, True
            text, pos = text[end + 2:].lstrip(), 0
        pieces: list[str] = []
        while True:
            start = text.find("/*", pos)
            if start < 0:
                pieces.append(text[pos:])
                break
            pieces.append(text[pos:start])
            touched = True
            end = text.find("*/", start + 2)
            if end < 0:
                open_at = no
                break
            pos = end + 2
        new = _join_pieces(pieces)
        if not (touched and not new.strip()):
            out.append(_Line(no, new))
    warnings = []
    if open_at is not None:
        warnings.append(ParseWarning(
            line=open_at,
            message="boneyard '/*' is never closed with '*/'; everything after it was ignored",
        ))
    return out, warnings


def _title_block(lines: list[_Line]) -> tuple[list[_Line], list[_Line]]:
    """Split the title-page lines (if any) from the body lines."""
    i = 0
    while i < len(lines) and lines[i].blank:
        i += 1
    end = i
    while end < len(lines) and not lines[end].blank:
        end += 1
    block = lines[i:end]
    keys = [m.group("key") for ln in block if (m := _TITLE_KEY.match(ln.text))]
    if not block or not _TITLE_KEY.match(block[0].text):
        return [], lines
    if not any(k.strip().lower() in _KNOWN_TITLE_KEYS for k in keys):
        return [], lines
    return block, lines[end:]


def _parse_title_page(block: list[_Line]) -> dict[str, str]:
    """Read `Key: value` lines; indented lines continue the previous key's value.

    Keys keep their spelling; values lose notes and emphasis markup, lines joined with '\\n'.
    """
    values: dict[str, list[str]] = {}
    key: str | None = None
    for ln in block:
        m = _TITLE_KEY.match(ln.text)
        if m and not ln.text[:1].isspace():
            key = m.group("key").strip()
            values.setdefault(key, [])
            part = m.group("value")
        elif key is not None:
            part = ln.text
        else:
            continue
        part = _INLINE_NOTE.sub("", part).strip()
        if part:
            values[key].append(part)
    return {k: strip_emphasis("\n".join(v))[0] for k, v in values.items()}


def _extract_notes(lines: list[_Line]) -> tuple[list[_Line], list[Element], list[ParseWarning]]:
    """Cut `[[ ... ]]` notes out of the lines and return them as NOTE elements.

    A note may span lines but, as the spec says, not a truly empty line: an unclosed note
    ends at the next empty line (or the end of the file) with a warning.
    """
    out: list[_Line] = []
    notes: list[Element] = []
    warnings: list[ParseWarning] = []
    open_at: int | None = None
    parts: list[str] = []
    last_no = 0

    def close(end_no: int) -> None:
        notes.append(_element(ElementKind.NOTE, "\n".join(p.strip() for p in parts).strip(),
                              open_at or end_no, end_no))

    def unclosed() -> None:
        warnings.append(ParseWarning(
            line=open_at,
            message="note '[[' is never closed with ']]'; it was ended at the next blank line "
                    "(or the end of the file)",
        ))
        close(last_no)

    for ln in lines:
        text, pos, touched = ln.text, 0, False
        if open_at is not None:
            if ln.blank and not ln.soft:
                unclosed()
                open_at, parts = None, []
                out.append(ln)
                last_no = ln.no
                continue
            end = text.find("]]")
            if end < 0:
                parts.append(text)
                last_no = ln.no
                continue
            parts.append(text[:end])
            close(ln.no)
            open_at, parts, touched = None, [], True
            text = text[end + 2:].lstrip()
        pieces: list[str] = []
        while True:
            start = text.find("[[", pos)
            if start < 0:
                pieces.append(text[pos:])
                break
            pieces.append(text[pos:start])
            touched = True
            end = text.find("]]", start + 2)
            if end < 0:
                open_at, parts = ln.no, [text[start + 2:]]
                break
            notes.append(_element(ElementKind.NOTE, text[start + 2:end].strip(), ln.no, ln.no))
            pos = end + 2
        new = _join_pieces(pieces)
        if not (touched and not new.strip()):
            out.append(_Line(ln.no, new))
        last_no = ln.no
    if open_at is not None:
        unclosed()
    return out, notes, warnings


def _paragraphs(lines: list[_Line]) -> list[list[_Line]]:
    """Group lines into paragraphs at blank lines.

    Lines of two spaces stay inside a paragraph (they are blank lines inside dialogue);
    page breaks, sections and synopses are paragraphs of their own.
    """
    paras: list[list[_Line]] = []
    current: list[_Line] = []

    def flush() -> None:
        while current and current[-1].blank:
            current.pop()
        if current:
            paras.append(current.copy())
        current.clear()

    for ln in lines:
        if ln.blank:
            if ln.soft and current:
                current.append(ln)
            else:
                flush()
            continue
        s = ln.text.strip()
        if _PAGE_BREAK.match(s) or s.startswith("#") or _SYNOPSIS.match(s):
            flush()
            paras.append([ln])
            continue
        current.append(ln)
    flush()
    return paras


def _element(kind: ElementKind, raw: str, start: int, end: int, **fields: object) -> Element:
    text, spans = strip_emphasis(raw)
    return Element(kind=kind, text=text, line_start=start, line_end=end, emphasis=spans,
                   **fields)


def _bare(s: str) -> str:
    return s.replace("*", "").replace("_", "").strip()


def _is_upper(s: str) -> bool:
    """All caps, with at least one cased letter (so '23' and Chinese text are not caps)."""
    return any(c.isupper() for c in s) and s == s.upper()


def _is_transition(s: str) -> bool:
    bare = _bare(s)
    return bare.endswith("TO:") and _is_upper(bare)


def _is_caps_heading(s: str) -> bool:
    return bool(_HEADING.match(s)) and _is_upper(s)


def _cue_match(s: str, *, forced: bool) -> re.Match[str] | None:
    m = _CUE.match(s)
    if m is None:
        return None
    name = m.group("name")
    if not forced and (not _is_upper(name) or _HEADING.match(s) or _is_transition(s)):
        return None
    return m if any(c.isalpha() for c in name) else None


def _looks_like_cue(lines: list[_Line], i: int) -> bool:
    return (
        i + 1 < len(lines)
        and not lines[i + 1].blank
        and _cue_match(lines[i].text.strip(), forced=False) is not None
    )


def _is_split_point(lines: list[_Line], i: int) -> bool:
    """A transition glued to the end of a paragraph, or to a heading after it."""
    if not _is_transition(lines[i].text.strip()):
        return False
    return i == len(lines) - 1 or _is_caps_heading(lines[i + 1].text.strip())


@dataclass
class _Parser:
    """Classifies paragraphs into elements; keeps the state dual dialogue needs.

    Handlers take a paragraph and the index of its first unread line, emit elements, and
    return the index of the next unread line (a paragraph may hold several elements).
    """

    elements: list[Element] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    last_speech: list[int] = field(default_factory=list)

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(ParseWarning(line=line, message=message))

    def emit(self, element: Element) -> None:
        self.elements.append(element)
        self.last_speech = []

    def paragraph(self, lines: list[_Line]) -> None:
        i = 0
        while i < len(lines):
            i = self._one(lines, i)

    def _one(self, lines: list[_Line], i: int) -> int:
        s = lines[i].text.strip()
        no = lines[i].no
        last = i == len(lines) - 1
        if not s:
            return i + 1
        if _PAGE_BREAK.match(s):
            self.emit(Element(kind=ElementKind.PAGE_BREAK, text="", line_start=no, line_end=no))
            return i + 1
        if m := _SECTION.match(s):
            self.emit(_element(ElementKind.SECTION, m.group("text").strip(), no, no,
                               depth=len(m.group("marks"))))
            return i + 1
        if m := _SYNOPSIS.match(s):
            self.emit(_element(ElementKind.SYNOPSIS, m.group("text").strip(), no, no))
            return i + 1
        if s.startswith("!"):
            return self._action(lines, i, forced=True)
        if s.startswith("@"):
            return self._speech(lines, i, forced=True)
        if s.startswith("~"):
            return self._lyrics(lines, i, speaker=None)
        if _CENTERED.match(s):
            return self._centered(lines, i)
        if s.startswith(">"):
            self.emit(_element(ElementKind.TRANSITION, s[1:].strip(), no, no, forced=True))
            return i + 1
        if _FORCED_HEADING.match(s):
            return self._heading(lines, i, s[1:], forced=True)
        if _HEADING.match(s) and (last or _is_upper(s)):
            return self._heading(lines, i, s, forced=False)
        if last and _bare(s) in _STANDARD_TRANSITIONS:
            self.emit(_element(ElementKind.TRANSITION, s, no, no))
            return i + 1
        if _is_transition(s):
            if not last:
                self.warn(no, "transition not followed by a blank line; read as a transition")
            self.emit(_element(ElementKind.TRANSITION, s, no, no))
            return i + 1
        if _looks_like_cue(lines, i):
            return self._speech(lines, i, forced=False)
        return self._action(lines, i, forced=False)

    def _heading(self, lines: list[_Line], i: int, text: str, *, forced: bool) -> int:
        no = lines[i].no
        number = None
        if m := _SCENE_NUMBER.search(text):
            number = m.group("num")
            text = text[: m.start()]
        glued = [
            *(["after a transition"] if self._after_transition(no) else []),
            *(["before the next paragraph"] if i + 1 < len(lines) else []),
        ]
        if glued:
            self.warn(no, f"scene heading with no blank line {' or '.join(glued)}; "
                          "read as a heading")
        self.emit(_element(ElementKind.SCENE_HEADING, text.strip(), no, no,
                           forced=forced, number=number))
        return i + 1

    def _after_transition(self, no: int) -> bool:
        last = self.elements[-1] if self.elements else None
        return last is not None and last.kind is ElementKind.TRANSITION and last.line_end == no - 1

    def _centered(self, lines: list[_Line], i: int) -> int:
        texts = []
        j = i
        while j < len(lines) and (m := _CENTERED.match(lines[j].text.strip())):
            texts.append(m.group("text"))
            j += 1
        self.emit(_element(ElementKind.CENTERED, "\n".join(texts), lines[i].no, lines[j - 1].no))
        return j

    def _action(self, lines: list[_Line], i: int, *, forced: bool) -> int:
        j = i + 1
        while j < len(lines):
            ln = lines[j]
            if ln.soft or ln.text.lstrip().startswith(">") or _is_split_point(lines, j):
                break
            j += 1
        texts = []
        for ln in lines[i:j]:
            text = ln.text.rstrip().expandtabs(4)
            if text.lstrip().startswith("!"):
                text = text.lstrip()[1:]
            texts.append(text)
        self.emit(_element(ElementKind.ACTION, "\n".join(texts).strip("\n"), lines[i].no,
                           lines[j - 1].no, forced=forced))
        return j

    def _lyrics(self, lines: list[_Line], i: int, speaker: str | None) -> int:
        j = i
        while j < len(lines) and lines[j].text.strip().startswith("~"):
            j += 1
        text = "\n".join(ln.text.strip()[1:].strip() for ln in lines[i:j])
        element = _element(ElementKind.LYRIC, text, lines[i].no, lines[j - 1].no, speaker=speaker)
        if speaker is None:
            self.emit(element)
        else:
            self.elements.append(element)
        return j

    def _speech(self, lines: list[_Line], i: int, *, forced: bool) -> int:
        """A cue and what it says: parentheticals, dialogue, lyrics, until the paragraph ends."""
        first = lines[i]
        raw = first.text.strip()[1:].strip() if forced else first.text.strip()
        plain, spans = strip_emphasis(raw)
        m = _cue_match(plain, forced=True)
        name = m.group("name").rstrip(" :") if m else plain
        cue = parse_cue(f"{name} {m.group('ext') if m else ''}{'^' if plain.endswith('^') else ''}")
        text = plain[:-1].rstrip() if cue.dual else plain
        previous = self.last_speech
        start = len(self.elements)
        self.elements.append(Element(
            kind=ElementKind.CHARACTER, text=text, line_start=first.no, line_end=first.no,
            speaker=cue.name, extensions=cue.extensions, forced=forced,
            emphasis=[e for e in spans if e.end <= len(text)],
        ))
        if i + 1 == len(lines):
            self.warn(first.no, f"character cue {text!r} has no dialogue after it")
        end = self._speech_body(lines, i + 1, cue.name)
        if cue.dual:
            if not previous:
                self.warn(first.no, "dual dialogue '^' with no speech just before it")
            for k in (*previous, *range(start, len(self.elements))):
                self.elements[k] = self.elements[k].model_copy(update={"dual": True})
        self.last_speech = list(range(start, len(self.elements)))
        return end

    def _speech_body(self, lines: list[_Line], i: int, speaker: str) -> int:
        dialogue: list[_Line] = []

        def flush() -> None:
            while dialogue and dialogue[-1].soft:
                dialogue.pop()
            if dialogue:
                text = "\n".join("" if ln.soft else ln.text.strip() for ln in dialogue)
                self.elements.append(_element(ElementKind.DIALOGUE, text, dialogue[0].no,
                                              dialogue[-1].no, speaker=speaker))
            dialogue.clear()

        while i < len(lines):
            ln = lines[i]
            s = ln.text.strip()
            if ln.soft:
                if _looks_like_cue(lines, i + 1):
                    flush()
                    return i + 1
                if dialogue:
                    dialogue.append(ln)
                i += 1
            elif _is_split_point(lines, i):
                break
            elif s.startswith("~"):
                flush()
                i = self._lyrics(lines, i, speaker)
            elif s.startswith("(") and (end := _parenthetical_end(lines, i)) is not None:
                flush()
                text = "\n".join(x.text.strip() for x in lines[i:end + 1])
                self.elements.append(_element(ElementKind.PARENTHETICAL, text, ln.no,
                                              lines[end].no, speaker=speaker))
                i = end + 1
            else:
                dialogue.append(ln)
                i += 1
        flush()
        return i


def _parenthetical_end(lines: list[_Line], i: int) -> int | None:
    """Index of the line that closes the parenthetical opened on line i (i itself if one-line).

    A line starting with '(' that does not end with ')' is dialogue (None), unless one of the
    next three lines closes the parenthesis.
    """
    s = lines[i].text.strip()
    if s.endswith(")"):
        return i
    if ")" not in s:
        for j in range(i + 1, min(i + 4, len(lines))):
            t = lines[j].text.strip()
            if "(" in t or lines[j].soft:
                break
            if t.endswith(")"):
                return j
    return None


def read_fountain(text: str, *, path: str) -> ReadResult:
    """Read a Fountain 1.1 screenplay.

    Args:
        text: The decoded file content (any line ends).
        path: The file's path, for messages.

    Returns:
        Scenes with their elements (line numbers are 1-based source lines), the title page
        (keys as written, values without markup), and warnings for layouts the reader had
        to guess about (unclosed boneyard or note, headings or transitions without the
        blank lines the spec asks for, dual dialogue with nothing to pair with).

    Raises:
        Nothing on malformed Fountain: the format has no syntax errors, anything unrecognised
        is action, and doubtful spots become warnings.

    Example:
        >>> result = read_fountain("INT. HOUSE - DAY\\n\\nBOB\\nHi.\\n", path="x.fountain")
        >>> [e.kind.value for e in result.scenes[0].elements]
        ['scene_heading', 'character', 'dialogue']
    """
    del path  # Every input is valid Fountain; the path would only be needed for errors.
    raw_lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines, warnings = _remove_boneyard(raw_lines)
    title_block, body = _title_block(lines)
    title_page = _parse_title_page(title_block)
    body, notes, note_warnings = _extract_notes(body)
    parser = _Parser()
    for para in _paragraphs(body):
        parser.paragraph(para)
    elements = sorted(
        [*parser.elements, *notes],
        key=lambda e: (e.line_start, e.kind is ElementKind.NOTE),
    )
    all_warnings = sorted([*warnings, *note_warnings, *parser.warnings],
                          key=lambda w: w.line or 0)
    return ReadResult(
        scenes=assemble_scenes(elements), title_page=title_page, warnings=all_warnings,
    )

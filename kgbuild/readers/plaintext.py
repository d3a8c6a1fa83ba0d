"""Plain-text screenplays: IMSDb-style indented text, and text with no layout at all.

A plain-text screenplay says what each line is only through its indentation (which differs from
script to script and even from page to page), its capitals and its neighbours. The reader works
in three steps, each a small pure function:

1. `classify_lines` gives every line a one-letter tag (see `TAGS`). It first marks the lines a
   pattern decides alone (blank, page numbers, headings, transitions), then learns the layout of
   this document (where action, dialogue and cues sit, page by page, or that there is no
   indentation at all), then walks the lines once with that layout.
2. `plain_elements` joins consecutive lines of one kind into `Element`s.
3. `read_plain` is the reader entry point used by `kgbuild.readers.read_screenplay`.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass

from kgbuild.model import Element, ElementKind, ParseWarning
from kgbuild.readers.assemble import ReadResult, assemble_scenes
from kgbuild.readers.cues import parse_cue
from kgbuild.readers.headings import is_editing_note, is_english_heading, parse_english_heading, strip_scene_numbers
from kgbuild.readers.inline_cues import inline_elements, uses_inline_cues
from kgbuild.timewords import HEADING_TIMES, PRESENT_NOTES

logger = logging.getLogger(__name__)

#: The line tags `classify_lines` returns.
TAGS: dict[str, str] = {
    "S": "scene heading",
    "N": "action",
    "C": "character cue",
    "D": "dialogue",
    "E": "parenthetical",
    "T": "transition",
    "M": "metadata (title page, page numbers, CONTINUED, revision lines)",
    "P": "a lone letter set apart from the cue under it by a PDF export ('C' over 'HOLO')",
    "O": "blank or other",
}

_TAG_KIND: dict[str, ElementKind] = {
    "S": ElementKind.SCENE_HEADING,
    "N": ElementKind.ACTION,
    "C": ElementKind.CHARACTER,
    "D": ElementKind.DIALOGUE,
    "E": ElementKind.PARENTHETICAL,
    "T": ElementKind.TRANSITION,
}
_SPEECH = frozenset("CDE")
_TAB = 8

# ---------------------------------------------------------------------------------------------
# Line shapes decided by the text alone
# ---------------------------------------------------------------------------------------------

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[\"'!(]?[A-Z]?\d{1,3}[A-Z]{0,2}\s*\.?\)?$"
    r"|^-\s*\d{1,3}\s*-$|^\d{1,3}\s*/\s*\d{1,3}$",
    re.IGNORECASE,
)
_CONTINUED = re.compile(
    r"^\(?\s*(?:CONTINUED|CONT['’]?D|CONTINUING)\s*\)?\s*:?\s*(?:\(\s*\d+\s*\))?$", re.IGNORECASE
)
_NUMBERED_CONTINUED = re.compile(r"^[A-Z]?\d+[A-Z]*\s+CONTINUED\s*:?(?:\s+[A-Z]?\d+[A-Z]*)?$")
_OMITTED = re.compile(r"^(?:[A-Z]{0,3}\d+[A-Z]{0,3}\s+)?OMITTED(?:\s+[A-Z]{0,3}\d+[A-Z]{0,3})?$")
_REVISION = re.compile(
    r"^(?:[A-Za-z]+\s+)?(?:REV\.|REVISED|REVISIONS?|[A-Z ]*DRAFT|SHOOTING\s+SCRIPT)\b[^a-z]*$"
    r"|^(?:[A-Za-z]+\s+)?(?:Rev\.|Revised|Revisions?)\s.*(?:\d{1,2}/\d{1,2}/\d{2,4}|mm/dd/yy).*$"
)
_MORE = re.compile(r"^\(\s*MORE\s*\)$", re.IGNORECASE)
_TRANSITION = re.compile(
    r"""^(?:
        (?:[A-Z]+\s+){0,2}(?:CUT|FADE|DISSOLVE|WIPE|SLAM|IRIS|CRASH|SMASH\s?CUT|MATCH\s?CUT)\s+TO
            \s*(?::.*|BLACK\b.*|WHITE\b.*)?
      | (?:[A-Z]+\s+){0,2}(?:CUT|FADE|DISSOLVE|BACK|FLASH|SLAM|WIPE)\s+TO\s*:
      | FADE\s+(?:IN|OUT|UP|DOWN)\b.* | FADES?\s+TO\s+BLACK.* | CUT\s+TO\s+BLACK.*
      | (?:TIME|JUMP|SMASH|MATCH|QUICK|HARD)\s*CUTS?\s*(?:TO)?\s*: | JUMPCUTS?\s*:
      | INTERCUT\s*: | INTERCUT\s+WITH\s*:? | CUT\s+BACK\s+TO\s*:?
      | (?:BEGIN|END)\s+(?:MONTAGE|INTERCUTS?|FLASHBACK|SERIES\s+OF\s+SHOTS)\.?
      | (?:[A-Z]+\s+){1,3}QUICK\s+CUTS(?:\s+OF\s+[A-Z ]+)?\s*:
      | [-–—]+\s*FLASH\s*BACK\s*[-–—]+
      | CLOSE\s+ON\s*:
    )\s*$""",
    re.VERBOSE,
)
# What such a heading ends with: a time (`kgbuild.timewords`) or the present, longest first.
_TIME_WORDS = "|".join(re.escape(t) for t in sorted(HEADING_TIMES | PRESENT_NOTES, key=lambda t: (-len(t), t)))
# A heading without INT./EXT.: 'A JUNGLE - NIGHT', 'WAKE UP MONTAGE - MORNING'.
_BARE_HEADING = re.compile(rf"^[A-Z0-9][^a-z]*\s[-–—]+\s+(?:[A-Z ]+\s)?(?:{_TIME_WORDS})\)?$")
_SCENE_NUMBER = r"[A-Z]{0,3}\d{1,4}[A-Z]{0,3}"
# '242B    SERIES OF SHOTS    242B': the same printed number on both sides makes it a heading.
_NUMBERED_LINE = re.compile(rf"^(?P<a>{_SCENE_NUMBER})\s+(?P<body>\S.*?)\s+(?P<b>{_SCENE_NUMBER})$")
_UPPER_PREFIX = re.compile(
    r"^(?:[A-Za-z]{0,3}\d{1,4}[A-Za-z]{0,3}[.)]?\s+)?(?:INT|EXT|EST|I/E|E/I)\b"
)

# Cues: a name in capitals, optional extensions in parentheses, optional dual marker.
_CUE = re.compile(
    r"""^(?P<name>
        (?:M[Cc]|D[Ee]|L[Aa]|V[Oo][Nn]\s)?[A-Z0-9\u00C0-\u00DE][A-Z0-9\u00C0-\u00DE.'’`\-#&/ ,]*?
    )\s*(?P<ext>(?:[(\[][^()\[\]]*[)\]]\s*)*)\^?$""",
    re.VERBOSE,
)
_SENTENCE_END = re.compile(r"[!?;:\"“”]$|--$|-$|\.\.\.$|…$")
_ABBREVIATION_END = re.compile(
    r"(?:^|[\s.])(?:[A-Z]|[A-Z]\.[A-Z]|MR|MRS|MS|DR|ST|JR|SR|LT|SGT|COL|GEN|CPT|CAPT|PROF|REV"
    r"|DET|MAJ|CPL|PVT|GOV|SEN|AGT|OFC|NO)\.$"
)
_LOWER = re.compile(r"[a-z]")
# Camera and editing directions in capitals that are not speakers.
_NOT_A_NAME = re.compile(
    r"^(?:BACK\s+TO|ANGLE|CLOSE\s*(?:ON|UP)|CLOSEUP|INSERT|POV|WIDE|EXTREME|REVERSE|OVER\s+BLACK|"
    r"SERIES\s+OF|MONTAGE|FLASHBACK|SUPER|TITLE|LATER|MOMENTS\s+LATER|CONTINUOUS|THE\s+END|"
    r"END\s+OF|SLOW\s+MOTION|SILENCE|BLACK(?:OUT)?|DARKNESS|CREDITS|INTERCUT|SPLIT\s+SCREEN|"
    r"PULL\s+BACK|PAN\s+(?:UP|DOWN|TO)|TRACKING|HIGH\s+ANGLE|LOW\s+ANGLE|AERIAL|ESTABLISHING)\b"
    r"|.*\b(?:P\.?O\.?V\.?|MONTAGE(?:\s+BEGINS|\s+ENDS)?|SHOT)$"
    r"|.*\b(?:LATER|EARLIER|AGO|BEFORE)$"
)
_LETTER = re.compile(r"[A-Za-z]")
_TITLE_WORDS = re.compile(
    r"^(?:(?:original\s+)?(?:screenplay|story|teleplay|written)\s+by|by|based\s+(?:on|upon)\b.*"
    r"|adapted\s+screenplay|draft\b.*|final\s+draft.*|copyright.*|©.*|all rights reserved.*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Line:
    """One source line, measured."""

    text: str
    indent: int

    @property
    def blank(self) -> bool:
        return not self.text

    @property
    def caps(self) -> bool:
        """Has letters and none of them lower case."""
        return bool(_LETTER.search(self.text)) and not _LOWER.search(self.text)

    @property
    def prose(self) -> bool:
        """Looks like running text: has lower-case letters and does not open a parenthesis."""
        return bool(_LOWER.search(self.text)) and not self.text.startswith("(")


def _measure(raw: str) -> _Line:
    expanded = raw.replace("\f", " ").replace("\r", "").expandtabs(_TAB)
    text = expanded.strip()
    indent = len(expanded) - len(expanded.lstrip()) if text else 0
    return _Line(text=text, indent=indent)


def is_page_furniture(text: str) -> bool:
    """True for page numbers, CONTINUED markers, OMITTED scenes and revision lines.

    Example:
        >>> is_page_furniture("12."), is_page_furniture("(CONTINUED)")
        (True, True)
    """
    if _PAGE_NUMBER.match(text) or _CONTINUED.match(text) or _NUMBERED_CONTINUED.match(text):
        return True
    if _OMITTED.match(text):
        return True
    return len(text) < 70 and bool(_REVISION.match(text))


def is_transition(text: str) -> bool:
    """True for transitions such as CUT TO:, FADE IN:, DISSOLVE TO:, SMASH CUT TO:, TIME CUT:.

    Example:
        >>> is_transition("CUT TO:"), is_transition("CUTTER")
        (True, False)
    """
    return not _LOWER.search(text) and bool(_TRANSITION.match(text))


def is_heading_line(text: str, *, longest: int = 70) -> bool:
    """True for a scene heading: INT./EXT. (upper case, after an optional scene number), a
    numbered line with the same number on both sides, or 'PLACE - NIGHT' in capitals (at most
    `longest` characters: a heading wrapped over lines and joined again is longer).

    Example:
        >>> is_heading_line("12  INT. HOUSE - NIGHT  12"), is_heading_line("CLINT BARTON")
        (True, False)
    """
    if _UPPER_PREFIX.match(text) and is_english_heading(text):
        return True
    m = _NUMBERED_LINE.match(text)
    if m and m.group("a") == m.group("b") and not _LOWER.search(m.group("body")):
        return not _OMITTED.match(text)
    return bool(_BARE_HEADING.match(text)) and len(text) <= longest


def cue_name(text: str) -> str | None:
    """The speaker name when `text` has the shape of a character cue, else None.

    A cue is a short name in capitals ('JOHN', 'GROUPIE #1', 'C-3PO', 'MR. SMITH') with optional
    extensions in parentheses ('(V.O.)', '(O.S., PRELAP)', '(CONT’D)'); it does not end a
    sentence ('SHARDS OF BROKEN GLASS.' is action).

    Example:
        >>> cue_name("JOHN (CONT'D)"), cue_name("SHARDS OF BROKEN GLASS.")
        ('JOHN', None)
    """
    m = _CUE.match(text)
    if not m:
        return None
    name = m.group("name").strip(" ,")
    if not name or len(name) > 38 or not _LETTER.search(name) or len(name.split()) > 6:
        return None
    if _SENTENCE_END.search(name) or (name.endswith(".") and not _ABBREVIATION_END.search(name)):
        return None
    if name.endswith(",") or is_transition(text) or is_heading_line(text):
        return None
    if re.fullmatch(r"[\d\s.#/-]+", name) or _NOT_A_NAME.match(name) or " - " in name or is_editing_note(name):
        return None
    return parse_cue(text).name or None


def _fixed_tag(line: _Line) -> str | None:
    """The tag a line gets from its text alone, or None when layout and context decide."""
    text = line.text
    if not text:
        return "O"
    if _MORE.match(text):
        return "E"
    if is_page_furniture(text):
        return "M"
    if is_heading_line(text):
        return "S"
    if is_transition(text):
        return "T"
    return None


# ---------------------------------------------------------------------------------------------
# Layout learning
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """What this document's layout says about where each kind of line sits.

    Indentation is compared locally (a cue sits to the right of the speech under it; a speech
    keeps one indent), because page layouts shift from page to page in converted PDFs. The
    document-wide facts are the set of indents at which speech starts and the width speech
    wraps at (for text with no indentation).
    """

    indented: bool
    action_indents: frozenset[int]
    dialogue_width: int
    cue_counts: Counter[str]


def _next_content(
    lines: list[_Line], i: int, fixed: list[str | None], limit: int = 1
) -> int | None:
    """Index of the next non-blank, non-metadata line after i, past at most `limit` blanks."""
    blanks = 0
    for j in range(i + 1, len(lines)):
        if lines[j].blank:
            blanks += 1
            if blanks > limit:
                return None
            continue
        if fixed[j] == "M":
            blanks = 0  # a page break: the blank lines around a page number do not count
            continue
        return j
    return None


def _skip_parentheticals(lines: list[_Line], fixed: list[str | None], j: int) -> int | None:
    """From a line after a cue, the first line that is not part of a parenthetical (looking
    past single blank lines)."""
    k: int | None = j
    while k is not None and lines[k].text.startswith("(") and fixed[k] is None:
        start = k
        while k < len(lines) and ")" not in lines[k].text and k - start < 6:
            k += 1
        k = _next_content(lines, k, fixed) if k < len(lines) else None
    if k is not None and fixed[k] is None:
        return k
    return None


@dataclass(frozen=True)
class _Sample:
    """A cue-shaped line followed by speech-like text: evidence about the layout."""

    cue: int
    speech: int | None
    name: str
    step: int


def _speech_samples(lines: list[_Line], fixed: list[str | None]) -> list[_Sample]:
    """Cue-shaped lines followed by prose or a parenthetical, with how far they stand right."""
    out: list[_Sample] = []
    for i, line in enumerate(lines):
        if fixed[i] is not None or not line.caps:
            continue
        name = cue_name(line.text)
        if not name:
            continue
        j = _next_content(lines, i, fixed)
        if j is None or fixed[j] is not None:
            continue
        if not (lines[j].prose or lines[j].text.startswith("(")):
            continue
        k = _skip_parentheticals(lines, fixed, j)
        speech = k if k is not None and lines[k].prose else None
        step = line.indent - lines[speech if speech is not None else j].indent
        out.append(_Sample(cue=i, speech=speech, name=name, step=step))
    return out


def _percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _speech_lines(lines: list[_Line], samples: list[_Sample]) -> list[int]:
    """The lines of the speeches the samples open: same indent, no blank line."""
    out: list[int] = []
    for s in samples:
        if s.speech is None:
            continue
        k = s.speech
        while k < len(lines) and lines[k].prose and lines[k].indent == lines[s.speech].indent:
            out.append(k)
            k += 1
    return out


def _learn_layout(lines: list[_Line], fixed: list[str | None]) -> _Layout:
    """Learn, for this document, where speech and action sit and how wide speech runs."""
    samples = _speech_samples(lines, fixed)
    stepped = [s for s in samples if s.step >= 3]
    indented = len(stepped) >= max(1, 0.5 * len(samples))
    used = stepped if indented else samples
    width = _dialogue_width(lines, fixed, used)
    if not indented:
        # With no layout, a cue-shaped line over a line as wide as action is a slug or a shot.
        used = [s for s in used if s.speech is None or len(lines[s.speech].text) <= width + 2]
    cue_counts = Counter(s.name for s in used)
    speech = _speech_lines(lines, used)
    speech_set = set(speech)
    dialogue_counts = Counter(lines[j].indent for j in speech)
    action_counts = Counter(
        x.indent
        for n, x in enumerate(lines)
        if x.prose and fixed[n] is None and n not in speech_set
    )
    action_indents = frozenset(
        k for k, v in action_counts.items() if v >= 3 and v > 2 * dialogue_counts.get(k, 0)
    )
    return _Layout(
        indented=indented,
        action_indents=action_indents,
        dialogue_width=width,
        cue_counts=cue_counts,
    )


def _dialogue_width(lines: list[_Line], fixed: list[str | None], samples: list[_Sample]) -> int:
    """The width speech wraps at: the long end of first speech lines that wrapped (another
    text line follows them). Text with no layout tells speech from action by it."""
    wrapped = []
    for s in samples:
        k = s.speech
        if k is None or k + 1 >= len(lines) or fixed[k + 1] is not None:
            continue
        nxt = lines[k + 1].text
        if nxt and not cue_name(nxt) and not nxt.startswith("("):
            wrapped.append(len(lines[k].text))
    prose = [len(x.text) for x in lines if x.prose]
    action_width = _percentile(prose, 0.95) if prose else 60
    if len(wrapped) >= 5:
        # Most samples are real speech; the few slugs over action lines must not set the width.
        rough = _percentile(wrapped, 0.6) + 6
        wrapped = [w for w in wrapped if w <= rough + 2]
        width = min(_percentile(wrapped, 0.9) + 2, action_width - 4)
    else:
        width = min(45, action_width - 6)
    return max(width, 25)


# ---------------------------------------------------------------------------------------------
# Tagging
# ---------------------------------------------------------------------------------------------


def _is_cue(i: int, lines: list[_Line], fixed: list[str | None], layout: _Layout) -> bool:
    """Decide whether line i is a character cue, given the document layout."""
    line = lines[i]
    if _is_dual_cue(line.text):
        return True
    name = cue_name(line.text) or _known_variant(line.text, layout)
    if not name:
        return False
    j = _next_content(lines, i, fixed)
    if j is None or fixed[j] is not None:
        return False
    nxt = lines[j]
    if not layout.indented and j > i + 1 and not nxt.text.startswith("("):
        return False  # with no layout, only a parenthetical may sit a blank line below a cue
    stepped_left = layout.indented and nxt.indent <= line.indent - 3
    speech_like = nxt.prose or nxt.text.startswith("(") or not _LETTER.search(nxt.text)
    if not (speech_like or (nxt.caps and (stepped_left or not cue_name(nxt.text)))):
        return False
    if layout.indented:
        return _is_indented_cue(i, j, name, lines, fixed, layout)
    return _is_flat_cue(i, j, name, lines, fixed, layout)


def _is_dual_cue(text: str) -> bool:
    """Two cues side by side ('NICK          HOPPS (CONT'D)'): dual dialogue."""
    parts = re.split(r"\s{4,}", text)
    return len(parts) == 2 and all(_CUE.match(p) and cue_name(p) for p in parts)


def _known_variant(text: str, layout: _Layout) -> str | None:
    """'Keating' or 'HOPPS.' where the script elsewhere writes the cue KEATING or HOPPS."""
    variant = text.rstrip(".").upper()
    if variant != text and len(text) <= 30 and cue_name(variant):
        name = parse_cue(variant).name
        if layout.cue_counts.get(name, 0) >= 3:
            return name
    return None


def _is_indented_cue(
    i: int, j: int, name: str, lines: list[_Line], fixed: list[str | None], layout: _Layout
) -> bool:
    k = _skip_parentheticals(lines, fixed, j)
    speech = lines[k] if k is not None else None
    known = layout.cue_counts.get(name, 0)
    if speech is not None and lines[i].indent - speech.indent >= 3:
        # Stands right of the text under it: a cue, unless that text sits at the action margin
        # (where only a name known as a speaker is trusted: some pages lose their layout).
        if speech.indent not in layout.action_indents:
            return True
        return known >= 2 and lines[i].indent not in layout.action_indents
    if speech is None:
        return lines[j].text.startswith("(") and (lines[i].indent > lines[j].indent or known >= 1)
    if not _in_speech_column(speech, layout):
        return False
    # Not right of its speech (some scripts do this now and then): a known speaker, or a cue
    # with extensions, standing in or left of the speech column.
    if lines[i].indent >= speech.indent:
        return known >= 1 or "(" in lines[i].text
    return known >= 2


def _is_flat_cue(
    i: int, j: int, name: str, lines: list[_Line], fixed: list[str | None], layout: _Layout
) -> bool:
    line, nxt = lines[i], lines[j]
    if not (nxt.prose or nxt.text.startswith("(")):
        return False
    known = layout.cue_counts.get(name, 0) >= 2 or "(" in line.text
    if not known and (nxt.text[0].islower() or len(nxt.text) > layout.dialogue_width + 2):
        # A sentence running on ('WICKI / brings his weapon...') or a line as wide as action.
        return False
    prev = lines[i - 1] if i > 0 else None
    opens_block = prev is None or prev.blank or fixed[i - 1] is not None
    ends_sentence = prev is not None and bool(re.search(r"[.!?)\"”’'-]$", prev.text))
    return known or opens_block or ends_sentence


@dataclass
class _State:
    """Where the walk is: the last content tag and the current speech block."""

    last: str = "O"
    blank_since: bool = True
    block_indent: int | None = None
    paren_open: bool = False
    last_text: str = ""


def _tag_speech(line: _Line, state: _State, layout: _Layout) -> str | None:
    """Tag a line that may continue the current speech (after a cue, dialogue or parenthetical)."""
    text = line.text
    if state.paren_open:
        return "E"
    if state.last not in _SPEECH:
        return None
    if state.blank_since and state.last != "C":
        if text.startswith("(") and _in_speech_column(line, layout):
            return "E"
        if state.last == "D" and line.caps and text.endswith("-") and not cue_name(text):
            return "D"  # a word of the speech set apart: 'SAY-'
        return None
    if text.startswith("("):
        return "E"
    if state.last == "C":
        return "D"
    if layout.indented:
        if state.block_indent is None:
            return "D" if _in_speech_column(line, layout) else None
        return "D" if line.indent == state.block_indent else None
    if len(text) > layout.dialogue_width + 2:
        return None
    if state.last == "D" and _paragraph_ended(state.last_text, text, layout):
        return None
    return "D"


def _paragraph_ended(previous: str, text: str, layout: _Layout) -> bool:
    """True when the next word would have fitted on the previous line: the previous line ended
    its paragraph, so this line starts a new one (text with no layout has no other sign)."""
    first_word = text.split(" ", 1)[0]
    return len(previous) + 1 + len(first_word) <= layout.dialogue_width - 10


def _in_speech_column(line: _Line, layout: _Layout) -> bool:
    if not layout.indented or not layout.action_indents:
        return True
    return line.indent not in layout.action_indents and line.indent > min(layout.action_indents)


def _tag_line(
    i: int, lines: list[_Line], fixed: list[str | None], layout: _Layout, state: _State
) -> str:
    line = lines[i]
    speech = _tag_speech(line, state, layout)
    if speech == "E":
        return "E"
    # A capitals line inside a speech may be the next cue (no blank line between).
    if speech == "D" and (state.last == "C" or not (line.caps and _is_cue(i, lines, fixed, layout))):
        return "D"
    if _is_cue(i, lines, fixed, layout):
        return "C"
    return "N"


def _update(state: _State, tag: str, line: _Line) -> None:
    if tag == "O":
        state.blank_since = True
        return
    if tag in ("M", "P"):
        return
    if tag == "E":
        opens = line.text.startswith("(") and ")" not in line.text
        state.paren_open = opens or (state.paren_open and ")" not in line.text)
    else:
        state.paren_open = False
    if tag == "C":
        state.block_indent = None
    elif tag == "D":
        state.block_indent = line.indent
    state.last = tag
    state.last_text = line.text
    state.blank_since = False


def _walk(lines: list[_Line], fixed: list[str | None], layout: _Layout) -> list[str]:
    tags: list[str] = []
    state = _State()
    for i, line in enumerate(lines):
        tag = fixed[i]
        if tag is None:
            tag = _tag_line(i, lines, fixed, layout, state)
        tags.append(tag)
        _update(state, tag, line)
    return tags


_LONE_LETTER = re.compile(r"^[A-Z]$")


def _cue_pieces(lines: list[_Line], fixed: list[str | None]) -> list[str | None]:
    """A lone capital letter right above a line in capitals that has speech under it ('C' over
    'HOLO' over 'I guess...') is a piece a PDF export set apart from that line, most often the
    first letter of a cue: it is tagged "P", so the cue is read as one (and, when the line under
    it is no cue, action again). Which name the pieces make is decided with the whole script
    (`kgbuild.readers.broken_cues`)."""
    out = list(fixed)
    for i in range(len(lines) - 2):
        if out[i] is not None or not _LONE_LETTER.match(lines[i].text):
            continue
        cue, speech = lines[i + 1], lines[i + 2]
        if out[i + 1] is None and cue.caps and cue_name(cue.text) and (speech.prose or speech.text.startswith("(")):
            out[i] = "P"
    return out


def _settled_pieces(tags: list[str]) -> list[str]:
    """A lone letter over a line that turned out no cue is action, as it was."""
    return ["N" if tag == "P" and (i + 1 >= len(tags) or tags[i + 1] != "C") else tag for i, tag in enumerate(tags)]


def _heading_continuations(lines: list[_Line], fixed: list[str | None]) -> list[str | None]:
    """A short capitals line right under a heading continues it ('... -- LATE' / 'AFTERNOON')
    when a blank line follows it or, in text without blank lines, when the heading is visibly
    unfinished (see `_completes_heading`); a parenthesis such as '(FLASHBACK)' does not."""
    out = list(fixed)
    for i in range(1, len(lines)):
        line = lines[i]
        if out[i - 1] != "S" or out[i] is not None:
            continue
        if not line.caps or len(line.text) > 30 or line.text.startswith("("):
            continue
        blank_after = i + 1 < len(lines) and lines[i + 1].blank
        if blank_after or _completes_heading(lines[i - 1].text, line.text):
            out[i] = "S"
    return out


def _completes_heading(heading: str, text: str) -> bool:
    """True when `heading` breaks off (a dangling '-' or '--') or lacks a time of day that
    `text` supplies: 'INT. OFFICE -- LATE' + 'AFTERNOON'."""
    body, _ = strip_scene_numbers(heading)
    if re.search(r"(?:\s-+|--)$", body):
        return True
    if parse_english_heading(body).time_of_day is not None:
        return False
    return parse_english_heading(f"{body} {text}").time_of_day is not None


def _starts_story(i: int, lines: list[_Line], tags: list[str]) -> bool:
    """A heading, a transition, or a cue over speech that is not a credit ('Written by')."""
    if tags[i] in ("S", "T"):
        return True
    if tags[i] != "C":
        return False
    j = next((k for k in range(i + 1, len(lines)) if not lines[k].blank), None)
    return j is not None and tags[j] in ("D", "E") and not _TITLE_WORDS.match(lines[j].text)


def _title_page(lines: list[_Line], tags: list[str]) -> list[str]:
    """Lines before the story starts that are credits or centered titles become metadata."""
    start = next((i for i, t in enumerate(tags) if _starts_story(i, lines, tags)), len(tags))
    if start > max(80, len(tags) // 10):
        return tags
    out = list(tags)
    for i in range(start):
        text = lines[i].text
        if not text or out[i] == "M":
            continue
        centered = lines[i].indent >= 14 and len(text) < 60
        credit = _TITLE_WORDS.match(text) or (centered and not text.endswith(":"))
        if credit or out[i] in ("C", "D", "E"):
            out[i] = "M"
    return out


def classify_lines(lines: list[str]) -> list[str]:
    """Tag every line of a plain-text screenplay.

    Args:
        lines: The text split on newlines (tabs and form feeds allowed).

    Returns:
        One tag per line: "S" heading, "N" action, "C" cue, "D" dialogue, "E" parenthetical,
        "T" transition, "M" metadata (title page, page numbers, CONTINUED, revisions),
        "P" a lone letter of the cue under it, "O" blank or other.

    Example:
        >>> classify_lines(["INT. HOUSE - DAY", "", "          JOHN", "     Hi.", ""])
        ['S', 'O', 'C', 'D', 'O']
    """
    return _classify(lines)[0]


def _classify(lines: list[str]) -> tuple[list[str], list[ParseWarning]]:
    """Tags, and warnings (line numbers 0-based) for the decisions the layout did not settle."""
    measured = [_measure(raw) for raw in lines]
    fixed = _cue_pieces(measured, _heading_continuations(measured, [_fixed_tag(line) for line in measured]))
    layout = _learn_layout(measured, fixed)
    tags = _settled_pieces(_title_page(measured, _walk(measured, fixed, layout)))
    return tags, _unsure(measured, tags, layout)


def _unsure(lines: list[_Line], tags: list[str], layout: _Layout) -> list[ParseWarning]:
    """Low-confidence decisions: cues taken without an indentation step in an indented script,
    and known speakers' names read as action."""
    out: list[ParseWarning] = []
    for n, tag in enumerate(tags):
        line = lines[n]
        nxt = next((k for k in range(n + 1, min(n + 3, len(lines))) if tags[k] in "DE"), None)
        if tag == "C" and layout.indented and nxt is not None:
            if tags[nxt] == "D" and lines[nxt].indent > line.indent - 3:
                out.append(ParseWarning(
                    line=n, message="cue without indentation step, taken as a known speaker"))
        elif tag == "N" and line.caps and layout.cue_counts.get(cue_name(line.text) or "", 0) >= 2:
            out.append(ParseWarning(line=n, message="a known speaker's name read as action"))
    return out


# ---------------------------------------------------------------------------------------------
# Elements
# ---------------------------------------------------------------------------------------------


def _element(tag: str, texts: list[str], start: int, end: int) -> Element:
    text = " ".join(texts)
    kind = _TAG_KIND[tag]
    if tag == "C":
        side_by_side = _is_dual_cue(text)
        # Two cues side by side: the element speaks for the left one and is marked dual.
        cue = parse_cue(re.split(r"\s{4,}", text)[0] if side_by_side else text)
        return Element(
            kind=kind, text=" ".join(text.split()), line_start=start, line_end=end,
            speaker=cue.name, extensions=cue.extensions, dual=cue.dual or side_by_side,
        )
    if tag == "S":
        heading, number = strip_scene_numbers(text)
        return Element(
            kind=kind, text=heading or text, line_start=start, line_end=end, number=number
        )
    return Element(kind=kind, text=text, line_start=start, line_end=end)


def _starts_new(tag: str, prev_tag: str, text: str) -> bool:
    if tag != prev_tag:
        return True
    # One cue per line, one heading per line unless it wraps; parentheticals are one per '('.
    return tag in ("C", "T") or (tag == "E" and text.startswith("("))


def plain_elements(
    lines: list[str], *, first_line: int = 1
) -> tuple[list[Element], list[ParseWarning]]:
    """Turn plain-text screenplay lines into elements.

    Consecutive lines of one kind become one element (text joined with single spaces); blank
    lines and changes of kind end an element. Cues carry the speaker and extensions, headings
    lose their printed scene numbers (kept in `Element.number`).

    Args:
        lines: The text split on newlines.
        first_line: The source line number of `lines[0]`.

    Returns:
        The elements in order, and warnings for lines the classifier was unsure about.

    Example:
        >>> els, _ = plain_elements(["INT. HOUSE - DAY", "", "      JOHN", "  Hi."])
        >>> [e.kind.value for e in els]
        ['scene_heading', 'character', 'dialogue']
    """
    tags, unsure = _classify(lines)
    return _elements_from_tags(lines, tags, first_line), _shift(unsure, first_line)


def _shift(warnings: list[ParseWarning], first_line: int) -> list[ParseWarning]:
    return [w.model_copy(update={"line": (w.line or 0) + first_line}) for w in warnings]


def _elements_from_tags(lines: list[str], tags: list[str], first_line: int) -> list[Element]:
    elements: list[Element] = []
    current: list[str] = []
    cur_tag = ""
    cur_start = 0
    piece: tuple[str, int] | None = None  # a lone letter of the cue on the next line, and its line
    for n, (raw, tag) in enumerate(zip(lines, tags, strict=True)):
        text = raw.strip() if tag == "C" else " ".join(raw.split())
        if tag == "P":
            if current:
                elements.append(_element(cur_tag, current, cur_start, first_line + n - 1))
                current = []
            piece = (text, first_line + n)
            continue
        if tag == "C" and piece is not None:
            elements.append(_element("C", [f"{piece[0]} {text}"], piece[1], first_line + n))
            piece = None
            continue
        piece = None
        if tag not in _TAG_KIND or not text:
            if current:
                elements.append(_element(cur_tag, current, cur_start, first_line + n - 1))
            current = []
            continue
        if current and _starts_new(tag, cur_tag, text):
            elements.append(_element(cur_tag, current, cur_start, first_line + n - 1))
            current = []
        if not current:
            cur_tag, cur_start = tag, first_line + n
        current.append(text)
    if current:
        elements.append(_element(cur_tag, current, cur_start, first_line + len(lines) - 1))
    return elements


def _inline_elements(lines: list[str], tags: list[str]) -> list[Element]:
    """The elements of a script that writes speech on the cue's line: its headings as the
    classifier found them, what comes before the first as usual, each scene's body read by
    `kgbuild.readers.inline_cues.inline_elements`."""
    headings = [i for i, tag in enumerate(tags) if tag == "S"]
    if not headings:
        return inline_elements(lines)
    elements = _elements_from_tags(lines[: headings[0]], tags[: headings[0]], 1)
    for n, start in enumerate(headings):
        end = headings[n + 1] if n + 1 < len(headings) else len(lines)
        elements += _elements_from_tags(lines[start:start + 1], ["S"], start + 1)
        elements += inline_elements(lines[start + 1:end], first_line=start + 2)
    return elements


def _title_page_facts(lines: list[str], tags: list[str]) -> dict[str, str]:
    """Title, credit line and authors from the metadata lines before the first heading."""
    facts: dict[str, str] = {}
    first = next((i for i, t in enumerate(tags) if t == "S"), len(tags))
    meta = [" ".join(lines[i].split()) for i in range(first) if tags[i] == "M"]
    meta = [m for m in meta if m and not _PAGE_NUMBER.match(m)]
    if not meta:
        return facts
    facts["title"] = meta[0]
    for k, text in enumerate(meta[1:], start=1):
        if re.search(r"\bby$", text, re.IGNORECASE) and k + 1 < len(meta):
            facts.setdefault("credit", text)
            facts.setdefault("author", meta[k + 1])
    return facts


def read_plain(text: str, *, path: str) -> ReadResult:
    """Read a plain-text screenplay (English layout rules, or Chinese when the text is Chinese).

    Args:
        text: The decoded text.
        path: The file's path, for messages.

    Returns:
        Scenes, title-page facts and warnings.

    Example:
        >>> result = read_plain("INT. HOUSE - DAY\\n\\n      JOHN\\n  Hi.\\n", path="x.txt")
        >>> result.scenes[0].heading
        'INT. HOUSE - DAY'
    """
    from kgbuild.readers import detect_language

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if detect_language(text) == "zh":
        from kgbuild.readers.chinese import chinese_elements

        elements, warnings = chinese_elements(lines)
        return ReadResult(scenes=assemble_scenes(elements), warnings=warnings)
    tags, unsure = _classify(lines)
    elements = _inline_elements(lines, tags) if uses_inline_cues(lines) else _elements_from_tags(lines, tags, 1)
    warnings = _shift(unsure, 1)
    logger.debug("%s: %d elements, %d warnings", path, len(elements), len(warnings))
    return ReadResult(
        scenes=assemble_scenes(elements),
        title_page=_title_page_facts(lines, tags),
        warnings=warnings,
    )

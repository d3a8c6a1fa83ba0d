"""PDF reader: rebuild a screenplay's lines from glyph positions, then classify them by indent.

A screenplay PDF has no structure, only text placed on pages. This reader
1. collects glyphs per page (pdfplumber/pdfminer, no layout analysis: that is the slow part),
2. rebuilds lines with their left and right x positions, splitting a line into segments at
   wide gaps (dual dialogue columns, scene numbers and revision asterisks in the margins),
3. drops page furniture: page numbers, running headers, (CONTINUED) / CONTINUED: (2),
   revision asterisks, (MORE), and keeps margin scene numbers for the headings,
4. learns the document's margins (action/heading, cue, parenthetical, dialogue, the right edge
   that transitions align to) from the lines themselves,
5. classifies each line by its margin and content and groups lines into elements; a vertical
   gap of a blank line ends a paragraph. A speech broken by a page break with (MORE) and
   NAME (CONT'D) is stitched back into one speech.

Line numbers are 1-based indices of the reconstructed text lines of the whole document, counted
from the top of page 1 in reading order, including the lines that are dropped (page numbers,
headers, CONTINUED...), so they stay stable whatever the reader decides about a line.
`Element.page` is the 1-based page the element starts on.
"""

from __future__ import annotations

import io
import itertools
import logging
import re
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

import pdfplumber
from pdfminer.converter import PDFPageAggregator
from pdfminer.pdfcolor import PDFColorSpace
from pdfminer.pdfdocument import PDFEncryptionError
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined
from pdfminer.pdfinterp import PDFGraphicState, PDFPageInterpreter, PDFResourceManager
from pdfminer.psexceptions import PSException
from pdfminer.utils import Matrix
from pdfplumber.utils.exceptions import PdfminerException

from kgbuild.errors import InputError, OcrNeededError
from kgbuild.model import Element, ElementKind, ParseWarning
from kgbuild.readers.assemble import ReadResult, assemble_scenes
from kgbuild.readers.cues import parse_cue
from kgbuild.readers.headings import is_english_heading, strip_scene_numbers

logger = logging.getLogger(__name__)

_SEGMENT_GAP = 3.5  # character widths of empty space that split a line into segments
_MARGIN_GAP = 2.5  # a smaller gap is enough to set a margin mark (scene number, *) apart
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[-–]?\s*\d{1,4}\s*[-–]?\s*\.?$", re.IGNORECASE)
_MARGIN_NUMBER = re.compile(r"^[A-Z]{0,3}\d{1,4}[A-Z]{0,3}(?:[-.]\d{1,3}[A-Z]?)?\.?$")
_ASTERISKS = re.compile(r"^\*+$")
_CONTINUED = re.compile(r"^\(?\s*CONTINUED\s*\)?\s*:?\s*(?:\(\s*\d+\s*\))?$", re.IGNORECASE)
_MORE = re.compile(r"^\(\s*MORE\s*\)$", re.IGNORECASE)
_TRANSITION_TEXT = re.compile(
    r"(?:\bTO:|^FADE IN:|^FADE OUT\.?|^FADE TO BLACK\.?|^CUT TO BLACK\.?|^SMASH CUT\b.*"
    r"|^INTERCUT WITH:|^DISSOLVE:|^BACK TO:)$"
)
_SENTENCE_END = re.compile(r"[.!?:;\"')\]]$")
_TITLE_BY = re.compile(r"^(?:written\s+by|screenplay\s+by|teleplay\s+by|by)\s*:?$", re.IGNORECASE)


@dataclass(frozen=True)
class Glyph:
    """One character placed on a page (top grows downwards, PDF units)."""

    x0: float
    x1: float
    top: float
    bottom: float
    text: str
    size: float


@dataclass(frozen=True)
class Segment:
    """A run of text on one line, separated from its neighbours by a wide gap."""

    x0: float
    x1: float
    text: str


@dataclass(frozen=True)
class Line:
    """One reconstructed text line."""

    index: int  # 1-based line number in the whole document
    page: int
    top: float
    bottom: float
    size: float
    char_width: float
    segments: tuple[Segment, ...]
    number: str | None = None  # a scene number printed in the margin
    more: bool = False

    @property
    def x0(self) -> float:
        return self.segments[0].x0

    @property
    def x1(self) -> float:
        return self.segments[-1].x1

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.segments)


@dataclass(frozen=True)
class Layout:
    """The margins learned from one document (None when the document has no such lines)."""

    action: float
    cue: float | None
    parenthetical: float | None
    dialogue: float | None
    right_edge: float
    page_width: float
    pitch: float
    tolerance: float

    def near(self, x: float, margin: float | None) -> bool:
        """True when x is at the given margin."""
        return margin is not None and abs(x - margin) <= self.tolerance


@dataclass
class _Draft:
    """An element being built from lines."""

    kind: ElementKind
    lines: list[Line]
    text: str
    dual: bool = False
    number: str | None = None
    closed: bool = False  # a parenthetical whose ')' was seen

    def element(self) -> Element:
        fields: dict[str, object] = {
            "kind": self.kind,
            "text": self.text,
            "line_start": self.lines[0].index,
            "line_end": self.lines[-1].index,
            "page": self.lines[0].page,
            "dual": self.dual,
        }
        if self.kind is ElementKind.CHARACTER:
            cue = parse_cue(self.text)
            fields.update(speaker=cue.name, extensions=cue.extensions)
        elif self.kind is ElementKind.SCENE_HEADING:
            text, number = strip_scene_numbers(self.text)
            fields.update(text=text or self.text, number=self.number or number)
        return Element(**fields)


# ---------------------------------------------------------------------------------------------
# Glyphs and lines


def _open(data: bytes, path: str) -> pdfplumber.PDF:
    try:
        return pdfplumber.open(io.BytesIO(data))
    except (PdfminerException, PSException) as e:
        raise _pdf_error(e, path) from e


def _pdf_error(error: Exception, path: str) -> InputError:
    cause = error.args[0] if isinstance(error, PdfminerException) and error.args else error
    if isinstance(cause, PDFEncryptionError):
        return InputError(
            "the PDF is encrypted with a password: decrypt it first "
            "(e.g. qpdf --decrypt --password=PASSWORD in.pdf out.pdf)",
            path=path,
        )
    return InputError(
        f"the PDF cannot be read ({type(cause).__name__}: {cause}); it may be truncated or "
        "damaged: export it again, or repair it (e.g. qpdf in.pdf out.pdf)",
        path=path,
    )


class _GlyphDevice(PDFPageAggregator):
    """A pdfminer device that records upright glyphs as plain tuples.

    pdfminer's own LTChar objects cost more than the parsing; the bounding box of an upright
    horizontal glyph is simple enough to compute here. Rotated and vertical text is skipped.
    """

    def __init__(self, manager: PDFResourceManager) -> None:
        super().__init__(manager, laparams=None)
        self.glyphs: list[tuple[float, float, float, float, str, float]] = []

    def render_char(
        self,
        matrix: Matrix,
        font: PDFFont,
        fontsize: float,
        scaling: float,
        rise: float,
        cid: int,
        ncs: PDFColorSpace,
        graphicstate: PDFGraphicState,
    ) -> float:
        try:
            text = font.to_unichr(cid)
        except PDFUnicodeNotDefined:
            text = self.handle_undefined_char(font, cid)
        adv = font.char_width(cid) * fontsize * scaling
        a, b, c, d, e, f = matrix
        if not font.is_vertical() and b == 0 and c == 0 and a * d * scaling > 0:
            low = font.get_descent() * fontsize + rise
            self.glyphs.append((e, a * adv + e, d * low + f, d * (low + fontsize) + f, text,
                                d * fontsize))
        return adv


def page_glyphs(data: bytes, path: str) -> list[list[Glyph]]:
    """The glyphs of every page, in page order.

    pdfplumber opens the document; the glyphs come from a lean pdfminer device without
    layout analysis, several times faster than building pdfplumber's char dictionaries.

    Raises:
        InputError: encrypted, truncated or damaged PDF.
    """
    pages: list[list[Glyph]] = []
    with _open(data, path) as pdf:
        manager = PDFResourceManager(caching=True)
        device = _GlyphDevice(manager)
        interpreter = PDFPageInterpreter(manager, device)
        try:
            for page in pdf.pages:
                device.glyphs = []
                interpreter.process_page(page.page_obj)
                height = device.get_result().y1
                pages.append([
                    Glyph(x0, x1, height - y1, height - y0, text, size)
                    for x0, x1, y0, y1, text, size in device.glyphs if text
                ])
        except (PdfminerException, PSException) as e:
            raise _pdf_error(e, path) from e
    return pages


def _is_margin_mark(text: str) -> bool:
    return bool(_MARGIN_NUMBER.match(text) or _ASTERISKS.match(text))


def _segments(glyphs: list[Glyph], char_width: float) -> list[Segment]:
    """Split one line's glyphs (sorted by x) into segments; spaces come from the gaps.

    A gap of _SEGMENT_GAP character widths splits; a gap of _MARGIN_GAP is enough when one
    side is a margin mark (a scene number or revision asterisks).
    """
    fine = _fine_segments(glyphs, char_width)
    merged: list[Segment] = []
    for seg in fine:
        prev = merged[-1] if merged else None
        if (prev is not None and seg.x0 - prev.x1 <= _SEGMENT_GAP * char_width
                and not _is_margin_mark(prev.text) and not _is_margin_mark(seg.text)):
            spaces = " " * max(1, round((seg.x0 - prev.x1) / char_width))
            merged[-1] = Segment(prev.x0, seg.x1, prev.text + spaces + seg.text)
        else:
            merged.append(seg)
    return merged


def _fine_segments(glyphs: list[Glyph], char_width: float) -> list[Segment]:
    visible = [g for g in glyphs if g.text.strip()]
    segments: list[Segment] = []
    start = 0
    parts: list[str] = []
    for i, g in enumerate(visible):
        if i > 0:
            prev = visible[i - 1]
            if g.text == prev.text and abs(g.x0 - prev.x0) < 0.2 * char_width:
                continue  # over-printed (fake bold) glyph
            gap = g.x0 - prev.x1
            if gap > _MARGIN_GAP * char_width:
                segments.append(Segment(visible[start].x0, prev.x1, "".join(parts)))
                start, parts = i, []
            elif gap > 0.15 * g.size:
                parts.append(" " * max(1, round(gap / char_width)))
        parts.append(g.text)
    if visible:
        segments.append(Segment(visible[start].x0, visible[-1].x1, "".join(parts)))
    return segments


def build_lines(glyphs: list[Glyph], page: int, first_index: int) -> list[Line]:
    """Group a page's glyphs into lines (by baseline) and the lines into segments.

    Args:
        glyphs: The page's glyphs.
        page: 1-based page number.
        first_index: Document line number of the page's first line.

    Returns:
        Lines from top to bottom, numbered from first_index.
    """
    rows: list[list[Glyph]] = []
    for g in sorted(glyphs, key=lambda g: (g.bottom, g.x0)):
        if rows and abs(g.bottom - rows[-1][0].bottom) <= 0.3 * max(g.size, 1.0):
            rows[-1].append(g)
        else:
            rows.append([g])
    lines: list[Line] = []
    for row in rows:
        row.sort(key=lambda g: g.x0)
        widths = [g.x1 - g.x0 for g in row if g.text.strip() and g.x1 > g.x0]
        if not widths:
            continue
        char_width = statistics.median(widths)
        segments = _segments(row, char_width)
        lines.append(Line(
            index=first_index + len(lines), page=page, top=min(g.top for g in row),
            bottom=max(g.bottom for g in row), size=statistics.median(g.size for g in row),
            char_width=char_width, segments=tuple(segments),
        ))
    return lines


# ---------------------------------------------------------------------------------------------
# Page furniture


def _without_margin_marks(line: Line) -> Line | None:
    """Drop revision asterisks; move margin scene numbers into `number`. None if nothing is left."""
    segments = [s for s in line.segments if not _ASTERISKS.match(s.text)]
    segments = [replace(s, text=re.sub(r"\s+\*+$", "", s.text)) for s in segments]
    number = None
    if len(segments) >= 2 and _MARGIN_NUMBER.match(segments[0].text):
        number = segments[0].text.rstrip(".")
        segments = segments[1:]
    if len(segments) >= 2 and _MARGIN_NUMBER.match(segments[-1].text):
        number = number or segments[-1].text.rstrip(".")
        segments = segments[:-1]
    if not segments:
        return None
    return replace(line, segments=tuple(segments), number=number)


def _header_key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.split())).upper()


def strip_page_numbers(lines: list[Line]) -> list[Line]:
    """Drop the page number of a page: a lone number ('12.', 'Page 12', '- 12 -') on the first
    or last line, or a number segment at either end of that line (beside a running header)."""
    out = list(lines)
    for i in sorted({0, len(out) - 1}, reverse=True):
        if not 0 <= i < len(out):
            continue
        segments = list(out[i].segments)
        if len(segments) > 1 and _PAGE_NUMBER.match(segments[-1].text):
            segments = segments[:-1]
        elif len(segments) > 1 and _PAGE_NUMBER.match(segments[0].text):
            segments = segments[1:]
        elif _PAGE_NUMBER.match(" ".join(s.text for s in segments)):
            segments = []
        if segments:
            out[i] = replace(out[i], segments=tuple(segments))
        else:
            del out[i]
    return out


def running_headers(pages: list[list[Line]]) -> set[str]:
    """Texts (digits normalised) that open or close at least half the pages (3 or more)."""
    counts: Counter[str] = Counter()
    for lines in pages:
        keys = {_header_key(ln.text) for ln in lines[:2] + lines[-2:]}
        counts.update(keys)
    needed = max(3, (len(pages) + 1) // 2)
    return {key for key, n in counts.items() if n >= needed and not _TRANSITION_TEXT.search(key)}


def clean_page(lines: list[Line], headers: set[str]) -> list[Line]:
    """Remove page furniture from one page; mark the line before a (MORE) with `more`."""
    kept: list[Line] = []
    last = len(lines) - 1
    for i, line in enumerate(lines):
        text = line.text.strip()
        if i in (0, 1, last - 1, last) and _header_key(text) in headers:
            continue
        cleaned = _without_margin_marks(line)
        if cleaned is None or _CONTINUED.match(cleaned.text.strip()):
            continue
        if _MORE.match(cleaned.text.strip()):
            if kept:
                kept[-1] = replace(kept[-1], more=True)
            continue
        kept.append(cleaned)
    return kept


# ---------------------------------------------------------------------------------------------
# Learning the layout


def _is_caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _is_heading(text: str) -> bool:
    """INT./EXT. heading text, mostly upper case ('INT. McDONALD'S - DAY' is one)."""
    letters = [c for c in text if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return bool(letters) and upper >= 0.8 * len(letters) and is_english_heading(text)


def _cue_name_caps(text: str) -> bool:
    """Cue-like: the name part (before any parenthesis) is upper case and short."""
    name = text.split("(")[0].strip().rstrip("^").strip()
    return bool(name) and len(name) <= 40 and _is_caps(name) and not name.endswith((":", "."))


def _mode(values: Iterable[float], tolerance: float) -> float | None:
    """The centre of the most populated cluster of values (clusters: within `tolerance`)."""
    counts = Counter(round(v * 2) / 2 for v in values)
    if not counts:
        return None
    best = max(counts, key=lambda v: (sum(n for w, n in counts.items() if abs(w - v)
                                            <= tolerance), -v))
    return best


def _line_pitch(lines: list[Line]) -> float:
    """The distance between two lines of one paragraph: the smallest common line spacing."""
    size = statistics.median(ln.size for ln in lines) if lines else 12.0
    steps = Counter(
        round(b.top - a.top, 1) for a, b in itertools.pairwise(lines)
        if a.page == b.page and b.top - a.top >= 0.8 * size
    )
    total = sum(steps.values())
    common = [step for step, n in steps.items() if n >= 0.05 * total]
    return min(common) if common else 1.2 * size


def learn_layout(lines: list[Line], page_width: float) -> Layout:
    """Learn the margins of the body lines of one document.

    The action margin is where the headings start (or the most common left edge); the cue
    margin is the most common indent of short upper-case lines directly above a more
    left-indented line; dialogue is the indent that follows cues; parentheticals are the
    indented lines that start with '('.
    """
    char_width = statistics.median(ln.char_width for ln in lines) if lines else 7.2
    tol = max(2.0, 0.6 * char_width)
    single = [ln for ln in lines if len(ln.segments) == 1]
    headings = [ln.x0 for ln in single if _is_heading(ln.text)]
    action = _mode(headings, tol) if len(headings) >= 2 else None
    if action is None:
        lefts = Counter(round(ln.x0) for ln in single)
        frequent = [x for x, n in lefts.items() if n >= 0.1 * len(single)]
        action = float(min(frequent)) if frequent else float(min(lefts, default=72))
    right_edge = max((ln.x1 for ln in single), default=page_width)
    pitch = _line_pitch(lines)

    def right_aligned(ln: Line) -> bool:
        return ln.x1 >= right_edge - char_width and ln.x0 > (action + right_edge) / 2

    cue_candidates = [
        a.x0 for a, b in itertools.pairwise(single)
        if a.page == b.page and 0 < b.top - a.top <= 1.6 * pitch
        and a.x0 > action + 2 * char_width and b.x0 < a.x0 - char_width
        and b.x0 > action + char_width and not right_aligned(a)
        and _cue_name_caps(a.text) and not a.text.startswith("(")
    ]
    cue = _mode(cue_candidates, tol) if len(cue_candidates) >= 2 else None
    parens = [ln.x0 for ln in single if ln.text.startswith("(") and ln.x0 > action + tol
              and (cue is None or ln.x0 < cue - tol)]
    parenthetical = _mode(parens, tol) if parens else None
    after_cue = [
        b.x0 for a, b in itertools.pairwise(single)
        if cue is not None and abs(a.x0 - cue) <= tol and a.page == b.page
        and not b.text.startswith("(") and b.x0 < cue - tol
    ]
    dialogue = _mode(after_cue, tol) if after_cue else None
    return Layout(action=action, cue=cue, parenthetical=parenthetical, dialogue=dialogue,
                  right_edge=right_edge, page_width=page_width, pitch=pitch, tolerance=tol)


# ---------------------------------------------------------------------------------------------
# Classification and grouping


def _is_right_aligned(line: Line, layout: Layout) -> bool:
    return (line.x1 >= layout.right_edge - line.char_width
            and line.x0 > (layout.action + layout.right_edge) / 2)


def _is_centered(line: Line, layout: Layout) -> bool:
    middle = (layout.action + layout.right_edge) / 2
    return (abs((line.x0 + line.x1) / 2 - middle) <= 2 * line.char_width
            and not layout.near(line.x0, layout.action))


def centered_lines(lines: list[Line], layout: Layout) -> set[int]:
    """Indices of centred lines: centred on the text column and not left-aligned with a
    neighbouring line of the same paragraph (an indented block of action is not centred)."""
    found: set[int] = set()
    for i, line in enumerate(lines):
        if not _is_centered(line, layout):
            continue
        aligned = False
        for j in (i - 1, i + 1):
            if 0 <= j < len(lines):
                other = lines[j]
                close = other.page == line.page and abs(other.top - line.top) <= 1.6 * layout.pitch
                if close and layout.near(other.x0, line.x0) and not _is_centered(other, layout):
                    aligned = True
        if not aligned:
            found.add(i)
    return found


def classify(
    line: Line, layout: Layout, *, in_speech: bool, open_paren: bool, centered: bool = False
) -> ElementKind:
    """The kind of one body line, from its margin and content.

    Args:
        line: The line.
        layout: The document's margins.
        in_speech: The previous line belongs to a speech (cue, parenthetical, dialogue).
        open_paren: The previous line is a parenthetical whose ')' has not come yet.
        centered: The line is centred on the text column (see `centered_lines`).
    """
    text = line.text.strip()
    caps = _is_caps(text)
    dialogue_zone = next(
        (m for m in (layout.dialogue, layout.cue) if m is not None),
        (layout.action + layout.right_edge) / 2,
    )
    if _is_heading(text) and line.x0 < dialogue_zone - layout.tolerance:
        return ElementKind.SCENE_HEADING
    if caps and _is_right_aligned(line, layout):
        return ElementKind.TRANSITION
    if layout.near(line.x0, layout.cue) and _cue_name_caps(text):
        return ElementKind.CHARACTER
    indented = line.x0 > layout.action + layout.tolerance
    if in_speech and indented:
        if open_paren and line.x0 <= (layout.parenthetical or line.x0) + 2 * line.char_width:
            return ElementKind.PARENTHETICAL
        if text.startswith("(") and (
            layout.near(line.x0, layout.parenthetical) or layout.parenthetical is None
            or not layout.near(line.x0, layout.dialogue)
        ):
            return ElementKind.PARENTHETICAL
        if layout.cue is None or line.x0 < layout.cue - layout.tolerance:
            return ElementKind.DIALOGUE
    if layout.near(line.x0, layout.dialogue):
        return ElementKind.PARENTHETICAL if text.startswith("(") else ElementKind.DIALOGUE
    if layout.near(line.x0, layout.parenthetical) and text.startswith("("):
        return ElementKind.PARENTHETICAL
    if centered:
        return ElementKind.CENTERED
    if caps and _TRANSITION_TEXT.search(text):
        return ElementKind.TRANSITION
    return ElementKind.ACTION


_GROUPED = {ElementKind.ACTION, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL,
            ElementKind.CENTERED, ElementKind.LYRIC}


def _dual_cues(line: Line, layout: Layout) -> bool:
    """Two cue-like segments side by side, away from the action margin: a dual dialogue."""
    return (
        len(line.segments) == 2
        and all(_cue_name_caps(s.text) and not s.text.startswith("(") for s in line.segments)
        and line.x0 > layout.action + layout.tolerance
        and not _is_right_aligned(line, layout)
    )


def _dual_block(lines: list[Line], start: int, layout: Layout) -> tuple[list[_Draft], int]:
    """Read a dual-dialogue block starting at a two-cue line; returns drafts and next index."""
    cue_line = lines[start]
    split = (cue_line.segments[0].x0 + cue_line.segments[1].x0) / 2
    columns: list[list[tuple[Line, Segment]]] = [[], []]
    end = start + 1
    prev = cue_line
    while end < len(lines):
        ln = lines[end]
        if (ln.page != prev.page or ln.top - prev.top > 1.6 * layout.pitch
                or layout.near(ln.x0, layout.action) or _is_right_aligned(ln, layout)):
            break
        for seg in ln.segments:
            columns[0 if seg.x0 < split else 1].append((ln, seg))
        prev, end = ln, end + 1
    drafts: list[_Draft] = []
    for side in (0, 1):
        one = [cue_line]
        drafts.append(_Draft(ElementKind.CHARACTER, one, cue_line.segments[side].text, dual=True))
        for ln, seg in columns[side]:
            last = drafts[-1]
            text = seg.text.strip()
            if last.kind is ElementKind.PARENTHETICAL and not last.closed:
                kind = ElementKind.PARENTHETICAL
            else:
                kind = ElementKind.PARENTHETICAL if text.startswith("(") else ElementKind.DIALOGUE
            if kind is last.kind and kind is not ElementKind.CHARACTER and not (
                    kind is ElementKind.PARENTHETICAL and last.closed):
                last.lines.append(ln)
                last.text = f"{last.text} {text}"
                last.closed = text.endswith(")")
            else:
                drafts.append(_Draft(kind, [ln], text, dual=True, closed=text.endswith(")")))
    return drafts, end


def _continues(prev: _Draft, line: Line, kind: ElementKind, layout: Layout) -> bool:
    """True when `line` (of `kind`) continues the paragraph `prev`."""
    last = prev.lines[-1]
    if line.page != last.page:
        return False
    close = 0 < line.top - last.top <= 1.6 * layout.pitch
    if not close:
        return False
    if prev.kind is ElementKind.SCENE_HEADING:
        return kind in (ElementKind.ACTION, ElementKind.SHOT) and _is_caps(line.text) and (
            layout.near(line.x0, prev.lines[0].x0))
    if kind is not prev.kind or kind not in _GROUPED:
        return False
    if kind is ElementKind.PARENTHETICAL:
        return not prev.closed
    if kind is ElementKind.ACTION:
        return abs(line.x0 - last.x0) <= layout.tolerance or line.x0 > last.x0
    return True


def _continues_over_page(prev: _Draft, line: Line, kind: ElementKind, layout: Layout) -> bool:
    """An action paragraph cut mid-sentence by a page break goes on at the next page's top."""
    last = prev.lines[-1]
    return (
        line.page == last.page + 1 and kind is ElementKind.ACTION
        and prev.kind is ElementKind.ACTION
        and layout.near(line.x0, layout.action) and layout.near(last.x0, layout.action)
        and not _SENTENCE_END.search(last.text.strip())
        and not _is_caps(line.text) and not _is_caps(last.text)
    )


def _is_slug(draft: _Draft, layout: Layout) -> bool:
    """A one-line upper-case action paragraph without sentence punctuation: 'ON THE TV'."""
    text = draft.text.strip()
    return (
        draft.kind is ElementKind.ACTION and len(draft.lines) == 1 and _is_caps(text)
        and layout.near(draft.lines[0].x0, layout.action)
        and not _SENTENCE_END.search(text) and len(text) <= 60
    )


def group_lines(lines: list[Line], layout: Layout, *, slug_kind: ElementKind) -> list[_Draft]:
    """Classify body lines and group them into element drafts.

    Args:
        lines: Body lines of the whole document, furniture removed.
        layout: The learned margins.
        slug_kind: What a lone upper-case action line without INT./EXT. becomes
            (SHOT by default, or SCENE_HEADING). One with a scene number printed in the
            margin is a SCENE_HEADING either way: scripts number scenes, not shots.

    Returns:
        Drafts in reading order.
    """
    drafts: list[_Draft] = []
    in_speech = False
    pending_more: str | None = None  # speaker whose speech goes on after a (MORE)
    centered = centered_lines(lines, layout)
    i = 0
    while i < len(lines):
        line = lines[i]
        if _dual_cues(line, layout) and layout.cue is not None:
            block, i = _dual_block(lines, i, layout)
            drafts.extend(block)
            in_speech, pending_more = True, None
            continue
        prev = drafts[-1] if drafts else None
        open_paren = (prev is not None and prev.kind is ElementKind.PARENTHETICAL
                      and not prev.closed and prev.lines[-1].page == line.page)
        kind = classify(line, layout, in_speech=in_speech, open_paren=open_paren,
                        centered=i in centered)
        text = line.text.strip()
        if pending_more is not None and prev is not None and line.page != prev.lines[-1].page:
            pending, pending_more = pending_more, None
            if kind is ElementKind.CHARACTER and parse_cue(text).name == pending:
                i += 1  # NAME (CONT'D) after (MORE): the same speech goes on
                continue
        if (prev is not None and prev.lines[-1].more and kind is ElementKind.DIALOGUE
                and prev.kind is ElementKind.DIALOGUE):
            prev.lines.append(line)
            prev.text = f"{prev.text} {text}"
            i += 1
            continue
        if prev is not None and (_continues(prev, line, kind, layout)
                                 or _continues_over_page(prev, line, kind, layout)):
            prev.lines.append(line)
            prev.text = f"{prev.text} {text}"
            prev.closed = prev.closed or text.endswith(")")
        else:
            drafts.append(_Draft(kind, [line], text, number=line.number,
                                 closed=text.endswith(")")))
        if kind is ElementKind.CHARACTER:
            in_speech = True
        elif kind not in (ElementKind.DIALOGUE, ElementKind.PARENTHETICAL):
            in_speech = False
        if line.more and in_speech:
            pending_more = _current_speaker(drafts)
        i += 1
    for draft in drafts:
        if _is_slug(draft, layout):
            draft.kind = ElementKind.SCENE_HEADING if draft.number else slug_kind
    return drafts


def _current_speaker(drafts: list[_Draft]) -> str | None:
    for draft in reversed(drafts):
        if draft.kind is ElementKind.CHARACTER:
            return parse_cue(draft.text).name
    return None


# ---------------------------------------------------------------------------------------------
# Title page and the entry point


def _looks_like_title_page(lines: list[Line], layout: Layout) -> bool:
    """No heading and no cue directly above a dialogue or parenthetical line."""
    if not lines or any(_is_heading(ln.text) for ln in lines):
        return False
    return not any(
        layout.near(a.x0, layout.cue) and 0 < b.top - a.top <= 1.6 * layout.pitch
        and (layout.near(b.x0, layout.dialogue) or layout.near(b.x0, layout.parenthetical))
        for a, b in itertools.pairwise(lines)
    )


def title_page_facts(lines: list[Line]) -> dict[str, str]:
    """Title (the largest type, else the first line) and author ('written by' + next line)."""
    if not lines:
        return {}
    biggest = max(ln.size for ln in lines)
    body = statistics.median(ln.size for ln in lines)
    title_lines = [ln for ln in lines if ln.size >= biggest - 0.5] if biggest > body + 1 else []
    facts = {"Title": " ".join(ln.text for ln in (title_lines or lines[:1]))}
    for a, b in itertools.pairwise(lines):
        if _TITLE_BY.match(a.text.strip()):
            facts["Author"] = b.text.strip()
            break
    return facts


def read_pdf(data: bytes, *, path: str, secondary_headings: bool = False) -> ReadResult:
    """Read a screenplay PDF that has a text layer.

    Lines are rebuilt from glyph positions and classified by the margins learned from the
    document plus content rules; page furniture is dropped and (MORE)/(CONT'D) page breaks
    are stitched. Line numbers index the reconstructed lines of the whole document (see the
    module docstring); `Element.page` is the page an element starts on.

    Args:
        data: The file's bytes.
        path: The file name, for messages.
        secondary_headings: Read a lone upper-case line at the action margin without INT./EXT.
            ('ON THE TV', 'BACK IN THE APARTMENT') as a scene heading. Such a slug line is
            printed exactly like a shot (same font, margin and spacing), so by default it is a
            SHOT, which never splits a scene; with a scene number in the margin it is a
            heading either way.

    Returns:
        Scenes, title-page facts and warnings.

    Raises:
        OcrNeededError: the pages have no text layer (scanned images).
        InputError: encrypted, truncated or damaged PDF.

    Example:
        >>> result = read_pdf(Path("big-fish.pdf").read_bytes(), path="big-fish.pdf")
        >>> result.scenes[1].heading
        "INT.  WILL'S BEDROOM - NIGHT (1973)"
    """
    glyph_pages = page_glyphs(data, path)
    empty = [i + 1 for i, g in enumerate(glyph_pages) if not any(c.text.strip() for c in g)]
    if not glyph_pages or len(empty) * 2 > len(glyph_pages):
        raise OcrNeededError(
            f"this PDF has no text layer on {len(empty)} of its {len(glyph_pages)} pages; "
            "run OCR (e.g. ocrmypdf) first",
            path=path,
        )
    raw_pages: list[list[Line]] = []
    next_index = 1
    for page_no, glyphs in enumerate(glyph_pages, start=1):
        lines = build_lines(glyphs, page_no, next_index)
        next_index += len(lines)
        raw_pages.append(strip_page_numbers(lines))
    headers = running_headers(raw_pages)
    pages = [clean_page(lines, headers) for lines in raw_pages]
    page_width = max((ln.x1 for lines in pages for ln in lines), default=612.0)
    layout = learn_layout([ln for lines in pages[1:] or pages for ln in lines], page_width)
    facts: dict[str, str] = {}
    if len(pages) > 1 and _looks_like_title_page(pages[0], layout):
        facts = title_page_facts(pages[0])
        pages = pages[1:]
    body = [ln for lines in pages for ln in lines]
    slug_kind = ElementKind.SCENE_HEADING if secondary_headings else ElementKind.SHOT
    drafts = group_lines(body, layout, slug_kind=slug_kind)
    warnings = [
        ParseWarning(line=None, message=f"page {p} has no text layer; it was skipped")
        for p in empty
    ]
    if layout.cue is None:
        warnings.append(ParseWarning(message="no character-cue margin found: no dialogue read"))
    logger.debug("PDF %s: %d pages, %d lines, layout %s", path, len(glyph_pages), len(body),
                 layout)
    elements = [d.element() for d in drafts]
    return ReadResult(scenes=assemble_scenes(elements), title_page=facts, warnings=warnings)

"""Final Draft (.fdx) reader: the XML paragraphs of a Final Draft file become elements.

Final Draft already says what every paragraph is (`<Paragraph Type="Scene Heading">`), so this
reader maps types rather than guessing. Line numbers are paragraph ordinals: the 1-based
position of a `<Paragraph>` among all `<Paragraph>` elements of the script's `<Content>`, in
document order (the wrapper paragraph of a dual-dialogue block counts too).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from xml.etree.ElementTree import Element as XmlElement
from xml.etree.ElementTree import ParseError

import defusedxml.ElementTree as SafeET
from defusedxml import DefusedXmlException

from kgbuild.errors import InputError
from kgbuild.model import Element, ElementKind, Emphasis, ParseWarning
from kgbuild.readers.assemble import ReadResult, assemble_scenes
from kgbuild.readers.cues import parse_cue
from kgbuild.readers.headings import is_english_heading, strip_scene_numbers

logger = logging.getLogger(__name__)

#: Final Draft paragraph types (lower case) -> element kind.
PARAGRAPH_KINDS: dict[str, ElementKind] = {
    "scene heading": ElementKind.SCENE_HEADING,
    "action": ElementKind.ACTION,
    "general": ElementKind.ACTION,
    "cast list": ElementKind.ACTION,
    "character": ElementKind.CHARACTER,
    "parenthetical": ElementKind.PARENTHETICAL,
    "dialogue": ElementKind.DIALOGUE,
    "transition": ElementKind.TRANSITION,
    "shot": ElementKind.SHOT,
    "new act": ElementKind.SECTION,
    "end of act": ElementKind.SECTION,
    "act break": ElementKind.SECTION,
    "lyrics": ElementKind.LYRIC,
    "lyric": ElementKind.LYRIC,
    "singing": ElementKind.LYRIC,
    "summary": ElementKind.SYNOPSIS,
    "synopsis": ElementKind.SYNOPSIS,
    "outline": ElementKind.SECTION,
    "outline 1": ElementKind.SECTION,
    "outline 2": ElementKind.SECTION,
    "outline 3": ElementKind.SECTION,
    "outline 4": ElementKind.SECTION,
    "outline body": ElementKind.SYNOPSIS,
    "note": ElementKind.NOTE,
}
_SECTION_DEPTH = {"outline 2": 2, "outline 3": 3, "outline 4": 4}
_EMPHASIS_STYLES = ("bold", "italic", "underline")
_CENTERABLE = {ElementKind.ACTION}


@dataclass(frozen=True)
class _Paragraph:
    """One `<Paragraph>` with a type, as found in the XML."""

    ordinal: int
    type: str
    element: XmlElement
    dual: bool


def _local(tag: str) -> str:
    """A tag without its XML namespace."""
    return tag.rsplit("}", 1)[-1]


def _style_words(style: str | None) -> set[str]:
    """'Bold+Underline' -> {'bold', 'underline'}."""
    return {w.strip().lower() for w in (style or "").split("+") if w.strip()}


def _parse_xml(data: bytes, path: str) -> XmlElement:
    try:
        return SafeET.fromstring(data)
    except DefusedXmlException as e:
        raise InputError(
            f"the XML declares entities or a DTD ({type(e).__name__}), which kgbuild refuses "
            "for safety; re-save the script from Final Draft, which never writes them",
            path=path,
        ) from e
    except ParseError as e:
        line = e.position[0] if getattr(e, "position", None) else None
        raise InputError(
            f"this is not well-formed XML ({e}); the file may be truncated or damaged: "
            "re-export it from Final Draft (File > Save As > .fdx)",
            path=path,
            line=line,
        ) from e


def all_caps_types(root: XmlElement) -> set[str]:
    """Paragraph types (lower case) whose font spec says All Caps in `<ElementSettings>`.

    Final Draft stores the text as typed and shows it in capitals when the element's font
    spec carries AllCaps (`Style="AllCaps"` or `AllCaps="Yes"`).
    """
    types: set[str] = set()
    for settings in root.iter():
        if _local(settings.tag) != "ElementSettings":
            continue
        for spec in settings:
            if _local(spec.tag) != "FontSpec":
                continue
            if "allcaps" in _style_words(spec.get("Style")) or (
                (spec.get("AllCaps") or "").lower() in {"yes", "true", "1"}
            ):
                types.add((settings.get("Type") or "").strip().lower())
    return types


def join_runs(paragraph: XmlElement, *, upper: bool = False) -> tuple[str, list[Emphasis]]:
    """Join a paragraph's `<Text>` runs into one string and its styled spans.

    Args:
        paragraph: A `<Paragraph>` element.
        upper: Show the whole paragraph in capitals (All Caps element style).

    Returns:
        The text (surrounding white space removed) and its bold/italic/underline spans,
        adjacent runs of the same style merged.
    """
    pieces: list[str] = []
    spans: list[Emphasis] = []
    offset = 0
    for run in paragraph:
        if _local(run.tag) != "Text":
            continue
        text = run.text or ""
        styles = _style_words(run.get("Style"))
        if upper or "allcaps" in styles:
            text = text.upper()
        for style in _EMPHASIS_STYLES:
            if style in styles and text.strip():
                last = spans[-1] if spans and spans[-1].style == style else None
                if last is not None and last.end == offset:
                    spans[-1] = last.model_copy(update={"end": offset + len(text)})
                else:
                    spans.append(Emphasis(start=offset, end=offset + len(text), style=style))
        pieces.append(text)
        offset += len(text)
    raw = "".join(pieces)
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    spans = [
        Emphasis(start=max(s.start - lead, 0), end=min(s.end - lead, len(text)), style=s.style)
        for s in spans
        if min(s.end - lead, len(text)) > max(s.start - lead, 0)
    ]
    return text, sorted(spans, key=lambda s: (s.start, s.style))


def iter_paragraphs(content: XmlElement) -> Iterator[_Paragraph]:
    """Every typed `<Paragraph>` under `<Content>`, in order, with dual-dialogue membership."""
    ordinal = 0

    def walk(node: XmlElement, dual: bool) -> Iterator[_Paragraph]:
        nonlocal ordinal
        for child in node:
            tag = _local(child.tag)
            if tag == "DualDialogue":
                yield from walk(child, True)
            elif tag == "Paragraph":
                ordinal += 1
                if child.get("Type"):
                    yield _Paragraph(ordinal, child.get("Type", ""), child, dual)
                yield from walk(child, dual)

    yield from walk(content, False)


def _is_promotable_heading(text: str) -> bool:
    """An Action paragraph that reads exactly like a scene heading (converter slips)."""
    letters = [c for c in text if c.isalpha()]
    return (
        "\n" not in text
        and len(text) <= 120
        and bool(letters)
        and all(c.isupper() for c in letters)
        and is_english_heading(text)
    )


def paragraph_element(
    para: _Paragraph, caps_types: set[str]
) -> tuple[Element | None, ParseWarning | None]:
    """Turn one typed paragraph into an element (None for an empty one), maybe with a warning."""
    type_key = para.type.strip().lower()
    kind = PARAGRAPH_KINDS.get(type_key)
    warning = None
    if kind is None:
        kind = ElementKind.ACTION
        warning = ParseWarning(
            line=para.ordinal, message=f"unknown paragraph type {para.type!r}, read as action"
        )
    text, emphasis = join_runs(para.element, upper=type_key in caps_types)
    if not text:
        return None, warning
    if kind in _CENTERABLE and (para.element.get("Alignment") or "").lower() == "center":
        kind = ElementKind.CENTERED
    if kind is ElementKind.ACTION and _is_promotable_heading(text):
        kind = ElementKind.SCENE_HEADING
        warning = ParseWarning(
            line=para.ordinal,
            message=f"action paragraph {text!r} reads as a scene heading; read as one",
        )
    fields: dict[str, object] = {
        "kind": kind,
        "text": text,
        "line_start": para.ordinal,
        "line_end": para.ordinal,
        "emphasis": emphasis,
        "dual": para.dual,
    }
    if kind is ElementKind.SCENE_HEADING:
        stripped, number = strip_scene_numbers(text)
        fields["number"] = para.element.get("Number") or number
        if stripped and stripped != text:
            fields["text"] = stripped
            fields["emphasis"] = []
    elif kind is ElementKind.CHARACTER:
        cue = parse_cue(text)
        fields.update(speaker=cue.name, extensions=cue.extensions, dual=para.dual or cue.dual)
    elif kind is ElementKind.SECTION:
        fields["depth"] = _SECTION_DEPTH.get(type_key, 1)
    return Element(**fields), warning


def title_page(root: XmlElement) -> dict[str, str]:
    """Title, author and other facts from `<TitlePage>`, when recognisable.

    The first non-empty paragraph is the title; the paragraph after one reading 'written by'
    or 'by' holds the authors; a line 'Draft ...' or a date is the draft date.
    """
    lines: list[str] = []
    for node in root:
        if _local(node.tag) != "TitlePage":
            continue
        for para in node.iter():
            if _local(para.tag) == "Paragraph":
                text, _ = join_runs(para)
                lines.extend(t.strip() for t in text.split("\n") if t.strip())
    if not lines:
        return {}
    facts = {"Title": lines[0]}
    for i, line in enumerate(lines[1:], start=1):
        low = line.lower().rstrip(":")
        if low in {"by", "written by", "screenplay by", "teleplay by"} and i + 1 < len(lines):
            facts.setdefault("Author", lines[i + 1])
        elif low.startswith(("based on", "story by")):
            facts.setdefault("Source", line)
    return facts


def read_fdx(data: bytes, *, path: str) -> ReadResult:
    """Read a Final Draft (.fdx) screenplay.

    Every `<Paragraph Type=...>` becomes one element: its `<Text>` runs are joined, styled runs
    become emphasis spans, All Caps styles are applied, `Number="12A"` becomes the heading's
    number, paragraphs inside `<DualDialogue>` are marked dual. An Action paragraph that reads
    exactly like a scene heading (one upper-case line starting INT./EXT.) is read as a heading,
    with a warning. Line numbers are paragraph ordinals (see the module docstring).

    Args:
        data: The file's bytes.
        path: The file name, for messages.

    Returns:
        Scenes, title-page facts and warnings.

    Raises:
        InputError: not XML, truncated XML, entity or DTD declarations, not a Final Draft
            document, or a script without paragraphs.

    Example:
        >>> result = read_fdx(Path("brick-and-steel.fdx").read_bytes(), path="brick-and-steel.fdx")
        >>> result.scenes[0].heading
        "EXT. BRICK'S PATIO - DAY"
    """
    root = _parse_xml(data, path)
    if _local(root.tag) != "FinalDraft":
        raise InputError(
            f"the XML root is <{_local(root.tag)}>, not <FinalDraft>: this is not a Final Draft "
            "script; export the screenplay as .fdx, Fountain or PDF",
            path=path,
        )
    content = next((c for c in root if _local(c.tag) == "Content"), None)
    paragraphs = list(iter_paragraphs(content)) if content is not None else []
    if not paragraphs:
        raise InputError(
            "the Final Draft file has no <Content> paragraphs: the script is empty; check that "
            "the right file was exported",
            path=path,
        )
    caps_types = all_caps_types(root)
    elements: list[Element] = []
    warnings: list[ParseWarning] = []
    for para in paragraphs:
        element, warning = paragraph_element(para, caps_types)
        if warning is not None:
            warnings.append(warning)
        if element is not None:
            elements.append(element)
    if not elements:
        raise InputError(
            "every paragraph of the Final Draft file is empty: there is no script text",
            path=path,
        )
    logger.debug("read %d FDX paragraphs from %s", len(elements), path)
    return ReadResult(scenes=assemble_scenes(elements), title_page=title_page(root),
                      warnings=warnings)

"""Turn a reader's flat stream of elements into scenes.

Readers only have to say what each paragraph is; grouping into scenes, heading facts and who
speaks each line are decided here, the same way for every format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgbuild.model import Element, ElementKind, ParseWarning, Scene
from kgbuild.readers.headings import Heading, parse_chinese_heading, parse_english_heading

_CJK = re.compile(r"[\u3400-\u9fff]")
_SPEECH_KINDS = {ElementKind.PARENTHETICAL, ElementKind.DIALOGUE, ElementKind.LYRIC}
_STORY_KINDS = {
    ElementKind.ACTION, ElementKind.CHARACTER, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL,
    ElementKind.LYRIC, ElementKind.SHOT,
}


@dataclass(frozen=True)
class ReadResult:
    """What a reader returns: scenes plus what it learned on the way."""

    scenes: list[Scene]
    title_page: dict[str, str] = field(default_factory=dict)
    warnings: list[ParseWarning] = field(default_factory=list)


def heading_facts(element: Element) -> Heading:
    """Parse a scene-heading element's text (English or Chinese) into its facts."""
    if _CJK.search(element.text):
        return parse_chinese_heading(element.text)
    return parse_english_heading(element.text, forced=element.forced)


def attach_speakers(elements: list[Element]) -> list[Element]:
    """Give every parenthetical and dialogue element the name of the cue it belongs to."""
    out: list[Element] = []
    speaker: str | None = None
    for el in elements:
        if el.kind is ElementKind.CHARACTER:
            speaker = el.speaker
        elif el.kind in _SPEECH_KINDS:
            if el.speaker is None and speaker is not None:
                el = el.model_copy(update={"speaker": speaker})
        elif el.kind is not ElementKind.PAGE_BREAK:
            speaker = None
        out.append(el)
    return out


def _scene(index: int, heading: Element | None, lead: list[Element], elements: list[Element]) -> Scene:
    """One scene; `lead` holds elements that came before its heading (FADE IN:, sections)."""
    body = [*lead, *([heading] if heading is not None else []), *elements]
    lines = [e.line_start for e in body] + [e.line_end for e in body]
    facts = heading_facts(heading) if heading is not None else Heading(text="")
    return Scene(
        index=index,
        number=heading.number if heading is not None and heading.number else facts.number,
        heading=facts.text,
        int_ext=facts.int_ext,
        location=facts.location,
        time_of_day=facts.time_of_day,
        elements=body,
        line_span=(min(lines), max(lines)) if lines else (0, 0),
    )


def assemble_scenes(elements: list[Element]) -> list[Scene]:
    """Group a flat element stream into scenes, one per scene heading.

    Material before the first heading becomes an untitled opening scene when it tells story
    (action, dialogue); otherwise (FADE IN:, sections) it is kept at the start of scene 1.

    Args:
        elements: Elements in source order; headings have kind SCENE_HEADING.

    Returns:
        Scenes with 1-based indices in story order.
    """
    elements = attach_speakers(elements)
    groups: list[tuple[Element | None, list[Element]]] = [(None, [])]
    for el in elements:
        if el.kind is ElementKind.SCENE_HEADING:
            groups.append((el, []))
        else:
            groups[-1][1].append(el)
    preamble = groups[0][1]
    groups = groups[1:]
    lead: list[Element] = []
    if preamble and (not groups or any(e.kind in _STORY_KINDS for e in preamble)):
        groups.insert(0, (None, preamble))
    else:
        lead = preamble
    return [
        _scene(i, heading, lead if i == 1 else [], body)
        for i, (heading, body) in enumerate(groups, start=1)
    ]

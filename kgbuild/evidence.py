"""Evidence from the screenplay text: verbatim quotes with their scene and source lines.

Every fact of a graph points back at the lines that show it (`kgbuild.model.Evidence`). The
offline rules make evidence from the element a rule read; the LLM path locates the model's
quote, or the sentence naming a fact's ends, in the scenes the fact cites. Both go through
this module, so a quote always occurs in the lines it names.

Example:
    >>> from kgbuild.model import Element, ElementKind, Scene
    >>> el = Element(kind=ElementKind.ACTION, text="Anna hugs Ben. He smiles.", line_start=4, line_end=4)
    >>> scene = Scene(index=1, heading="INT. HOUSE - DAY", elements=[el], line_span=(3, 4))
    >>> quote_evidence(scene, el, "Anna hugs Ben.", "rule:embrace").lines
    (4, 4)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rapidfuzz import fuzz

from kgbuild.model import Element, ElementKind, Evidence, Scene

#: The longest quote kept; longer text is cut at a word boundary (still a verbatim prefix).
MAX_QUOTE = 300
#: The `quote_score` (0-100) at which a text holds a quote.
QUOTE_MATCH = 90.0
# A sentence ends at . ! ? before a capital, but not after a title ('Mr. Perry', 'Dr. Hager').
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bJr\.)"
                       r"(?<!\bSr\.)(?<!\bLt\.)(?<!\bMt\.)(?<!\bSgt\.)(?<!\bCapt\.)(?<!\bCol\.)(?<!\bGen\.)"
                       r"(?<!\bProf\.)(?<!\bRev\.)\s+(?=[A-Z\"'(])|(?<=[。！？])")
_SPACE = re.compile(r"\s+")
#: Element kinds whose text can show a fact.
_TEXT_KINDS = frozenset({ElementKind.SCENE_HEADING, ElementKind.ACTION, ElementKind.DIALOGUE,
                         ElementKind.CHARACTER, ElementKind.PARENTHETICAL, ElementKind.LYRIC,
                         ElementKind.CENTERED, ElementKind.SHOT})


def sentences(text: str) -> list[str]:
    """Split text into sentences (English and Chinese end punctuation)."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def clip(text: str, limit: int = MAX_QUOTE) -> str:
    """`text` with runs of whitespace kept as written, cut at a word boundary to `limit` chars."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def quote_evidence(scene: Scene, element: Element, quote: str, producer: str) -> Evidence:
    """Evidence quoting part of one element of a scene.

    Args:
        scene: The scene the element belongs to.
        element: The element the quote is taken from.
        quote: Verbatim text of the element (clipped to `MAX_QUOTE`).
        producer: What produced the fact ('rule:NAME', 'llm:MODEL/PROMPT@VERSION', ...).
    """
    return Evidence(scene=scene.index, lines=(element.line_start, element.line_end),
                    quote=clip(quote), producer=producer)


def heading_evidence(scene: Scene, producer: str) -> Evidence | None:
    """Evidence quoting the scene heading, or None for a scene without one."""
    heading = next((el for el in scene.elements if el.kind is ElementKind.SCENE_HEADING), None)
    if heading is not None:
        return quote_evidence(scene, heading, heading.text, producer)
    if scene.heading:
        return Evidence(scene=scene.index, lines=(scene.line_span[0], scene.line_span[0]),
                        quote=clip(scene.heading), producer=producer)
    return None


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def quote_score(quote: str, text: str) -> float:
    """How well `text` holds `quote`, 0-100: 100 when it occurs in it up to whitespace and case,
    else rapidfuzz's partial ratio (the best-aligned stretch of the text)."""
    wanted, within = _squash(quote), _squash(text)
    return 100.0 if wanted in within else fuzz.partial_ratio(wanted, within)


def locate_quote(scenes: Iterable[Scene], quote: str, producer: str, *,
                 min_ratio: float = QUOTE_MATCH) -> Evidence | None:
    """Find a quote in the text of some scenes and return it as evidence of those lines.

    The quote matches an element when it occurs in it up to whitespace and case, or when
    rapidfuzz's partial ratio reaches `min_ratio`; the evidence then quotes the element's
    best-matching sentence verbatim.

    Returns:
        The evidence, or None when no element of these scenes holds the quote.
    """
    wanted = _squash(quote)
    if len(wanted) < 4:
        return None
    best: tuple[float, Scene, Element, str] | None = None
    for scene in scenes:
        for el in scene.elements:
            if el.kind not in _TEXT_KINDS or not el.text.strip():
                continue
            score = quote_score(wanted, el.text)
            if score >= min_ratio and (best is None or score > best[0]):
                best = (score, scene, el, best_sentence(el.text, quote))
    if best is None:
        return None
    _, scene, el, sentence = best
    return quote_evidence(scene, el, sentence, producer)


def best_sentence(text: str, quote: str) -> str:
    """The sentence of `text` that holds `quote` best (the one `locate_quote` quotes)."""
    parts = sentences(text) or [text]
    if len(parts) == 1:
        return parts[0]
    wanted = _squash(quote)
    return max(parts, key=lambda s: fuzz.partial_ratio(wanted, _squash(s)))


def name_pattern(forms: list[str]) -> re.Pattern[str] | None:
    """A pattern finding any of a thing's surface forms as a whole word, case-insensitively
    (anywhere, for a Chinese form); None when no form is given."""
    forms = [f for f in forms if f and f.strip()]
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    cjk = any(re.search(r"[\u3400-\u9fff]", f) for f in forms)
    return re.compile(alternatives if cjk else rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def locate_names(scenes: Iterable[Scene], names: list[list[str]], producer: str) -> Evidence | None:
    """The first sentence of these scenes that names each of several things.

    Args:
        scenes: Where to look, in order.
        names: One list of surface forms per thing (a name and its aliases); a sentence must
            contain one form of every list, as a whole word, case-insensitively.
        producer: What produced the fact.

    Returns:
        Evidence quoting that sentence, or None.
    """
    found = [name_pattern(forms) for forms in names]
    patterns = [p for p in found if p is not None]
    if len(patterns) != len(found):
        return None
    for scene in scenes:
        for el in scene.elements:
            if el.kind not in _TEXT_KINDS:
                continue
            for sentence in sentences(el.text) or [el.text]:
                if all(p.search(sentence) for p in patterns):
                    return quote_evidence(scene, el, sentence, producer)
    return None


def quote_occurs(evidence: Evidence, scene: Scene) -> bool:
    """True when the evidence's quote is verbatim text of its lines in this scene (up to spaces)."""
    if evidence.lines is None:
        return False
    first, last = evidence.lines
    text = " ".join(el.text for el in scene.elements
                    if el.line_start <= last and el.line_end >= first)
    return _squash(evidence.quote) in _squash(text)

"""The text of a cited scene as the judge reads it: numbered source lines, cut around the evidence.

Each element is rendered as screenplay text (cues, parentheticals and dialogue indented) with its
source line number in a gutter; the lines an evidence item cites are marked `>`. A scene longer
than the limit keeps its heading, every cited line (even past the limit: a judge must see what a
fact cites) and the lines nearest them, and `[...]` stands where text was left out.

Example:
    >>> print(scene_text(scene, cited=[(19, 19)]))
       17   INT. LIGHTHOUSE - LAMP ROOM - NIGHT
       19 > Nora sets the lantern on the table and winds the clockwork. ...
"""

from __future__ import annotations

from kgbuild.chunking import render_element
from kgbuild.model import Element, ElementKind, Scene

#: Rendered lines shown per scene at most (the heading included), before `[...]` cuts.
MAX_SCENE_LINES = 60
CUT = "[...]"
_INDENT = {ElementKind.CHARACTER: 20, ElementKind.PARENTHETICAL: 15, ElementKind.DIALOGUE: 10,
           ElementKind.LYRIC: 10, ElementKind.TRANSITION: 40, ElementKind.CENTERED: 20}
_SKIPPED = {ElementKind.PAGE_BREAK, ElementKind.NOTE}


def _element_lines(element: Element) -> list[tuple[int, str]]:
    indent = " " * _INDENT.get(element.kind, 0)
    # A cue as the script prints it ('思诺摇摇头', 'MARKUS (O.S)'), not the speaker it names: a
    # fact's evidence may quote the cue's own words.
    text = element.text if element.kind is ElementKind.CHARACTER and element.text.strip() else render_element(element)
    pieces = text.split("\n") or [""]
    return [(min(element.line_start + i, element.line_end), indent + piece.rstrip())
            for i, piece in enumerate(pieces)]


def scene_lines(scene: Scene) -> list[tuple[int, str]]:
    """(source line, rendered text) for every line of the scene, in order."""
    return [line for el in scene.elements if el.kind not in _SKIPPED for line in _element_lines(el)]


def _keep(lines: list[tuple[int, str]], marked: list[int], limit: int) -> list[int]:
    """Indexes of the lines to show: all if they fit, else the heading, every mark and those nearest one."""
    if len(lines) <= limit:
        return list(range(len(lines)))
    if not marked:
        return list(range(limit))
    kept = {0, *marked}
    rest = [i for i in range(1, len(lines)) if i not in kept]
    room = max(0, limit - len(kept))
    nearest = sorted(rest, key=lambda i: (min(abs(i - m) for m in marked), i))[:room]
    return sorted(kept | set(nearest))


def scene_text(scene: Scene, cited: list[tuple[int, int]], *, limit: int = MAX_SCENE_LINES) -> str:
    """The scene as numbered lines, cited lines marked `>`, cut to `limit` lines around them.

    Args:
        scene: The scene.
        cited: (first, last) source line spans the fact's evidence cites in this scene.
        limit: Rendered lines shown at most, unless more lines are cited; longer scenes are cut
            with `[...]`.

    Returns:
        Plain text, one rendered line per line: `'   19 > Nora sets the lantern ...'`.
    """
    lines = scene_lines(scene)
    marked = [i for i, (number, _) in enumerate(lines)
              if any(first <= number <= last for first, last in cited)]
    keep = _keep(lines, marked, limit)
    is_marked = set(marked)
    out: list[str] = []
    previous = -1
    for i in keep:
        if i != previous + 1:
            out.append(CUT)
        number, text = lines[i]
        out.append(f"{number:>5} {'>' if i in is_marked else ' '} {text}".rstrip())
        previous = i
    if lines and previous != len(lines) - 1:
        out.append(CUT)
    return "\n".join(out)

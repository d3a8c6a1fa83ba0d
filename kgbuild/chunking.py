"""Scene-aligned chunks for the extraction stages.

A chunk never cuts a paragraph or a speech (a cue with its parentheticals and dialogue). Short
consecutive scenes share a chunk up to the token budget; a scene longer than the budget is split
into parts (`scene_12_part_2`). Token counts are `kgbuild.tokens.estimate_tokens`.
"""

from __future__ import annotations

from collections.abc import Iterator

from kgbuild.model import Chunk, Element, ElementKind, Scene, Screenplay
from kgbuild.tokens import estimate_tokens

#: The STAGE setting: screenplays are cut into 600-token chunks.
DEFAULT_TOKEN_BUDGET = 600

_SPEECH = {ElementKind.PARENTHETICAL, ElementKind.DIALOGUE, ElementKind.LYRIC}
_SKIPPED = {ElementKind.PAGE_BREAK, ElementKind.NOTE}
# Between the units of a part and the scenes of a chunk. Budgets count each piece with the
# separator before it: a sum of rounded-up estimates is never below the estimate of the joined text.
_SEPARATOR = "\n\n"


def render_element(element: Element) -> str:
    """The element as screenplay-like text for a prompt."""
    if element.kind is ElementKind.CHARACTER:
        ext = "".join(f" ({e})" for e in element.extensions)
        return f"{element.speaker or element.text}{ext}"
    if element.kind is ElementKind.SCENE_HEADING:
        return element.text.upper() if element.text.isascii() else element.text
    return element.text


def _units(scene: Scene) -> Iterator[list[Element]]:
    """Yield the indivisible pieces of a scene: a paragraph, or a whole speech."""
    unit: list[Element] = []
    for el in scene.elements:
        if el.kind in _SKIPPED:
            continue
        if el.kind in _SPEECH and unit and unit[0].kind is ElementKind.CHARACTER:
            unit.append(el)
            continue
        if unit:
            yield unit
        unit = [el]
    if unit:
        yield unit


def _unit_text(unit: list[Element]) -> str:
    return "\n".join(render_element(el) for el in unit)


def _scene_parts(scene: Scene, budget: int) -> list[str]:
    """Split one scene's text into parts within the budget, at unit boundaries."""
    parts: list[list[str]] = [[]]
    used = 0
    for unit in _units(scene):
        text = _unit_text(unit)
        if parts[-1] and used + estimate_tokens(_SEPARATOR + text) > budget:
            parts.append([])
            used = 0
        used += estimate_tokens(_SEPARATOR + text if parts[-1] else text)
        parts[-1].append(text)
    return [_SEPARATOR.join(p) for p in parts if p]


def chunk_screenplay(
    screenplay: Screenplay, *, token_budget: int = DEFAULT_TOKEN_BUDGET, pack_scenes: bool = True
) -> list[Chunk]:
    """Cut a screenplay into scene-aligned chunks.

    Args:
        screenplay: The parsed screenplay.
        token_budget: Target maximum tokens per chunk; a single paragraph or speech longer than
            this becomes a chunk of its own rather than being cut.
        pack_scenes: Put consecutive short scenes into one chunk while they fit the budget.

    Returns:
        Chunks in story order; every scene with text is in exactly one chunk or split into parts.

    Raises:
        ValueError: a token budget below 1.
    """
    if token_budget < 1:
        raise ValueError("token_budget must be at least 1")
    chunks: list[Chunk] = []
    pending: list[tuple[int, str]] = []
    pending_tokens = 0

    def flush() -> None:
        nonlocal pending_tokens
        if not pending:
            return
        first, last = pending[0][0], pending[-1][0]
        text = _SEPARATOR.join(t for _, t in pending)
        chunk_id = f"scene_{first}" if first == last else f"scenes_{first}_{last}"
        chunks.append(
            Chunk(
                id=chunk_id,
                scene_indices=[i for i, _ in pending],
                text=text,
                token_estimate=estimate_tokens(text),
            )
        )
        pending.clear()
        pending_tokens = 0

    for scene in screenplay.scenes:
        parts = _scene_parts(scene, token_budget)
        if not parts:
            continue
        if len(parts) > 1:
            flush()
            for n, text in enumerate(parts, start=1):
                chunks.append(
                    Chunk(
                        id=f"scene_{scene.index}_part_{n}",
                        scene_indices=[scene.index],
                        text=text,
                        token_estimate=estimate_tokens(text),
                    )
                )
            continue
        joined_cost = estimate_tokens(_SEPARATOR + parts[0])
        if pending and (not pack_scenes or pending_tokens + joined_cost > token_budget):
            flush()
        pending_tokens += joined_cost if pending else estimate_tokens(parts[0])
        pending.append((scene.index, parts[0]))
    flush()
    return chunks

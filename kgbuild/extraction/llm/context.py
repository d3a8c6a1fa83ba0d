"""What the parser already knows about a chunk, for the prompts and for checking the answers.

The model should not have to guess the scene a passage belongs to, where and when it is set, or
who speaks in it: the screenplay's layout says so. `chunk_contexts` collects those facts per
chunk (scene ids, headings, location parts, time of day, printed scene numbers, the cues that
speak, every cue heard up to the chunk), and renders the passage with a `[scene N]` marker
before each scene's text so the model can ground each item in a scene.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.chunking import chunk_screenplay, render_element
from kgbuild.model import Chunk, ElementKind, Scene, Screenplay

_WHOLE_SCENE = 10**9


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SceneFacts(_Model):
    """The layout facts of one scene of a chunk."""

    index: int = Field(description="Scene id: 1-based position in story order.")
    number: str | None = Field(description="The scene number as printed, if any.")
    heading: str
    location: list[str] = Field(description="Location parts, outermost first.")
    time_of_day: str | None
    speakers: list[str] = Field(description="Cue names speaking in this chunk's part of the scene.")


class ChunkContext(_Model):
    """One chunk as the extraction stages see it."""

    chunk_id: str
    scenes: list[SceneFacts]
    known_speakers: list[str] = Field(description="Every cue name heard up to the end of this chunk.")
    passage: str = Field(description="The chunk text with a [scene N] marker before each scene.")

    @property
    def scene_ids(self) -> list[int]:
        """The chunk's scene indices."""
        return [s.index for s in self.scenes]

    @property
    def speakers(self) -> list[str]:
        """Cue names speaking anywhere in the chunk, in order of first appearance."""
        return list(dict.fromkeys(name for s in self.scenes for name in s.speakers))

    def render_facts(self, *, known_speakers: bool = True) -> str:
        """The facts as prompt text: one line per scene (the heading itself opens the scene's text
        in the passage), then optionally the other cue names heard so far."""
        lines = []
        for s in self.scenes:
            parts = [f"- [scene {s.index}]"]
            if s.number:
                parts.append(f"printed number: {s.number}")
            if s.location:
                parts.append("location: " + " > ".join(s.location))
            if s.time_of_day:
                parts.append(f"time: {s.time_of_day}")
            parts.append("speakers: " + (", ".join(s.speakers) or "none"))
            lines.append(parts[0] + " " + "; ".join(parts[1:]))
        earlier = [name for name in self.known_speakers if name not in set(self.speakers)]
        if known_speakers and earlier:
            lines.append("Other speakers heard before: " + ", ".join(earlier))
        return "\n".join(lines)


def _scene_text(screenplay: Screenplay, scene: Scene) -> str:
    alone = screenplay.model_copy(update={"scenes": [scene]})
    pieces = chunk_screenplay(alone, token_budget=_WHOLE_SCENE)
    return pieces[0].text if pieces else ""


def _passage(screenplay: Screenplay, chunk: Chunk, scenes: list[Scene]) -> str:
    if len(scenes) == 1:
        return f"[scene {scenes[0].index}]\n{chunk.text}"
    texts = [_scene_text(screenplay, s) for s in scenes]
    if "\n\n".join(texts) != chunk.text:  # not whole scenes after all: mark the chunk as one block
        ids = ", ".join(str(s.index) for s in scenes)
        return f"[scene {ids}]\n{chunk.text}"
    return "\n\n".join(f"[scene {s.index}]\n{t}" for s, t in zip(scenes, texts, strict=True))


def _speakers(scene: Scene, lines: set[str]) -> list[str]:
    names = [el.speaker for el in scene.elements
             if el.kind is ElementKind.CHARACTER and el.speaker and render_element(el) in lines]
    return list(dict.fromkeys(names))


def chunk_contexts(screenplay: Screenplay, chunks: list[Chunk]) -> list[ChunkContext]:
    """The parser's facts for each chunk, in chunk order.

    Args:
        screenplay: The parsed screenplay the chunks were cut from.
        chunks: Its chunks (`kgbuild.chunking.chunk_screenplay`).

    Returns:
        One context per chunk.
    """
    by_index = {s.index: s for s in screenplay.scenes}
    first_heard: dict[str, int] = {}
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind is ElementKind.CHARACTER and el.speaker:
                first_heard.setdefault(el.speaker, scene.index)
    contexts = []
    for chunk in chunks:
        scenes = [by_index[i] for i in chunk.scene_indices]
        lines = set(chunk.text.splitlines())
        facts = [SceneFacts(index=s.index, number=s.number, heading=s.heading, location=list(s.location),
                            time_of_day=s.time_of_day, speakers=_speakers(s, lines)) for s in scenes]
        last = max(chunk.scene_indices)
        known = [name for name, first in first_heard.items() if first <= last]
        contexts.append(ChunkContext(chunk_id=chunk.id, scenes=facts, known_speakers=known,
                                     passage=_passage(screenplay, chunk, scenes)))
    return contexts

"""The typed data that flows between kgbuild's stages.

Every stage takes and returns these models; none mutates its input. All models reject unknown
fields so a typo in a producer fails loudly instead of silently dropping data.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ElementKind(StrEnum):
    """What a piece of screenplay text is."""

    SCENE_HEADING = "scene_heading"
    ACTION = "action"
    CHARACTER = "character"
    PARENTHETICAL = "parenthetical"
    DIALOGUE = "dialogue"
    TRANSITION = "transition"
    SHOT = "shot"
    SECTION = "section"
    SYNOPSIS = "synopsis"
    NOTE = "note"
    LYRIC = "lyric"
    CENTERED = "centered"
    PAGE_BREAK = "page_break"


class SourceFormat(StrEnum):
    """The input formats kgbuild reads."""

    FOUNTAIN = "fountain"
    FDX = "fdx"
    PDF = "pdf"
    PLAIN = "plain"
    STAGE_JSON = "stage_json"


class Emphasis(_Model):
    """A styled span of an element's text (markup removed from `text`, kept here)."""

    start: int = Field(description="Offset of the first styled character in the element text.")
    end: int = Field(description="Offset one past the last styled character.")
    style: str = Field(description="bold, italic or underline.")


class Element(_Model):
    """One paragraph of a screenplay: a heading, an action block, a cue, a speech line, ..."""

    kind: ElementKind
    text: str
    line_start: int = Field(description="1-based first source line (paragraph number for FDX).")
    line_end: int = Field(description="1-based last source line.")
    page: int | None = Field(default=None, description="Source page, when the format has pages.")
    speaker: str | None = Field(
        default=None,
        description="Normalized character name: set on cues and on the parentheticals and "
        "dialogue that belong to a cue.",
    )
    extensions: list[str] = Field(
        default_factory=list, description="Cue extensions such as V.O., O.S., CONT'D, PRELAP."
    )
    dual: bool = Field(default=False, description="Part of a dual (simultaneous) dialogue block.")
    forced: bool = Field(default=False, description="Marked explicitly by the writer (Fountain).")
    depth: int | None = Field(default=None, description="Section depth (Fountain '#', '##', ...).")
    number: str | None = Field(default=None, description="Printed scene number, on headings.")
    emphasis: list[Emphasis] = Field(default_factory=list)


class Scene(_Model):
    """A scene: its heading facts and its elements in order."""

    index: int = Field(description="1-based position in story order.")
    number: str | None = Field(default=None, description="Scene number as printed, e.g. '12A'.")
    heading: str = Field(description="The heading text without scene numbers ('' if none).")
    int_ext: str | None = Field(default=None, description="INT, EXT, INT/EXT or None.")
    location: list[str] = Field(
        default_factory=list, description="Location parts, outermost first."
    )
    time_of_day: str | None = None
    elements: list[Element] = Field(default_factory=list)
    line_span: tuple[int, int] = Field(description="First and last source line of the scene.")


class Source(_Model):
    """Where a screenplay came from."""

    path: str
    format: SourceFormat
    sha256: str
    encoding: str | None = Field(default=None, description="Detected text encoding, if text.")
    size_bytes: int


class ParseWarning(_Model):
    """A line the reader was unsure about, or something it had to guess."""

    line: int | None = None
    message: str


class Screenplay(_Model):
    """A parsed screenplay: the input of every later stage."""

    title: str
    language: str = Field(description="'en' or 'zh'.")
    source: Source
    title_page: dict[str, str] = Field(default_factory=dict)
    scenes: list[Scene]
    warnings: list[ParseWarning] = Field(default_factory=list)


class Chunk(_Model):
    """A scene-aligned piece of screenplay text for the extraction stages."""

    id: str = Field(description="'scene_12', or 'scene_12_part_2' for part of a long scene.")
    scene_indices: list[int]
    text: str
    token_estimate: int

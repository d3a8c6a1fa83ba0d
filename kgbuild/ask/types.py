"""What `ask` returns: the question's linked entities, ranked scenes with their matching lines,
ranked facts with their evidence, and (with an LLM) an answer that cites scenes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.model import Evidence


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LinkedEntity(_Model):
    """An entity of the graph the question names."""

    id: str
    name: str
    type: str
    mention: str = Field(description="The words of the question that name it.")
    how: str = Field(description="'name', 'alias' or 'fuzzy' (a near spelling, e.g. a possessive).")
    weight: float = Field(description="How much holding it tells about a scene: log(scenes / its scenes).")


class MatchedLine(_Model):
    """A line of a ranked scene that bears on the question."""

    lines: tuple[int, int] = Field(description="Source lines.")
    speaker: str | None = None
    text: str


class RankedScene(_Model):
    """A scene, how it ranks for the question, and why."""

    scene: int = Field(description="1-based scene index.")
    heading: str
    score: float
    text_score: float = Field(description="BM25 of the question's words over the scene.")
    meaning_score: float | None = Field(description="Best cosine of a line's MiniLM vector to the question's "
                                        "(English scripts only).")
    graph_score: float = Field(description="The linked entities grounded in the scene, each by its weight, "
                               "and the relations between them the scene's evidence shows.")
    entities: list[str] = Field(default_factory=list, description="Names of the linked entities in the scene.")
    lines: list[MatchedLine] = Field(default_factory=list)


class RankedFact(_Model):
    """A relation of the graph between the question's entities (or touching one), with its evidence."""

    id: str
    statement: str
    type: str
    score: float
    evidence: list[Evidence]


class CitedLines(_Model):
    """A citation as the model writes it: a scene of the evidence, lines of it, and their words."""

    scene: int = Field(description="The scene number, as the evidence numbers it.")
    lines: list[int] = Field(description="The numbers of the quoted lines, as the evidence numbers them.")
    quote: str = Field(description="Words copied exactly from those lines.")


class ModelAnswer(_Model):
    """The model's reply to an answer request (`kgbuild.ask.answer`)."""

    answer: str = Field(description="One to three sentences, from the evidence only.")
    citations: list[CitedLines] = Field(description="Every scene the answer rests on, with the lines it quotes.")
    says_script_does_not_say: bool = Field(description="True when the evidence does not hold the answer.")


class Citation(_Model):
    """A scene an answer cites, the lines it quotes, and whether the evidence bears the citation out."""

    scene: int
    lines: list[int] = Field(default_factory=list, description="Source lines quoted (as the model gave them, or "
                             "where the quote was found when it gave none).")
    quote: str = ""
    problem: str | None = Field(default=None, description="Why the citation does not hold: 'not retrieved' (the "
                                "scene was not in the evidence), 'quote not in the lines', 'no such line'. "
                                "None: it holds.")


class Answer(_Model):
    """An LLM's answer written from the retrieved evidence only, its citations checked."""

    text: str
    supported: bool = Field(description="False when the model said the evidence does not hold the answer.")
    citations: list[Citation] = Field(default_factory=list, description="Citations that hold.")
    flagged: list[Citation] = Field(default_factory=list,
                                    description="Citations dropped, each with its problem.")
    cited_unretrieved: list[int] = Field(default_factory=list,
                                         description="Cited scenes (in a citation or the answer's text) that "
                                         "were not among the retrieved ones.")
    model: str
    prompt: str = Field(description="The prompt and its version, e.g. 'answer v1'.")


class ModelCypher(_Model):
    """The model's reply to a query request (`kgbuild.ask.cypher`)."""

    cypher: str = Field(description="One read-only Cypher statement.")


class CypherAttempt(_Model):
    """A query the model wrote, and why it did not run (None: it ran)."""

    cypher: str
    problem: str | None = None


class CypherAnswer(_Model):
    """A question answered by one read-only Cypher query: the attempts and the rows of the one that ran."""

    question: str
    movie: str = Field(description="The movie the query read (its nodes' `movie`).")
    store: str = Field(description="The store's path or Bolt address.")
    attempts: list[CypherAttempt] = Field(description="The first query and, when it failed, the retry.")
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    truncated: bool = Field(default=False, description="More rows came back than are kept.")
    model: str
    prompt: str
    error: str | None = Field(default=None, description="Why no query ran.")

    @property
    def cypher(self) -> str | None:
        """The query that ran (None: none did)."""
        return self.attempts[-1].cypher if self.error is None and self.attempts else None


class AskResult(_Model):
    """The answer to one question: the evidence ranked, and an answer when an LLM was asked."""

    question: str
    as_of_scene: int | None = Field(default=None, description="Nothing after this scene was looked at.")
    entities: list[LinkedEntity]
    scenes: list[RankedScene]
    facts: list[RankedFact]
    answer: Answer | None = None
    answer_error: str | None = Field(default=None, description="Why no answer came back (no valid reply after "
                                     "the retries, the server failing); the evidence stands.")

"""Questions answered from a build: the entities a question names, the scenes and facts that bear
on it, ranked, with their evidence (`retrieve`); one build opened once for many questions
(`AskSession`).

Example:
    >>> session = AskSession("out/lizard-people")
    >>> result = session.ask("Who does Lang talk to in the lab?", k=3)
    >>> [s.scene for s in result.scenes]
"""

from __future__ import annotations

import os

from kgbuild.ask.retrieve import retrieve
from kgbuild.ask.story_index import StoryIndex
from kgbuild.ask.types import AskResult
from kgbuild.embeddings import Embedder

__all__ = ["AskResult", "AskSession", "StoryIndex", "retrieve"]


class AskSession:
    """A build opened for questions: its index and the embedding model are loaded once."""

    def __init__(self, build: str | os.PathLike[str], *, embedder: Embedder | None = None):
        """Open a build folder (graph.json and screenplay.json).

        Raises:
            InputError: the folder is no build.
        """
        if embedder is None:
            from kgbuild.embeddings import default_embedder

            embedder = default_embedder()
        self._embedder = embedder
        self.index = StoryIndex.open(build, embedder=embedder)

    def ask(self, question: str, *, as_of: int | None = None, k: int = 5, facts: int = 10) -> AskResult:
        """The ranked evidence for one question (see `kgbuild.ask.retrieve.retrieve`)."""
        return retrieve(question, self.index, as_of=as_of, k=k, facts=facts, embedder=self._embedder)

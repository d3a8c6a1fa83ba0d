"""Questions answered from a build: the entities a question names, the scenes and facts that bear
on it, ranked, with their evidence (`retrieve`); with an LLM, an answer written from that
evidence only, citing scenes and quoting lines (`kgbuild.ask.answer`); one build opened once for
many questions (`AskSession`).

Example:
    >>> session = AskSession("out/lizard-people")
    >>> result = session.ask("Who does Lang talk to in the lab?", k=3)
    >>> [s.scene for s in result.scenes]
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kgbuild.ask.retrieve import retrieve
from kgbuild.ask.story_index import StoryIndex
from kgbuild.ask.types import Answer, AskResult, Citation
from kgbuild.embeddings import Embedder
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ChatBackend

__all__ = ["Answer", "AskResult", "AskSession", "Citation", "StoryIndex", "retrieve"]


class AskSession:
    """A build opened for questions: its index and the embedding model are loaded once.

    Args:
        build: A build folder of `kgbuild build` (graph.json and screenplay.json).
        embedder: The line embedder; the bundled MiniLM (cached) when None.
        llm: Answer with this LLM (`kgbuild.llm.settings.LLMSettings`: model, endpoint, cache,
            budget, batch export, as builds use); None returns the ranked evidence only.
        backend: Send the LLM's requests here instead of the endpoint (a scripted backend).

    Raises:
        InputError: the folder is no build.

    Example:
        >>> session = AskSession("out/lizard-people", llm=LLMSettings(model="gpt-4o-mini"))  # doctest: +SKIP
        >>> [r.answer.text for r in session.ask_many(["Who is Reggie's son?", "Where is the lab?"])]  # doctest: +SKIP
    """

    def __init__(self, build: str | os.PathLike[str], *, embedder: Embedder | None = None,
                 llm: LLMSettings | None = None, backend: ChatBackend | None = None):
        if embedder is None:
            from kgbuild.embeddings import default_embedder

            embedder = default_embedder()
        self._embedder = embedder
        self.build = build
        self.llm = llm
        self._backend = backend
        self.index = StoryIndex.open(build, embedder=embedder)

    def retrieve(self, question: str, *, as_of: int | None = None, k: int = 5, facts: int = 10) -> AskResult:
        """The ranked evidence for one question (see `kgbuild.ask.retrieve.retrieve`), never an answer."""
        return retrieve(question, self.index, as_of=as_of, k=k, facts=facts, embedder=self._embedder)

    def ask(self, question: str, *, as_of: int | None = None, k: int = 5, facts: int = 10) -> AskResult:
        """The ranked evidence for one question, and the LLM's answer when the session has one.

        Raises:
            BatchPendingError, LLMRequestError, BudgetExceededError, LLMStallError: see `ask_many`.
        """
        return self.ask_many([question], as_of=as_of, k=k, facts=facts)[0]

    def ask_many(self, questions: Sequence[str], *, as_of: int | None = None, k: int = 5,
                 facts: int = 10) -> list[AskResult]:
        """Several questions: each one's ranked evidence, and with an LLM its answer (requests sent
        together, so a batch export holds them all).

        Returns:
            One result per question, in order; with an LLM, each has `answer` or `answer_error`.

        Raises:
            BatchPendingError: batch-export mode wrote the requests not answered yet.
            LLMRequestError: the server refused the requests (key, model, URL).
            BudgetExceededError: the budget stopped the run (answers so far are cached).
            LLMStallError: the server never answered, or the deadline ran out.
        """
        results = [self.retrieve(q, as_of=as_of, k=k, facts=facts) for q in questions]
        if self.llm is None:
            return results
        from kgbuild.ask.answer import answer_all

        return answer_all(results, self.index, self.llm, backend=self._backend).results

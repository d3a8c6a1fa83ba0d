"""Questions answered from a build: the entities a question names, the scenes and facts that bear
on it, ranked, with their evidence (`retrieve`); with an LLM, an answer written from that
evidence only, citing scenes and quoting lines (`kgbuild.ask.answer`), or one read-only Cypher
query run on the store (`kgbuild.ask.cypher`); one build opened once for many questions
(`AskSession`).

Example:
    >>> session = AskSession("out/lizard-people")
    >>> result = session.ask("Who does Lang talk to in the lab?", k=3)
    >>> [s.scene for s in result.scenes]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgbuild.ask.retrieve import retrieve
from kgbuild.ask.story_index import StoryIndex, build_folder
from kgbuild.ask.types import Answer, AskResult, Citation, CypherAnswer
from kgbuild.embeddings import Embedder
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import ChatBackend
from kgbuild.model import KnowledgeGraph

if TYPE_CHECKING:
    from kgbuild.loaders.store import GraphStore

__all__ = ["Answer", "AskResult", "AskSession", "Citation", "CypherAnswer", "StoryIndex", "retrieve"]


class AskSession:
    """A build opened for questions: its index, the embedding model and the store are loaded once,
    each when first needed; close it (or use `with`) to close the store.

    Args:
        build: A build folder of `kgbuild build` (graph.json and screenplay.json).
        embedder: The line embedder; the bundled MiniLM (cached) when None.
        llm: Answer with this LLM (`kgbuild.llm.settings.LLMSettings`: model, endpoint, cache,
            budget, batch export, as builds use); None returns the ranked evidence only.
        backend: Send the LLM's requests here instead of the endpoint (a scripted backend).
        db: The store `cypher` reads (`kgbuild.loaders.store.open_store`): a .lbdb file, a build
            folder, a graph.json, or a bolt:// address (Neo4j, FalkorDB); None: the build's own
            graph.lbdb.
        db_auth: (user, password) of a Bolt server; an empty password for none.
        database: The Neo4j database; the server's default when None.

    Raises:
        InputError: the folder is no build.

    Example:
        >>> with AskSession("out/lizard-people", llm=LLMSettings(model="gpt-4o-mini")) as session:  # doctest: +SKIP
        ...     answers = [r.answer.text for r in session.ask_many(["Who is Reggie's son?", "Where is the lab?"])]
        ...     rows = session.cypher("Who speaks to Reggie?").rows
    """

    def __init__(self, build: str | os.PathLike[str], *, embedder: Embedder | None = None,
                 llm: LLMSettings | None = None, backend: ChatBackend | None = None,
                 db: str | os.PathLike[str] | None = None, db_auth: tuple[str, str] | None = None,
                 database: str | None = None):
        self.build = build_folder(build)  # no build there: said now, not at the first question
        self.llm = llm
        self._embedder = embedder
        self._backend = backend
        self._db = db
        self._db_auth = db_auth
        self._database = database
        self._index: StoryIndex | None = None
        self._graph: KnowledgeGraph | None = None
        self._store: GraphStore | None = None

    @property
    def index(self) -> StoryIndex:
        """The build's index (opened at first use)."""
        if self._index is None:
            if self._embedder is None:
                from kgbuild.embeddings import default_embedder

                self._embedder = default_embedder()
            self._index = StoryIndex.open(self.build, embedder=self._embedder)
        return self._index

    @property
    def graph(self) -> KnowledgeGraph:
        """The build's graph."""
        if self._index is not None:
            return self._index.graph
        if self._graph is None:
            from kgbuild.graph import load_graph

            self._graph = load_graph(BuildFolder(self.build).graph)
        return self._graph

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

    def cypher(self, question: str) -> CypherAnswer:
        """The question turned by the LLM into one read-only Cypher query, checked, run on the store,
        with its rows (see `kgbuild.ask.cypher`).

        Raises:
            InputError: the session has no LLM, or the store holds nothing of this movie.
            StoreError: the store cannot be opened or reached.
            BatchPendingError, LLMError: see `kgbuild.ask.cypher.ask_cypher`.
        """
        if self.llm is None:
            raise InputError("a Cypher query needs an LLM: give the session llm=LLMSettings(model=...)")
        from kgbuild.ask.cypher import ask_cypher
        from kgbuild.loaders.store import open_store
        from kgbuild.schema import schema_for_graph

        if self._store is None:
            user, password = self._db_auth or ("neo4j", "")
            self._store = open_store(self.build if self._db is None else self._db, user=user, password=password,
                                     database=self._database)
        return ask_cypher(question, self._store, self.llm, movie=self.graph.movie.key,
                          schema=schema_for_graph(self.build), backend=self._backend)

    def close(self) -> None:
        """Close the store, if `cypher` opened one."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> AskSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""`ask --cypher`: a question turned into one read-only Cypher query, checked before it runs.

The request (prompt `kgbuild/llm/prompts/cypher.md`) gives the model the graph schema as the
store holds it for this movie: the node labels and relationship types that have nodes and
relationships of the movie (with their counts and the schema's descriptions and admitted
directions), the properties, and the store's dialect. The reply `{cypher}` is checked before
it reaches the store (`query_problem`):

1. **read only**: no clause or procedure that writes (`write_words`: CREATE, MERGE, SET, DELETE,
   REMOVE, DROP, LOAD CSV, COPY, CALL, FOREACH, ...; words inside strings and comments do not
   count), one statement, no parameter but `$movie` (queries run in read transactions, but
   FalkorDB runs writes even there: this check keeps them from reaching it);
2. **the schema**: every label and relationship type it names has nodes or relationships of
   the movie in the store;
3. **the dialect** (embedded store): no Neo4j-only construct (`kgbuild.loaders.dialect`);
4. **the store**: `EXPLAIN` of the query (syntax and binding; the embedded store is opened
   read-only, so a write is refused there too).

A query that fails a check, or that the store refuses when it runs, is sent back once with the
problem; the second query gets the same checks. The rows of the query that ran are returned
(at most `MAX_ROWS`). The request goes through the project's LLM client
(`kgbuild.llm.factory.open_llm_client`): same cache, retries, budget and batch export as builds.

Example:
    >>> with open_store("out/lizard-people") as store:  # doctest: +SKIP
    ...     answer = ask_cypher("Who speaks to Reggie?", store, LLMSettings(model="gpt-4o-mini"),
    ...                         movie="lizard-people", schema=load_schema())
    >>> answer.cypher, answer.rows[:2]  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Any

from kgbuild.ask.types import CypherAnswer, CypherAttempt, ModelCypher
from kgbuild.errors import InputError, KgbuildError
from kgbuild.llm.client import LLMClient
from kgbuild.llm.factory import open_llm_client, raise_pending
from kgbuild.llm.prompts import load_prompt, short_description
from kgbuild.llm.settings import LLMSettings
from kgbuild.llm.types import BatchPendingError, ChatBackend, ChatMessage
from kgbuild.loaders.dialect import mask_literals, neo4j_only_constructs, query_parameters
from kgbuild.loaders.errors import QueryError
from kgbuild.loaders.records import (
    IN_SCENE,
    NODE_PROPERTIES,
    PRESENCE_PROPERTIES,
    RELATION_PROPERTIES,
    SCENE_LABEL,
    SCENE_PROPERTIES,
)
from kgbuild.loaders.results import QueryResult
from kgbuild.schema import Schema

if TYPE_CHECKING:
    from kgbuild.loaders.store import GraphStore, StoreKind

PROMPT = "cypher"
#: Accounting label of query requests in the client's usage.
TASK = "cypher"
#: Rows of a query's result kept at most.
MAX_ROWS = 200
#: The one parameter a query may use: the movie its nodes belong to.
MOVIE_PARAM = "movie"
#: Procedures that only read, which a query may CALL.
READ_PROCEDURES = frozenset({"db.labels", "db.relationshiptypes", "db.propertykeys", "show_tables", "table_info"})

_WRITES = re.compile(
    r"(?<![\w.$])(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|DROP|ALTER|FOREACH|COPY|INSTALL|LOAD|ATTACH|IMPORT|EXPORT|"
    r"CHECKPOINT|BEGIN|COMMIT|ROLLBACK|GRANT|REVOKE|DENY|USE|PROFILE|EXPLAIN)(?![\w])", re.IGNORECASE)
_CALL = re.compile(r"(?<![\w.$])CALL(?![\w])\s*(\{|[\w.]+)", re.IGNORECASE)
_APOC = re.compile(r"(?<![\w.$])apoc\.", re.IGNORECASE)
_NODE_LABELS = re.compile(r"\(\s*(?:[A-Za-z_]\w*)?\s*:\s*((?:`[^`]+`|\w+)(?:\s*[:|&]\s*(?:`[^`]+`|\w+))*)")
_REL_TYPES = re.compile(r"\[\s*(?:[A-Za-z_]\w*)?\s*:\s*((?:`[^`]+`|\w+)(?:\s*\|\s*:?\s*(?:`[^`]+`|\w+))*)")
_NAME = re.compile(r"`([^`]+)`|(\w+)")

_DIALECT = {
    "embedded": ("- The store is kgbuild's embedded store (Kuzu's Cypher): type(r) gives a relationship's type; "
                 "compare n.type, not labels(n); lists are 1-based (x[1] is the first item); write "
                 "list_filter(list, x -> condition) and list_transform(list, x -> expression) instead of list "
                 "comprehensions; no shortestPath (write MATCH p = (a)-[* SHORTEST 1..6]-(b)); no APOC."),
    "bolt": "- The store is a Bolt server (Neo4j or FalkorDB): standard Cypher, no APOC.",
}


class CypherError(KgbuildError):
    """No query could be run: both the model's queries failed their checks or the store refused them."""


# -- what the store holds --------------------------------------------------------------------------

def store_counts(store: GraphStore, movie: str) -> tuple[dict[str, int], dict[str, int]]:
    """The node labels and relationship types that have nodes and relationships of `movie` in the
    store, each with its count.

    Raises:
        QueryError: the store refused the counting queries.
    """
    label = "label(n)" if store.kind == "embedded" else "labels(n)"
    kind = "label(r)" if store.kind == "embedded" else "type(r)"
    params = {MOVIE_PARAM: movie}
    nodes: dict[str, int] = {}
    for name, count in store.query(f"MATCH (n) WHERE n.movie = $movie RETURN {label} AS l, count(*) AS c",
                                    params).rows:
        for one in name if isinstance(name, list) else [name]:
            nodes[str(one)] = nodes.get(str(one), 0) + int(count)
    relationships = {str(name): int(count) for name, count in store.query(
        f"MATCH ()-[r]->() WHERE r.movie = $movie RETURN {kind} AS t, count(*) AS c", params).rows}
    return dict(sorted(nodes.items())), dict(sorted(relationships.items()))


def _names(properties: tuple[tuple[str, str], ...], *, skip: tuple[str, ...] = ("key",)) -> str:
    return ", ".join(name for name, _ in properties if name not in skip)


def schema_lines(schema: Schema, nodes: dict[str, int], relationships: dict[str, int]) -> dict[str, str]:
    """The labels, relationship types and properties parts of the request, for what the store holds."""
    described = {t.name: t.description for t in schema.entity_types}
    labels = [f"- {name} ({count}): {short_description(described[name])}" if name in described
              else f"- {name} ({count}): a scene of the screenplay" if name == SCENE_LABEL
              else f"- {name} ({count})" for name, count in nodes.items()]
    specs = {r.name: r for r in schema.relation_types}
    rels = []
    for name, count in relationships.items():
        spec = specs.get(name)
        if spec is not None:
            pairs = ", ".join(f"{s} -> {o}" for s, o in spec.pairs if s in nodes and o in nodes)
            rels.append(f"- {name} ({pairs or 'any'}; {count}): {short_description(spec.description)}")
        elif name == IN_SCENE:
            rels.append(f"- {name} (Character -> {SCENE_LABEL}; {count}): the character is in the scene, as `mode` "
                        "says (present, offscreen, away: a voice from elsewhere, mentioned)")
        else:
            rels.append(f"- {name} ({count})")
    evidence = " (evidence_*: parallel lists, item i of each belongs together)"
    properties = "\n".join([
        f"- every node but {SCENE_LABEL}: {_names(NODE_PROPERTIES)}{evidence}",
        f"- every relationship but {IN_SCENE}: {_names(RELATION_PROPERTIES)} (name: the verb as the text has it)",
        f"- {SCENE_LABEL}: {_names(SCENE_PROPERTIES)} (scene: the scene number; number: as printed)",
        f"- {IN_SCENE}: {_names(PRESENCE_PROPERTIES)}",
    ])
    return {"labels": "\n".join(labels) or "(none)", "relationships": "\n".join(rels) or "(none)",
            "properties": properties}


def cypher_messages(question: str, movie: str, schema_text: dict[str, str],
                    kind: StoreKind) -> list[ChatMessage]:
    """The chat messages asking for one query."""
    prompt = load_prompt(PROMPT)
    return [ChatMessage(role="system", content=prompt.render("system", dialect=_DIALECT[kind])),
            ChatMessage(role="user", content=prompt.render("user", question=question, movie=movie, **schema_text))]


# -- the checks ------------------------------------------------------------------------------------

def write_words(cypher: str) -> list[str]:
    """The words of a query that write or leave plain reading, in order, outside strings and comments
    (CREATE, SET, LOAD, a CALL of any procedure but `READ_PROCEDURES`, apoc., ...)."""
    masked = mask_literals(cypher)
    found = [(m.start(), m.group(1).upper()) for m in _WRITES.finditer(masked)]
    found += [(m.start(), f"CALL {m.group(1)}") for m in _CALL.finditer(masked)
              if m.group(1).lower() not in READ_PROCEDURES]
    found += [(m.start(), "apoc.") for m in _APOC.finditer(masked)]
    return [word for _, word in sorted(found)]


def _split_names(text: str) -> list[str]:
    return [a or b for a, b in _NAME.findall(text)]


def named_labels(cypher: str) -> tuple[list[str], list[str]]:
    """The node labels and the relationship types a query's patterns name."""
    masked = mask_literals(cypher)
    labels = [n for m in _NODE_LABELS.finditer(masked) for n in _split_names(m.group(1))]
    types = [n for m in _REL_TYPES.finditer(masked) for n in _split_names(m.group(1))]
    return list(dict.fromkeys(labels)), list(dict.fromkeys(types))


def static_problem(cypher: str, nodes: dict[str, int], relationships: dict[str, int],
                   kind: StoreKind) -> str | None:
    """What keeps a query from reaching the store, without asking the store; None when nothing."""
    text = cypher.strip().removesuffix(";").strip()
    if not text:
        return "the query is empty"
    writes = write_words(text)
    if writes:
        return (f"it does not only read ({', '.join(dict.fromkeys(writes))}); write a query of MATCH, WHERE, WITH, "
                "UNWIND and RETURN only")
    if ";" in mask_literals(text):
        return "it holds more than one statement; write one"
    others = sorted(query_parameters(text) - {MOVIE_PARAM})
    if others:
        return f"it uses the parameter(s) {', '.join('$' + p for p in others)}; only $movie is given"
    labels, types = named_labels(text)
    unknown = [f"label {n}" for n in labels if n not in nodes] + [f"relationship type {t}" for t in types
                                                                   if t not in relationships]
    if unknown:
        return (f"this movie has no {', no '.join(unknown)} in the store; the labels are "
                f"{', '.join(nodes)} and the relationship types {', '.join(relationships)}")
    if kind == "embedded":
        hints = neo4j_only_constructs(text)
        if hints:
            return "; ".join(h.message() for h in hints)
    return None


def query_problem(cypher: str, store: GraphStore, nodes: dict[str, int], relationships: dict[str, int],
                  movie: str) -> str | None:
    """Every check of the module docstring, the store's EXPLAIN last; None when the query may run."""
    problem = static_problem(cypher, nodes, relationships, store.kind)
    if problem is not None:
        return problem
    text = cypher.strip().removesuffix(";").strip()
    try:
        store.query(f"EXPLAIN {text}", _params(text, movie))
    except QueryError as e:
        return f"the store refused it: {e}"
    return None


def _params(cypher: str, movie: str) -> dict[str, Any]:
    return {MOVIE_PARAM: movie} if MOVIE_PARAM in query_parameters(cypher) else {}


# -- the request, the retry and the run ------------------------------------------------------------

async def _attempt(client: LLMClient, messages: list[ChatMessage], store: GraphStore, nodes: dict[str, int],
                   relationships: dict[str, int], movie: str) -> tuple[CypherAttempt, QueryResult | None, str]:
    reply = await client.structured(task=TASK, messages=messages, response_model=ModelCypher)
    cypher = reply.cypher.strip()
    problem = query_problem(cypher, store, nodes, relationships, movie)
    result = None
    if problem is None:
        text = cypher.removesuffix(";").strip()
        try:
            result = store.query(text, _params(text, movie))
        except QueryError as e:
            problem = f"the store refused it: {e}"
    return CypherAttempt(cypher=cypher, problem=problem), result, reply.model_dump_json()


async def _ask(client: LLMClient, question: str, store: GraphStore, movie: str, nodes: dict[str, int],
               relationships: dict[str, int], schema_text: dict[str, str]
               ) -> tuple[list[CypherAttempt], QueryResult | None]:
    async with client:
        messages = cypher_messages(question, movie, schema_text, store.kind)
        first, result, reply = await _attempt(client, messages, store, nodes, relationships, movie)
        if first.problem is None:
            return [first], result
        retry = load_prompt(PROMPT).render("retry", problem=first.problem)
        messages = [*messages, ChatMessage(role="assistant", content=reply), ChatMessage(role="user", content=retry)]
        second, result, _ = await _attempt(client, messages, store, nodes, relationships, movie)
        return [first, second], result


def ask_cypher(question: str, store: GraphStore, settings: LLMSettings, *, movie: str, schema: Schema,
               backend: ChatBackend | None = None) -> CypherAnswer:
    """Turn a question into one read-only Cypher query, check it, run it, and return its rows.

    Args:
        question: The question, as asked.
        store: The store (`kgbuild.loaders.store.open_store`), queried read-only.
        settings: Model, endpoint, cache, timeout, deadline, budget, batch export.
        movie: The movie whose nodes the query may read (the graph's movie id as stored).
        schema: The graph's schema (descriptions and admitted directions of its types).
        backend: Send requests here instead of the endpoint (a scripted backend in tests).

    Returns:
        The attempts (one, or two after a retry) with their problems, and the rows of the query
        that ran; `error` says why none ran.

    Raises:
        InputError: the store holds nothing of `movie`.
        BatchPendingError: batch-export mode wrote the request.
        LLMError: the model's replies never validated, the server failed, the budget (see
            `LLMClient.structured`).
    """
    nodes, relationships = store_counts(store, movie)
    if not nodes:
        raise InputError(f"the store {store.where} holds nothing of the movie {movie!r}; load the build into it "
                         "with 'kgbuild load OUTDIR' (or --neo4j URI)")
    schema_text = schema_lines(schema, nodes, relationships)
    with open_llm_client(settings, backend=backend) as client:
        try:
            attempts, result = asyncio.run(_ask(client, question, store, movie, nodes, relationships, schema_text))
        except BatchPendingError:
            raise_pending(client, settings, "the query is not written yet")
            raise
    ran = result is not None
    rows = result.rows if result is not None else []
    error = None if ran else (f"no query could be run after {len(attempts)} attempts; last problem: "
                              f"{attempts[-1].problem}")
    return CypherAnswer(question=question, movie=movie, store=store.where, attempts=attempts,
                        columns=result.columns if result is not None else [], rows=rows[:MAX_ROWS],
                        truncated=len(rows) > MAX_ROWS, model=settings.model, prompt=load_prompt(PROMPT).tag,
                        error=error)

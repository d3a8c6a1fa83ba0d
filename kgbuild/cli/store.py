"""`kgbuild query`, `kgbuild load` and `kgbuild export`: the graph in a store, and as files."""

from __future__ import annotations

import csv
import io
import json
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.markup import escape
from rich.table import Table

from kgbuild.ask.render import cell_text
from kgbuild.cli.console import stdout_console
from kgbuild.cli.options import bolt_param, schema_option
from kgbuild.folders import BuildFolder, CorpusFolder
from kgbuild.graph import graph_file, load_graph
from kgbuild.loaders.plan import DEFAULT_BATCH_SIZE
from kgbuild.loaders.records import LoadCounts, Refusal, refusal_summary
from kgbuild.loaders.results import QueryResult
from kgbuild.model import KnowledgeGraph
from kgbuild.schema import schema_for_graph

if TYPE_CHECKING:
    from kgbuild.loaders.store import GraphStore

_FORMATS = click.Choice(["table", "json", "csv"])
_EXPORTS = click.Choice(["graphml", "csv", "cypher"])


def neo4j_credentials() -> tuple[str, str]:
    """The Bolt user and password from NEO4J_USERNAME (default neo4j) and NEO4J_PASSWORD.

    An empty NEO4J_PASSWORD means a server without authentication (FalkorDB, or Neo4j with
    auth disabled); an unset one is refused, so a forgotten password is not taken for that.
    """
    password = os.environ.get("NEO4J_PASSWORD")
    if password is None:
        raise click.UsageError("set NEO4J_PASSWORD (and NEO4J_USERNAME, default 'neo4j') to use --neo4j; "
                               "NEO4J_PASSWORD='' for a server without authentication")
    return os.environ.get("NEO4J_USERNAME", "neo4j"), password


def _store_target(db: Path | None, neo4j_uri: str | None) -> str | Path | None:
    """The store a command was pointed at: --neo4j's address or --db's path (not both)."""
    if db is not None and neo4j_uri:
        raise click.UsageError("give --db or --neo4j, not both")
    return neo4j_uri or db


def open_cli_store(target: str | os.PathLike[str] | None, database: str | None = None) -> GraphStore:
    """`kgbuild.loaders.store.open_store` with the credentials of NEO4J_USERNAME and NEO4J_PASSWORD
    when `target` is a Bolt address (`neo4j_credentials`)."""
    from kgbuild.loaders.store import is_bolt_address, open_store

    user, password = neo4j_credentials() if is_bolt_address(target) else ("neo4j", "")
    return open_store(target, user=user, password=password, database=database)


def _read_graph(path: Path) -> tuple[KnowledgeGraph, Path]:
    file = graph_file(path)
    return load_graph(file), file


def _show_result(result: QueryResult, fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(result.as_dicts(), ensure_ascii=False, indent=1, default=str))
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(result.columns)
        writer.writerows([cell_text(v) for v in row] for row in result.rows)
        click.echo(buffer.getvalue(), nl=False)
    else:
        count = len(result.rows)
        table = Table(caption=f"{count} row{'' if count == 1 else 's'}", caption_justify="left")
        for column in result.columns:
            table.add_column(escape(column))
        for row in result.rows:
            table.add_row(*(escape(cell_text(v)) for v in row))
        stdout_console().print(table)


def _show_refused(refused: list[Refusal]) -> None:
    if refused:
        click.echo(f"Refused {len(refused)} items the schema does not admit (not stored):\n"
                   + refusal_summary(refused), err=True)


def _show_notes(counts: LoadCounts) -> None:
    for note in counts.notes:
        click.echo(f"note: {counts.store}: {note}", err=True)


def _list_examples() -> None:
    from kgbuild.loaders.examples import EXAMPLES

    for q in EXAMPLES:
        usage = "; ".join(p.usage() for p in q.parameters)
        click.echo(f"{q.name}: {q.description}" + (f"  [{usage}]" if usage else ""))


@click.command()
@click.argument("cypher", required=False)
@click.option("--db", type=click.Path(path_type=Path),
              help="The embedded store: a .lbdb file, a build folder holding graph.lbdb, or a graph.json "
              "(loaded into a store in the cache folder on first use) [default: ./graph.lbdb].")
@click.option("--movie", metavar="ID",
              help="Only this movie's nodes and relationships, in a store holding several (a corpus store, a "
              "Bolt server): every node pattern of the query gets {movie: ID}.")
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A query parameter; VALUE is read as JSON when it parses, else as a string.")
@click.option("--format", "fmt", type=_FORMATS, default="table", show_default=True)
@click.option("--write", is_flag=True, help="Allow the query to change the store (read-only otherwise).")
@click.option("--example", "example_name", metavar="NAME",
              help="Run a shipped example query (see --list-examples) instead of CYPHER.")
@click.option("--list-examples", is_flag=True, help="List the shipped example queries and exit.")
@click.option("--neo4j", "neo4j_uri", metavar="URI", callback=bolt_param,
              help="Query a Bolt server (Neo4j, FalkorDB) at bolt://HOST:7687 instead "
              "(NEO4J_USERNAME / NEO4J_PASSWORD, empty for no authentication).")
@click.option("--database", help="The Neo4j database [default: the server's default].")
def query(cypher: str | None, db: Path | None, movie: str | None, params: tuple[str, ...], fmt: str, write: bool,
          example_name: str | None, list_examples: bool, neo4j_uri: str | None,
          database: str | None) -> None:
    """Run a Cypher query on the graph store (embedded by default, read-only unless --write).

    An example's required parameters must be given; a character is found by its name or any
    alias, in any case, and a name no character has is an error listing the close ones.

    --db takes a graph.json as 'kgbuild load' does: it is loaded once into an embedded store in
    the cache folder ($KGBUILD_CACHE_DIR/stores, named by the file's content, so a changed file is
    loaded again) and queried there; a query that writes needs a store of its own (load it).
    --movie ID limits the query to one movie of a store holding several.
    """
    from kgbuild.loaders.dialect import neo4j_only_constructs, parse_param
    from kgbuild.loaders.examples import example, run_example
    from kgbuild.loaders.scope import Runner, movie_runner

    if list_examples:
        _list_examples()
        return
    if example_name and cypher:
        raise click.UsageError("give CYPHER or --example, not both")
    chosen = example(example_name) if example_name else None
    if chosen is None and not cypher:
        raise click.UsageError("give a CYPHER query, or --example NAME (see --list-examples)")
    values: dict[str, Any] = dict(parse_param(p) for p in params)
    if chosen is not None:
        values = chosen.values(values)  # refuses a missing required parameter before connecting

    with open_cli_store(_store_target(db, neo4j_uri), database) as store:
        run: Runner = partial(store.query, write=write)
        if movie is not None:
            run = movie_runner(run, movie)
        result = run_example(chosen, values, run) if chosen is not None else run(cypher or "", values)
        if store.kind == "embedded":
            for hint in neo4j_only_constructs(chosen.cypher if chosen is not None else cypher or ""):
                if hint.silent:
                    click.echo(f"note: {hint.message()}", err=True)
    _show_result(result, fmt)


@click.command()
@click.argument("graph_path", metavar="GRAPH", type=click.Path(exists=True, path_type=Path))
@click.option("--db", type=click.Path(path_type=Path),
              help="The embedded store to load into [default: graph.lbdb beside GRAPH].")
@click.option("--neo4j", "neo4j_uri", metavar="URI", callback=bolt_param,
              help="Load into a Bolt server (Neo4j, FalkorDB) at bolt://HOST:7687 instead "
              "(NEO4J_USERNAME / NEO4J_PASSWORD, empty for no authentication).")
@click.option("--database", help="The Neo4j database [default: the server's default].")
@click.option("--batch-size", type=click.IntRange(min=1), default=DEFAULT_BATCH_SIZE,
              show_default=True, help="Rows per statement (per transaction on Neo4j).")
@click.option("--replace", is_flag=True,
              help="Delete this movie's nodes and relationships first; other movies stay.")
@click.option("--movie", help="The movie name stored on every node [default: the graph's movie id].")
@click.option("--strict", is_flag=True, help="Load nothing if anything breaks the schema.")
@schema_option()
def load(graph_path: Path, db: Path | None, neo4j_uri: str | None, database: str | None,
         batch_size: int, replace: bool, movie: str | None, strict: bool, schema_file: Path | None) -> None:
    """Load GRAPH (graph.json, or a build folder) into the embedded store or a Bolt server.

    GRAPH may also be a corpus output (OUTDIR/<movie>/graph.json per movie): every movie is
    loaded into one store (OUTDIR/corpus.lbdb by default, or --db, or --neo4j), one movie at a
    time, each replacing its earlier load.
    """
    from kgbuild.folders import is_corpus_output

    if is_corpus_output(graph_path):
        if movie or schema_file:
            raise click.UsageError("--movie and --schema apply to one graph; a corpus's movies keep their ids and "
                                   "each folder's schema")
        _load_corpus(graph_path, db=db, neo4j_uri=neo4j_uri, database=database, batch_size=batch_size,
                     strict=strict)
        return
    from kgbuild.loaders.embedded import resolve_db_path

    target = _store_target(resolve_db_path(db) if db is not None else None, neo4j_uri)
    schema = schema_for_graph(graph_path, schema_file)
    graph, file = _read_graph(graph_path)
    if strict:
        from kgbuild.loaders.records import checked_rows

        checked_rows(graph, movie=movie, schema=schema, strict=True)  # refused before the store is opened
    with open_cli_store(target or BuildFolder(file.parent).store, database) as store:
        counts = store.load(graph, batch_size=batch_size, replace=replace, movie=movie, strict=strict, schema=schema)
    _show_refused(counts.refused)
    _show_notes(counts)
    click.echo(f"Loaded movie {counts.movie!r} into {counts.store}: {counts.nodes} nodes, "
               f"{counts.relations} relationships ({counts.seconds:.2f} s).")


def _load_corpus(outdir: Path, *, db: Path | None, neo4j_uri: str | None, database: str | None, batch_size: int,
                 strict: bool) -> None:
    from kgbuild.corpus.outputs import load_corpus

    def shown(counts: LoadCounts) -> None:
        _show_refused(counts.refused)
        _show_notes(counts)
        click.echo(f"Loaded movie {counts.movie!r}: {counts.nodes} nodes, {counts.relations} relationships "
                   f"({counts.seconds:.2f} s).")

    with open_cli_store(_store_target(db, neo4j_uri) or CorpusFolder(outdir).store, database) as store:
        loaded = load_corpus(outdir, store, batch_size=batch_size, strict=strict, on_movie=shown)
    click.echo(f"Loaded {len(loaded)} movies into {store.where}: {sum(c.nodes for c in loaded)} nodes, "
               f"{sum(c.relations for c in loaded)} relationships.")


@click.command()
@click.argument("graph_path", metavar="GRAPH", type=click.Path(exists=True, path_type=Path))
@click.option("--format", "formats", type=_EXPORTS, multiple=True, required=True,
              help="graphml, csv (for neo4j-admin import) or cypher (a replayable script); repeatable.")
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False, path_type=Path),
              required=True, help="The folder to write into.")
@click.option("--movie", help="The movie name stored on every node [default: the graph's movie id].")
@click.option("--database", default="neo4j", show_default=True,
              help="The database the neo4j-admin command imports into (csv).")
@schema_option()
def export(graph_path: Path, formats: tuple[str, ...], outdir: Path, movie: str | None,
           database: str, schema_file: Path | None) -> None:
    """Export GRAPH (graph.json, or a build folder) as GraphML, neo4j-admin CSV or a Cypher script."""
    from kgbuild.loaders.cypher_script import SCRIPT_FILE, export_cypher
    from kgbuild.loaders.graphml import export_graphml
    from kgbuild.loaders.neo4j_csv import IMPORT_COMMAND_FILE, export_neo4j_csv
    from kgbuild.paths import check_writable_dir

    check_writable_dir(outdir)
    schema = schema_for_graph(graph_path, schema_file)
    graph, _ = _read_graph(graph_path)
    written: list[Path] = []
    refused: list[Refusal] = []
    for fmt in dict.fromkeys(formats):
        if fmt == "graphml":
            written.append(export_graphml(graph, BuildFolder(outdir).graphml))
        elif fmt == "csv":
            files, refused = export_neo4j_csv(graph, outdir, movie=movie, database=database, schema=schema)
            written += files
        else:
            path, refused = export_cypher(graph, outdir / SCRIPT_FILE, movie=movie, schema=schema)
            written.append(path)
    _show_refused(refused)
    click.echo("Wrote " + ", ".join(str(p) for p in written))
    if "csv" in formats:
        click.echo(f"Bulk-load with the command in {outdir / IMPORT_COMMAND_FILE}")

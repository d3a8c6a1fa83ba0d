"""The `kgbuild` command line: the group, its commands, and the entry point.

One module per command group (`kgbuild.cli.build`, `score`, `store`, `llm`, `merge`, `audit`,
`view`, `diff`, `story`, `ask`, `parse`; `corpus` runs a corpus build), the options
several commands share in `kgbuild.cli.options`, the exit statuses in `kgbuild.cli.exits`.
A command's module is imported when the command runs (`kgbuild.cli.lazy`), so `kgbuild --help`
and `kgbuild COMMAND --help` stay quick. Only this package turns exceptions into messages and
exit codes.

Example:
    >>> from click.testing import CliRunner
    >>> CliRunner().invoke(cli, ["parse", "examples/lizard-people.fountain"]).exit_code  # doctest: +SKIP
    0
"""

from __future__ import annotations

import sys

import click

from kgbuild.cli.exits import EXIT_ABORTED, EXIT_ERROR
from kgbuild.cli.lazy import LazyCommand, LazyGroup
from kgbuild.errors import KgbuildError

#: Every command: where it is, and its one-line help as `kgbuild --help` lists it.
COMMANDS: dict[str, LazyCommand] = {
    "ask": LazyCommand("kgbuild.cli.ask:ask_command",
                       "Find what in the build OUTDIR bears on QUESTION: the entities it names, the scenes that "
                       "hold the answer (with the lines that matched) and the graph's facts with their evidence."),
    "audit": LazyCommand("kgbuild.cli.audit:audit", "Audit whether the scenes GRAPH's facts cite support them "
                         "(GRAPH: graph.json or a build folder)."),
    "baseline": LazyCommand("kgbuild.cli.score:baseline",
                            "Build the trivial baseline graph (cues as Characters, heading places as Locations)."),
    "build": LazyCommand("kgbuild.cli.build:build",
                         "Build the story graph of SCRIPT into OUTDIR: offline by default, with an LLM if given one."),
    "chunk": LazyCommand("kgbuild.cli.parse:chunk",
                         "Cut SCRIPT into scene-aligned chunks, as the extraction stages see it."),
    "diff": LazyCommand("kgbuild.cli.diff:diff",
                        "Show the facts two graphs disagree on: OLD and NEW are graph.json files or build folders."),
    "dossier": LazyCommand("kgbuild.cli.story:dossier_command",
                           "The dossier of CHARACTER in the build OUTDIR: names, life stages, scenes, lines "
                           "(verbatim, with scene ids), actions in story order, relations with evidence, places "
                           "and objects."),
    "export": LazyCommand("kgbuild.cli.store:export", "Export GRAPH (graph.json, or a build folder) as GraphML, "
                          "neo4j-admin CSV or a Cypher script."),
    "knows": LazyCommand("kgbuild.cli.story:knows_command", "What CHARACTER can know at scene N of the graph in "
                         "OUTDIR (a build folder or a graph.json)."),
    "llm": LazyCommand("kgbuild.cli.llm:llm", "The LLM response cache and OpenAI Batch API round trips."),
    "load": LazyCommand("kgbuild.cli.store:load",
                        "Load GRAPH (graph.json, or a build folder) into the embedded store or a Bolt server."),
    "merge": LazyCommand("kgbuild.cli.merge:merge", "Merge the entities of GRAPH (a graph.json or a build "
                         "folder): normalize, embed, cluster, adjudicate (offline rules, or the LLM of "
                         "--llm-model), then rewrite entities and relation endpoints."),
    "parse": LazyCommand("kgbuild.cli.parse:parse",
                         "Parse SCRIPT (Fountain, FDX, PDF, plain text, STAGE script.json) and summarize it."),
    "qa-eval": LazyCommand("kgbuild.cli.ask:qa_eval_command", "Retrieval on STAGE-QA questions: where kgbuild's "
                           "retrieval and the baselines rank each question's gold scene, as hit@1/5/10 and MRR "
                           "per language and qa_type."),
    "query": LazyCommand("kgbuild.cli.store:query",
                         "Run a Cypher query on the graph store (embedded by default, read-only unless --write)."),
    "score": LazyCommand("kgbuild.cli.score:score",
                         "Score predicted graph(s) PRED against STAGE reference(s) REF with STAGE-KG P/R/F1."),
    "view": LazyCommand("kgbuild.cli.view:view", "Write the story view of OUTDIR: one self-contained HTML page "
                        "that opens from disk, offline."),
}


@click.group(cls=LazyGroup, lazy=COMMANDS)
@click.version_option(package_name="kgbuild")
def cli() -> None:
    """kgbuild: movie screenplays to knowledge graphs."""


def main() -> None:
    """Entry point: run the CLI, turning kgbuild errors into a message and exit code 2."""
    from kgbuild.journal import settle_named

    try:
        settle_named(sys.argv[1:])  # a folder a build crashed in: its old build back before anything reads it
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(EXIT_ABORTED)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except KgbuildError as e:
        click.echo(f"kgbuild: error: {e}", err=True)
        sys.exit(EXIT_ERROR)

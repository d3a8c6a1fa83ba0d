"""`kgbuild ask` (a question answered from a build's graph and script: the ranked evidence, with an
LLM an answer citing it, or one read-only Cypher query) and `kgbuild qa-eval` (STAGE-QA retrieval
against baselines, and answers judged against the gold ones)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.table import Table

from kgbuild.cli.console import stdout_console
from kgbuild.cli.exits import EXIT_BATCH_PENDING
from kgbuild.cli.options import MODEL_ENV, LLMFlags, llm_options
from kgbuild.errors import InputError
from kgbuild.folders import BuildFolder


@click.command("ask")
@click.argument("outdir", type=click.Path(exists=True, path_type=Path))
@click.argument("question")
@click.option("--scene", "as_of", type=click.IntRange(min=1),
              help="Look only at scenes 1..N (what the story has shown by scene N).")
@click.option("--k", type=click.IntRange(min=1), default=5, show_default=True, help="Scenes returned.")
@click.option("--facts", type=click.IntRange(min=0), default=10, show_default=True, help="Facts returned at most.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--cypher", "as_cypher", is_flag=True,
              help="Instead: turn QUESTION into one read-only Cypher query with the LLM, check it against the "
              "store (retried once with the problem), run it and show its rows.")
@click.option("--db", help="The store --cypher reads: a .lbdb file, a build folder, or a Bolt server at "
              "bolt://HOST:PORT (Neo4j, FalkorDB; NEO4J_USERNAME / NEO4J_PASSWORD, empty for none) "
              "[default: OUTDIR/graph.lbdb].")
@click.option("--database", help="The Neo4j database of --db [default: the server's default].")
@llm_options(model_help="Answer with this LLM, from the retrieved evidence only, citing scenes and quoting lines "
             f"(any OpenAI-compatible endpoint; key from $OPENAI_API_KEY) [env {MODEL_ENV}; default: none, the "
             "ranked evidence only].")
def ask_command(outdir: Path, question: str, as_of: int | None, k: int, facts: int, fmt: str, as_cypher: bool,
                db: str | None, database: str | None, llm: LLMFlags) -> None:
    """Find what in the build OUTDIR bears on QUESTION: the entities it names, the scenes that hold
    the answer (with the lines that matched) and the graph's facts with their evidence.

    Scenes are ranked by the question's words (BM25), their meaning (MiniLM, English scripts) and
    the graph (the named entities grounded in each scene). Without --llm-model nothing is sent
    anywhere. With it, the LLM writes a short answer from that evidence only, citing scenes and
    quoting lines ("the script does not say" when the evidence does not hold it); citations to
    scenes not retrieved, or quotes not in the cited lines, are dropped and shown as such.

    With --cypher the LLM writes one Cypher query instead, from the question and the schema the
    store holds; a query that would write is refused before it reaches the store.

    Exit status: 0 done; 2 bad input, the LLM refusing, or no query could run; 3 batch-export mode
    wrote the request.
    """
    from kgbuild.ask import AskSession
    from kgbuild.ask.render import cypher_lines, result_lines
    from kgbuild.ask.types import CypherAnswer
    from kgbuild.llm.types import BatchPendingError

    settings = llm.settings()
    if as_cypher and settings is None:
        raise click.UsageError(f"--cypher needs an LLM: add --llm-model (or set {MODEL_ENV})")
    if not as_cypher and (db or database):
        raise click.UsageError("--db and --database are for --cypher")
    if as_cypher and as_of is not None:
        raise click.UsageError("--scene bounds the evidence of an answer; a --cypher query reads the whole graph")
    auth = None
    from kgbuild.loaders.store import is_bolt_address

    if is_bolt_address(db):
        from kgbuild.cli.store import neo4j_credentials

        auth = neo4j_credentials()
    with AskSession(outdir, llm=settings, db=db, db_auth=auth, database=database) as session:
        if as_of is not None and as_of > session.index.scene_count:
            raise InputError(f"--scene {as_of}: the script has {session.index.scene_count} scenes")
        try:
            found = session.cypher(question) if as_cypher else session.ask(question, as_of=as_of, k=k, facts=facts)
        except BatchPendingError as e:
            click.echo(f"kgbuild: {e}", err=True)
            sys.exit(EXIT_BATCH_PENDING)
    if fmt == "json":
        click.echo(found.model_dump_json(indent=1))
    else:
        console = stdout_console()
        for line in cypher_lines(found) if isinstance(found, CypherAnswer) else result_lines(found):
            console.print(line, markup=False)
    if isinstance(found, CypherAnswer) and found.error is not None:
        from kgbuild.ask.cypher import CypherError

        raise CypherError(found.error)


@click.command("qa-eval")
@click.argument("build", type=click.Path(exists=True, path_type=Path))
@click.argument("questions", type=click.Path(exists=True, path_type=Path))
@click.option("--corpus", is_flag=True,
              help="BUILD is a corpus output (BUILD/<movie id>/) and QUESTIONS a STAGE folder "
              "(QUESTIONS/<movie id>/question_pairs.csv and script.json).")
@click.option("--script", "script", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The script.json the build was made from [default: the build's own source].")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every question's ranks and the tables as JSON.")
@click.option("--answers", is_flag=True,
              help="Also answer every question with --llm-model from ask's evidence (--k scenes) and have a "
              "judge tell right from wrong against the gold answer: accuracy per qa_type, retrieval and reading "
              "misses.")
@click.option("--k", type=click.IntRange(min=1), default=5, show_default=True,
              help="Scenes retrieved for each answer.")
@click.option("--judge-model", help="The judge's model [default: --llm-model].")
@llm_options()
def qa_eval_command(build: Path, questions: Path, corpus: bool, script: Path | None, json_out: Path | None,
                    answers: bool, k: int, judge_model: str | None, llm: LLMFlags) -> None:
    """Retrieval on STAGE-QA questions: where kgbuild's retrieval and the baselines rank each question's
    gold scene, as hit@1/5/10 and MRR per language and qa_type.

    With --answers, also answers: each question answered by the LLM from the evidence `kgbuild ask`
    retrieves, judged right or wrong against the gold answer (evaluation/qa_judge.md); an answer citing
    a scene that was not retrieved is wrong. Batch mode (--llm-batch-export) takes two rounds: the
    answers, then the judge's requests (exit status 3 after each export; import, then rerun).
    """
    import json

    from kgbuild.ask import StoryIndex
    from kgbuild.evaluation.qa_eval import METHODS, evaluate_movie, read_questions, script_titles, tables

    settings = llm.settings()
    if answers and settings is None:
        raise click.UsageError(f"--answers needs an LLM: add --llm-model (or set {MODEL_ENV})")
    if (settings is not None or judge_model) and not answers:
        raise click.UsageError("--llm-model and --judge-model are for --answers")

    pairs: list[tuple[str, Path, Path, Path]] = []
    if corpus:
        for csv_path in sorted(questions.glob("*/question_pairs.csv")):
            movie = csv_path.parent.name
            if BuildFolder(build / movie).has_graph():
                pairs.append((movie, build / movie, csv_path, csv_path.parent / "script.json"))
        if not pairs:
            raise InputError("no movie has both a build (BUILD/<id>/graph.json) and questions "
                             "(QUESTIONS/<id>/question_pairs.csv)", path=str(build))
    else:
        index_source = script
        if index_source is None:
            from kgbuild.readers import load_screenplay

            source = Path(load_screenplay(BuildFolder(build).screenplay).source.path)
            if source.name != "script.json" or not source.is_file():
                raise InputError("the build's source is no STAGE script.json here; name it with --script",
                                 path=str(build))
            index_source = source
        pairs.append((build.name, build, questions, index_source))
    rows = []
    prepared = []
    for movie, folder, csv_path, script_path in pairs:
        click.echo(f"{movie}: indexing and ranking ...", err=True)
        index, items, titles = StoryIndex.open(folder), read_questions(csv_path), script_titles(script_path)
        rows += evaluate_movie(index, items, titles=titles, movie=movie)
        if answers:
            from kgbuild.evaluation.qa_answers import prepare_movie

            prepared += prepare_movie(index, items, titles=titles, movie=movie, k=k)
    result = tables(rows)
    answered = []
    title = ""
    if settings is not None:
        title = f"Answers ({settings.model}, judged by {judge_model or settings.model})"
        from kgbuild.evaluation.qa_answers import answer_and_judge
        from kgbuild.llm.types import BatchPendingError

        click.echo(f"answering {len(prepared)} questions with {settings.model} ...", err=True)
        try:
            answered = answer_and_judge(prepared, settings, judge_model=judge_model)
        except BatchPendingError as e:
            click.echo(f"kgbuild: {e}", err=True)
            sys.exit(EXIT_BATCH_PENDING)
    console = stdout_console()
    for group, methods in result.items():
        table = Table(title=group, title_justify="left")
        for col in ("method", "questions", "hit@1", "hit@5", "hit@10", "MRR"):
            table.add_column(col, justify="left" if col == "method" else "right")
        for method in METHODS:
            t = methods.get(method)
            if t is not None:
                table.add_row(method, str(t.questions), f"{t.hit1:.3f}", f"{t.hit5:.3f}", f"{t.hit10:.3f}",
                              f"{t.mrr:.3f}")
        console.print(table)
    if answered:
        from kgbuild.evaluation.qa_answers import answer_tables

        answer_result = answer_tables(answered)
        table = Table(title=title, title_justify="left")
        for col in ("group", "questions", "right", "wrong", "accuracy", "retrieval miss", "reading miss",
                    "cited unretrieved", "unresolved"):
            table.add_column(col, justify="left" if col == "group" else "right")
        for group, a in answer_result.items():
            table.add_row(group, str(a.questions), str(a.right), str(a.wrong),
                          "–" if a.accuracy is None else f"{a.accuracy:.3f}", str(a.retrieval_misses),
                          str(a.reading_misses), str(a.cited_unretrieved), str(a.unresolved))
        console.print(table)
    if json_out is not None:
        from kgbuild.atomic import write_text_atomic

        data = {"tables": {g: {m: t.model_dump() for m, t in ms.items()} for g, ms in result.items()},
                "questions": [r.model_dump() for r in rows]}
        if answered:
            data["answers"] = {"tables": {g: t.model_dump() for g, t in answer_result.items()},
                               "questions": [r.model_dump() for r in answered]}
        write_text_atomic(json_out, json.dumps(data, ensure_ascii=False, indent=1))

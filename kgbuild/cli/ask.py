"""`kgbuild ask` (a question answered from a build's graph and script) and `kgbuild qa-eval`
(STAGE-QA retrieval against baselines)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from kgbuild.cli.console import stdout_console
from kgbuild.errors import InputError


@click.command("ask")
@click.argument("outdir", type=click.Path(exists=True, path_type=Path))
@click.argument("question")
@click.option("--scene", "as_of", type=click.IntRange(min=1),
              help="Look only at scenes 1..N (what the story has shown by scene N).")
@click.option("--k", type=click.IntRange(min=1), default=5, show_default=True, help="Scenes returned.")
@click.option("--facts", type=click.IntRange(min=0), default=10, show_default=True, help="Facts returned at most.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def ask_command(outdir: Path, question: str, as_of: int | None, k: int, facts: int, fmt: str) -> None:
    """Find what in the build OUTDIR bears on QUESTION: the entities it names, the scenes that hold
    the answer (with the lines that matched) and the graph's facts with their evidence.

    Scenes are ranked by the question's words (BM25), their meaning (MiniLM, English scripts) and
    the graph (the named entities grounded in each scene). Nothing is sent anywhere.
    """
    from kgbuild.ask import AskSession

    session = AskSession(outdir)
    if as_of is not None and as_of > session.index.scene_count:
        raise InputError(f"--scene {as_of}: the script has {session.index.scene_count} scenes")
    result = session.ask(question, as_of=as_of, k=k, facts=facts)
    if fmt == "json":
        click.echo(result.model_dump_json(indent=1))
        return
    console = stdout_console()
    bound = f" (scenes 1-{as_of})" if as_of else ""
    names = ", ".join(f"{e.name} ({e.type})" for e in result.entities) or "none"
    console.print(f"Question{bound}: {result.question}", markup=False)
    console.print(f"Named in the graph: {names}", markup=False)
    for rank, scene in enumerate(result.scenes, start=1):
        console.print(f"\n{rank}. Scene {scene.scene}: {scene.heading}  (score {scene.score:.2f})", markup=False)
        for line in scene.lines:
            who = f"{line.speaker}: " if line.speaker else ""
            console.print(f"   line {line.lines[0]}: {who}{line.text}", markup=False)
    if result.facts:
        console.print("\nFacts:")
        for fact in result.facts:
            ev = fact.evidence[0]
            where = f"scene {ev.scene}" + (f", line {ev.lines[0]}" if ev.lines else "")
            console.print(f"  {fact.statement}  [{where}: \"{ev.quote}\"]", markup=False)


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
def qa_eval_command(build: Path, questions: Path, corpus: bool, script: Path | None, json_out: Path | None) -> None:
    """Retrieval on STAGE-QA questions: where kgbuild's retrieval and the baselines rank each question's
    gold scene, as hit@1/5/10 and MRR per language and qa_type."""
    import json

    from kgbuild.ask import StoryIndex
    from kgbuild.evaluation.qa_eval import METHODS, evaluate_movie, read_questions, script_titles, tables

    pairs: list[tuple[str, Path, Path, Path]] = []
    if corpus:
        for csv_path in sorted(questions.glob("*/question_pairs.csv")):
            movie = csv_path.parent.name
            if (build / movie / "graph.json").is_file():
                pairs.append((movie, build / movie, csv_path, csv_path.parent / "script.json"))
        if not pairs:
            raise InputError("no movie has both a build (BUILD/<id>/graph.json) and questions "
                             "(QUESTIONS/<id>/question_pairs.csv)", path=str(build))
    else:
        index_source = script
        if index_source is None:
            from kgbuild.readers import load_screenplay

            source = Path(load_screenplay(build / "screenplay.json").source.path)
            if source.name != "script.json" or not source.is_file():
                raise InputError("the build's source is no STAGE script.json here; name it with --script",
                                 path=str(build))
            index_source = source
        pairs.append((build.name, build, questions, index_source))
    rows = []
    for movie, folder, csv_path, script_path in pairs:
        click.echo(f"{movie}: indexing and ranking ...", err=True)
        rows += evaluate_movie(StoryIndex.open(folder), read_questions(csv_path), titles=script_titles(script_path),
                               movie=movie)
    result = tables(rows)
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
    if json_out is not None:
        from kgbuild.atomic import write_text_atomic

        write_text_atomic(json_out, json.dumps({"tables": {g: {m: t.model_dump() for m, t in ms.items()}
                                                           for g, ms in result.items()},
                                                "questions": [r.model_dump() for r in rows]},
                                               ensure_ascii=False, indent=1))

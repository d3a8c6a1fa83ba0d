"""`kgbuild view OUTDIR`: the story view of a build, or of every movie of a corpus, as HTML pages."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kgbuild.cli.exits import EXIT_ERROR
from kgbuild.folders import BuildFolder, CorpusFolder
from kgbuild.paths import check_writable_file

#: Exit status when some movies of a corpus got no page (the others did).
EXIT_SOME_FAILED = EXIT_ERROR


def _size(count: int) -> str:
    return f"{count / 1_000_000:.1f} MB" if count >= 100_000 else f"{count / 1000:.0f} kB"


@click.command()
@click.argument("outdir", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help=f"The page to write [default: {BuildFolder.VIEW} beside graph.json; for a corpus, the index "
              f"page, default OUTDIR/{CorpusFolder.VIEW_INDEX}].")
def view(outdir: Path, output: Path | None) -> None:
    """Write the story view of OUTDIR: one self-contained HTML page that opens from disk, offline.

    OUTDIR is a build folder (or a graph.json): the page shows its entities coloured by type and
    sized by their relations (characters by their speeches, from screenplay.json), relations
    styled by type with type filters, a scene slider that shows the graph as known at scene N
    and plays through the story, a search over names and aliases, and, on a click, an entity's
    or a relation's description, scenes and evidence quotes with their scene headings.

    OUTDIR may also be a corpus, a folder whose subfolders each hold a graph.json: every movie
    gets its page (OUTDIR/MOVIE/view.html) and OUTDIR/index.html links them, with counts and each
    movie's top characters.

    Exit status: 0 written; 2 bad input or an unwritable place (for a corpus: some movies could
    not be read; the others were written and the index lists them).
    """
    from kgbuild.view import is_corpus, write_corpus_views, write_view

    if output is not None:
        check_writable_file(output)
    if not is_corpus(outdir):
        if outdir.is_dir() and output is None:
            check_writable_file(BuildFolder(outdir).view)
        page = write_view(outdir, output)
        click.echo(f"Wrote {page.path} ({_size(page.bytes)}; {page.entities} entities, {page.relations} relations"
                   + ("" if page.with_screenplay else "; no screenplay.json beside graph.json: no scene headings, "
                      "characters sized by their relations") + "). Open it in a browser; it needs no network.")
        return
    check_writable_file(output or CorpusFolder(outdir).view_index)
    pages = write_corpus_views(outdir, output)
    total = sum(p.bytes for p in pages.pages)
    click.echo(f"Wrote {len(pages.pages)} movie pages ({_size(total)} in all) and the index {pages.index}.")
    for failed in pages.failed:
        click.echo(f"kgbuild: error: no page for {failed.folder}: {failed.reason}", err=True)
    if pages.failed:
        sys.exit(EXIT_SOME_FAILED)

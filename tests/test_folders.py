"""`kgbuild.folders`: the folders kgbuild writes, and the one place their files are named."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kgbuild.folders import AuditFolder, BuildFolder, CorpusFolder, graph_folder
from tests.conftest import REPO

#: The product's modules: the package and the subpackages it maps in (pyproject package-dir).
PACKAGES = ("kgbuild", "schema", "canonicalize", "loaders", "evaluation")
#: Left out: the folders module itself. (The benchmarks and studies in bench/ are no part of the
#: package.)
LEFT_OUT = {"kgbuild/folders.py"}
#: Strings that are one of these names and yet no file of these folders (module, name).
NOT_OURS = {("kgbuild/view/page.py", "index.html")}  # the package's page template


def _names(*folders: type) -> set[str]:
    names: set[str] = set()
    for folder in folders:
        for key, value in vars(folder).items():
            if key.isupper() and isinstance(value, str):
                names.add(value)
            elif key.isupper() and isinstance(value, dict):
                names.update(value.values())
    return names


#: Folders inside a build (`BuildFolder.AUDIT`, `.DOSSIERS`): words too common to look for alone,
#: so only a path built with them (`folder / "audit"`) counts.
SUBFOLDERS = {BuildFolder.AUDIT, BuildFolder.DOSSIERS}
FILES = _names(BuildFolder, CorpusFolder, AuditFolder) - SUBFOLDERS


def _modules() -> list[Path]:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative not in LEFT_OUT:
                found.append(path)
    return found


def _spelled(path: Path) -> list[str]:
    """Where a module names one of the folders' files: a string without spaces (a path, a glob, a
    piece of an f-string) whose last part is the name, or a subfolder's name after `/`.
    Docstrings, help texts and messages that mention a file in a sentence do not count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    relative = path.relative_to(REPO).as_posix()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant) \
                and node.right.value in SUBFOLDERS:
            found.append(f"{relative}:{node.lineno}: / {node.right.value!r}")
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
            continue
        text = node.value.strip()
        name = text.rsplit("/", 1)[-1]
        if text and not any(ch.isspace() for ch in text) and name in FILES and (relative, name) not in NOT_OURS:
            found.append(f"{relative}:{node.lineno}: {node.value!r}")
    return found


def test_no_module_but_the_folders_one_names_their_files():
    spelled = [where for path in _modules() for where in _spelled(path)]
    assert spelled == [], "name these files through kgbuild.folders:\n" + "\n".join(spelled)


def test_the_check_finds_a_path_a_glob_and_an_f_string(tmp_path, monkeypatch):
    module = tmp_path / "kgbuild" / "spelled.py"
    module.parent.mkdir()
    module.write_text('"""Writes graph.json."""\n'
                      'def f(folder, movie):\n'
                      '    """Reads screenplay.json."""\n'
                      '    print("a sentence naming review.jsonl is no path")\n'
                      '    return (folder / "graph.json", folder.glob("*/screenplay.json"),\n'
                      '            f"{folder}/{movie}/report.md", folder / "audit")\n', encoding="utf-8")
    monkeypatch.setattr("tests.test_folders.REPO", tmp_path)
    assert sorted(line.split(": ", 1)[1] for line in _spelled(module)) == sorted([
        "'graph.json'", "'*/screenplay.json'", "'/report.md'", "/ 'audit'"])


def test_a_build_folder_names_its_files():
    folder = BuildFolder("out/fargo")
    assert folder == BuildFolder(Path("out/fargo")) and folder.path == Path("out/fargo")
    assert [p.name for p in (folder.graph, folder.screenplay, folder.report, folder.graphml, folder.view,
                             folder.store, folder.merge_log, folder.review, folder.schema)] == [
        "graph.json", "screenplay.json", "report.md", "graph.graphml", "view.html", "graph.lbdb",
        "merge_log.jsonl", "review.jsonl", "schema.json"]
    assert BuildFolder.BUILD_FILES[-2:] == (BuildFolder.STORE, BuildFolder.GRAPH)  # the store, then graph.json last
    assert folder.audit == AuditFolder("out/fargo/audit") and folder.audit.sheet == Path("out/fargo/audit/sheet.md")
    assert folder.dossiers == Path("out/fargo/dossiers")


def test_build_and_graph_folders(tmp_path):
    folder = BuildFolder(tmp_path)
    assert not folder.has_graph() and not folder.is_build()
    folder.graph.write_text("{}")
    assert folder.has_graph() and not folder.is_build()
    folder.screenplay.write_text("{}")
    assert folder.is_build()
    assert graph_folder(folder.graph) == folder == graph_folder(tmp_path)


@pytest.mark.parametrize("hidden", [".kgbuild-staging", ".other"])
def test_a_corpus_folder_lists_its_movies(tmp_path, hidden):
    corpus = CorpusFolder(tmp_path)
    for movie in ("b-movie", "a-movie", hidden):
        corpus.movie(movie).path.mkdir()
        corpus.movie(movie).graph.write_text("{}")
    (tmp_path / "no-graph").mkdir()
    assert corpus.movies() == [corpus.movie("a-movie"), corpus.movie("b-movie")]
    assert corpus.status.name == "corpus.jsonl" and corpus.store.name == "corpus.lbdb"
    assert set(CorpusFolder.RESERVED) >= {"corpus.jsonl", "report.md", "index.html", "corpus.lbdb"}

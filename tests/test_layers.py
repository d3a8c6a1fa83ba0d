"""The import contracts of pyproject.toml ([tool.importlinter]) hold, and a broken one fails.

`scripts/lint-imports` runs import-linter on the installed layout (a tree of symbolic links,
schema/ as kgbuild/schema and so on); docs/development.md shows the layers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
#: The folders setuptools installs as subpackages of kgbuild (package-dir in pyproject.toml).
PACKAGE_DIRS = ("schema", "canonicalize", "loaders", "evaluation")


def _lint(cwd: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd), "LINT_IMPORTS": str(LINT_IMPORTS)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_every_contract_is_kept():
    done = _lint(REPO, str(REPO / "scripts" / "lint-imports"))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Imports only look down (the layers) KEPT" in done.stdout
    assert " 0 broken." in done.stdout


def _tree_with_a_copied_llm_package(root: Path) -> Path:
    """The installed layout, as scripts/lint-imports makes it, but kgbuild/llm a copy one can add to."""
    package = root / "kgbuild"
    package.mkdir(parents=True)
    for entry in (REPO / "kgbuild").iterdir():
        if entry.name != "llm":
            (package / entry.name).symlink_to(entry)
    shutil.copytree(REPO / "kgbuild" / "llm", package / "llm", ignore=shutil.ignore_patterns("__pycache__"))
    for name in PACKAGE_DIRS:
        (package / name).symlink_to(REPO / name)
    for name in ("bench", "tests"):
        (root / name).symlink_to(REPO / name)
    return package


def test_an_upward_import_and_an_unplaced_module_break_the_layers(tmp_path):
    package = _tree_with_a_copied_llm_package(tmp_path)
    (package / "llm" / "upward.py").write_text("from kgbuild.pipeline import BuildOptions\n", encoding="utf-8")
    (package / "unplaced.py").write_text('"""In no layer."""\n', encoding="utf-8")

    done = _lint(tmp_path, str(LINT_IMPORTS), "--no-cache", "--no-logo", str(REPO / "pyproject.toml"))

    assert done.returncode == 1, done.stdout + done.stderr
    assert "Imports only look down (the layers) BROKEN" in done.stdout
    assert "kgbuild.llm is not allowed to import kgbuild.pipeline" in done.stdout
    assert "kgbuild.llm.upward -> kgbuild.pipeline" in done.stdout
    assert "kgbuild.unplaced" in done.stdout  # exhaustive: every module of kgbuild has a layer

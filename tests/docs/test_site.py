"""The docs site builds offline with `mkdocs build --strict`, and the README stays a short front
page whose links all land."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import DOCS, REPO

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor as mkdocs makes it (Python-Markdown's toc slugify, unicode kept)."""
    from markdown.extensions.toc import slugify_unicode

    text = re.sub(r"[`*_]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading))
    return slugify_unicode(text, "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", text, flags=re.M)}


@pytest.mark.slow
def test_the_site_builds_strict_and_offline(tmp_path):
    pytest.importorskip("mkdocs", reason="the dev extra (mkdocs, mkdocs-material, mkdocstrings) is not installed")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in home and "fonts.gstatic.com" not in home
    assert (site / "assets" / "story-view.png").is_file()
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("kgbuild.build", "kgbuild.load_graph", "kgbuild.score", "kgbuild.ask.AskSession",
                 "kgbuild.model.KnowledgeGraph"):
        assert f'id="{name}"' in api, name  # mkdocstrings rendered it from the docstrings
    assert "Build the story graph of a screenplay" in api


def test_the_readme_is_a_short_front_page():
    lines = (REPO / "README.md").read_text(encoding="utf-8").split("\n")
    assert len(lines) <= 250
    assert max(len(line) for line in lines if not line.startswith(("![", "kgbuild ", "<!--"))) <= 120


def test_every_relative_link_of_the_readme_and_the_docs_lands():
    for page in [REPO / "README.md", *DOCS.rglob("*.md")]:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in _LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.is_file(), f"{page.relative_to(REPO)}: {target}"
            assert dest.is_relative_to(REPO), f"{page.relative_to(REPO)} links outside the repository: {target}"
            if page.parent == REPO:  # the README: GitHub renders it, so its links must land on files in docs/
                assert dest == REPO / "README.md" or dest.is_relative_to(DOCS), target
            if anchor and dest.suffix == ".md":
                assert anchor in _anchors(dest), f"{page.relative_to(REPO)}: no heading for {target}"

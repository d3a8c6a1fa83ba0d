"""The prompt files of the LLM requests: loading, versions, and rendering into chat messages.

Each kind of request (extraction, reflection, normalization, adjudication, persona) has one
Markdown file in `kgbuild/llm/prompts/`: a front matter with its `name` and `version`, then
`## system`, `## user` and optional further sections holding `string.Template` text (`$name`
placeholders). The rendered system message starts with the prompt's name and
version, so the response cache (keyed by the full request) never answers a new prompt version
with an old reply, even when only the code that fills the placeholders changed.

The schema parts of a prompt (entity types, relation types and their admissible pairs) are
rendered from the schema by the task that sends it (`kgbuild.extraction.llm.schema_text`),
never written into the prompt files.

Example:
    >>> prompt = load_prompt("extract")
    >>> prompt.version
    1
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from string import Template

from pydantic import BaseModel, ConfigDict

from kgbuild.errors import KgbuildError

_FRONT = re.compile(r"\A---\n(?P<meta>.*?)\n---\n", re.DOTALL)
_SECTION = re.compile(r"^## (\w+)\n", re.MULTILINE)


class PromptError(KgbuildError):
    """A prompt file is missing or malformed (a packaging bug: reinstall kgbuild)."""


class Prompt(BaseModel):
    """One kind of request's prompt: its identity and its template sections."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: int
    sections: dict[str, str]

    @property
    def tag(self) -> str:
        """'extract v1': the identity that goes into every request (and so the cache key)."""
        return f"{self.name} v{self.version}"

    def render(self, section: str, **values: object) -> str:
        """Fill one section's `$placeholders`; the system section is prefixed with the tag.

        Raises:
            PromptError: no such section, or a placeholder without a value.
        """
        if section not in self.sections:
            raise PromptError(f"prompt {self.tag} has no '## {section}' section")
        try:
            text = Template(self.sections[section]).substitute({k: str(v) for k, v in values.items()})
        except (KeyError, ValueError) as e:
            raise PromptError(f"prompt {self.tag}, section {section}: no value for {e}") from e
        return f"[kgbuild prompt {self.tag}]\n{text}" if section == "system" else text


def parse_prompt(text: str, *, source: str = "<prompt>") -> Prompt:
    """Parse a prompt file's text.

    Raises:
        PromptError: no front matter with name and version, or no system/user section.
    """
    front = _FRONT.match(text)
    if front is None:
        raise PromptError(f"{source}: missing '---' front matter with name and version")
    meta = dict(line.split(":", 1) for line in front["meta"].splitlines() if ":" in line)
    meta = {k.strip(): v.strip() for k, v in meta.items()}
    if "name" not in meta or not meta.get("version", "").isdigit():
        raise PromptError(f"{source}: front matter needs 'name' and an integer 'version'")
    body = text[front.end():]
    parts = _SECTION.split(body)
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    if not {"system", "user"} <= sections.keys():
        raise PromptError(f"{source}: needs '## system' and '## user' sections")
    return Prompt(name=meta["name"], version=int(meta["version"]), sections=sections)


@cache
def load_prompt(name: str) -> Prompt:
    """Load `kgbuild/llm/prompts/<name>.md` from the installed package.

    Raises:
        PromptError: the file is missing or malformed.
    """
    resource = resources.files("kgbuild.llm").joinpath("prompts", f"{name}.md")
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise PromptError(f"no prompt file prompts/{name}.md in the kgbuild package; reinstall kgbuild") from e
    return parse_prompt(text, source=f"prompts/{name}.md")


def short_description(text: str) -> str:
    """A schema description up to its first ': ' or ' (' (the gist, without examples or notes)."""
    cut = min((i for i in (text.find(": "), text.find(" (")) if i > 0), default=len(text))
    return text[:cut].rstrip(".") + "."

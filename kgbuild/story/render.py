"""A dossier as Markdown: every item with its scene ids and a short quote.

Example:
    >>> print(dossier_markdown(dossier))  # doctest: +SKIP
    # Marge Gunderson
    ...
"""

from __future__ import annotations

from kgbuild.model import Evidence
from kgbuild.story.dossier import Dossier, Item

_QUOTE = 140


def _quote(ev: Evidence) -> str:
    text = " ".join(ev.quote.split())
    text = text if len(text) <= _QUOTE else text[: _QUOTE - 1] + "…"
    return f'scene {ev.scene}: "{text}"'


def _scenes(scenes: list[int]) -> str:
    return ", ".join(map(str, scenes)) if scenes else "–"


def _item(i: Item) -> str:
    arrow = {"out": "→ ", "in": "← "}.get(i.direction, "")
    note = f" ({i.note})" if i.note else ""
    evidence = "; ".join(_quote(e) for e in i.evidence[:2])
    return f"- **{i.kind}** {arrow}{i.other} [{i.other_type}]{note}, scenes {_scenes(i.scenes)}" + (
        f" — {evidence}" if evidence else "")


def dossier_markdown(d: Dossier) -> str:
    """The dossier as a Markdown document."""
    out = [f"# {d.name}", ""]
    if d.aliases:
        out.append(f"Also called: {', '.join(d.aliases)}.")
    if d.cue_names:
        out.append(f"Speaks as: {', '.join(d.cue_names)}.")
    if d.description:
        out.append(f"Introduced: {d.description}")
    out += ["", f"Movie `{d.movie}`, entity `{d.id}`, degree {d.degree}. First scene {d.first_scene}, last scene "
            f"{d.last_scene}; in {d.scene_count} scenes ({_scenes(d.in_scenes)}); only mentioned in "
            f"{_scenes(d.mentioned_in)}.", ""]
    if d.persona:
        out += ["## Persona", "", d.persona, "", f"(written by {d.persona_model} from the items below)", ""]
    if d.life_stages:
        out += ["## Life stages", "", *map(_item, d.life_stages), ""]
    shown = "all" if len(d.lines) == d.lines_total else f"the {len(d.lines)} most characteristic"
    out += [f"## Lines ({shown} of {d.lines_total})", ""]
    out += [f"- scene {line.scene}, lines {line.lines[0]}-{line.lines[1]}, {line.cue} ({line.heard}): "
            f"{' '.join(line.text.split())}" for line in d.lines]
    for title, items in (("Actions (story order)", d.actions), ("Relations", d.relations), ("Places", d.places),
                         ("Times", d.times), ("Objects", d.objects)):
        out += ["", f"## {title} ({len(items)})", "", *map(_item, items)]
    return "\n".join(out).rstrip() + "\n"

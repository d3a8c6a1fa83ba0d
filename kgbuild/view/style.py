"""How the page draws each type: colours and line styles taken from the schema's own lists.

Entity types get colours in the order the schema lists them; relation types get the colour of
their schema group and a line style (solid, dashed, dotted) by their place within the group, with
an arrow unless the schema calls the type symmetric. A type the schema does not know is drawn grey.

Example:
    >>> from kgbuild.schema import load_schema
    >>> entity_colours(load_schema())["Character"]
    '#d1495b'
"""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import BaseModel, ConfigDict

from kgbuild.schema import Schema

logger = logging.getLogger(__name__)

#: Colours for entity types, in schema order (distinct on white and in print).
ENTITY_PALETTE = ("#d1495b", "#8d6cab", "#2e86ab", "#e9a03b", "#3d9970", "#7f8c8d", "#c06c84",
                  "#5c4d7d", "#1b998b", "#b5651d")
#: Colours for relation groups, in the order the schema's relation types first name them.
GROUP_PALETTE = ("#8d6cab", "#d1495b", "#5c4d7d", "#3d9970", "#7f8c8d", "#2e86ab", "#e9a03b", "#b5651d")
#: Line styles given in turn to the relation types of one group.
LINE_STYLES: tuple[Literal["solid", "dashed", "dotted"], ...] = ("solid", "dashed", "dotted")
#: The colour of a type the schema does not list.
UNKNOWN_COLOUR = "#9e9e9e"


class RelationLook(BaseModel):
    """How one relation type is drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    group: str
    colour: str
    line: Literal["solid", "dashed", "dotted"]
    directed: bool


def entity_colours(schema: Schema) -> dict[str, str]:
    """Entity type -> colour, in the schema's order of entity types."""
    return {name: ENTITY_PALETTE[i % len(ENTITY_PALETTE)] for i, name in enumerate(schema.entity_type_names())}


def relation_looks(schema: Schema) -> dict[str, RelationLook]:
    """Relation type -> its look: the group's colour, a line style per type within the group, an
    arrow unless the type is symmetric."""
    groups: dict[str, int] = {}
    within: dict[str, int] = {}
    looks = {}
    for spec in schema.relation_types:
        group = groups.setdefault(spec.group, len(groups))
        place = within.get(spec.group, 0)
        within[spec.group] = place + 1
        looks[spec.name] = RelationLook(group=spec.group, colour=GROUP_PALETTE[group % len(GROUP_PALETTE)],
                                        line=LINE_STYLES[place % len(LINE_STYLES)], directed=not spec.symmetric)
    return looks


def unknown_relation_look() -> RelationLook:
    """The look of a relation type the schema does not list."""
    return RelationLook(group="other", colour=UNKNOWN_COLOUR, line="solid", directed=True)

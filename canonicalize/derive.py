"""Facts derived from other facts: where and when the characters of an event are.

An event's place and time are links of the event (`occurs_at`, `occurs_on`); the STAGE-KG
references, and people querying a graph, ask it of the characters (`located_at`,
`present_on`). Whoever performs or experiences an event is where and when it happens, so each
such pair gives a derived relation. Whoever only undergoes it is not always there (the one a
phone call reaches, the one a letter is about): an undergoer counts only when the screenplay
shows them in the event's scene, speaking on screen there (not V.O., O.S., on the phone or on
TV, by the cue or by a parenthetical of the speech).

A time said only in dialogue gives nobody a `present_on`: 'we have a month', 'see you on
Monday' name a deadline or another day, not the time the scene is set in. The event's
`occurs_on` link must be shown by a heading or an action line of the screenplay (its evidence's
first line), or the derivation is skipped and counted (`time_only_said`).

A derived relation carries the evidence of the two facts it comes from, each marked
`derived:<relation id>`, and the event's scenes; the same fact derived from several events
is one relation with their scenes and evidence (`merge_relation_records`). A fact the graph
already states is left as it is (counted as `already_stated`): its own evidence shows it more
directly.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kgbuild.canonicalize.repairs import RepairCount
from kgbuild.graph import merge_relation_records, relation_id
from kgbuild.model import ElementKind, Entity, Evidence, KnowledgeGraph, Persistence, Relation, Screenplay
from kgbuild.offline.scenes import through_medium
from kgbuild.readers.cues import normalize_name, voice_is_away, voice_is_offscreen
from kgbuild.schema import Schema

#: Event role links that put the character at the event.
PRESENT_ROLES = ("performs", "experiences")
#: The role link that does only when the screenplay shows the character in the scene.
SHOWN_ROLE = "undergoes"
#: (event link, derived relation): the event's place and time, and what they give a character.
WHEREABOUTS = (("occurs_at", "located_at"), ("occurs_on", "present_on"))


@dataclass(frozen=True)
class _Link:
    relation: Relation
    other: str  # the entity id at the other end


def on_screen_speakers(screenplay: Screenplay) -> dict[int, set[str]]:
    """Scene index -> cue keys of the characters who speak on screen in it: not off screen, and
    not from elsewhere by the cue or the speech's parentheticals ('(V.O.)', '(OVER PHONE)',
    '(ON TV)': `kgbuild.offline.scenes.through_medium`).

    Example:
        >>> on_screen_speakers(screenplay)[3]  # doctest: +SKIP
        {'ANNA', 'BEN'}
    """
    shown: dict[int, set[str]] = defaultdict(set)
    for scene in screenplay.scenes:
        elements = scene.elements
        for i, el in enumerate(elements):
            if el.kind is not ElementKind.CHARACTER or not el.speaker:
                continue
            notes = [*el.extensions]
            for nxt in elements[i + 1:]:
                if nxt.kind is ElementKind.PARENTHETICAL:
                    notes.append(nxt.text)
                elif nxt.kind is not ElementKind.DIALOGUE:
                    break
            if not voice_is_away(el.extensions) and not voice_is_offscreen(el.extensions) and not through_medium(notes):
                shown[scene.index].add(normalize_name(el.speaker))
    return shown


def _names(entity: Entity) -> set[str]:
    return {normalize_name(n) for n in (entity.name, *entity.aliases)}


#: Element kinds that show the scene itself (not what is said in it).
_SHOWING = frozenset({ElementKind.SCENE_HEADING, ElementKind.ACTION})


def _said_lines(screenplay: Screenplay) -> dict[int, list[tuple[int, int]]]:
    """Scene index -> the line spans of everything but headings and action (what is said)."""
    said: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind not in _SHOWING:
                said[scene.index].append((el.line_start, el.line_end))
    return said


def _only_said(link: Relation, said: dict[int, list[tuple[int, int]]]) -> bool:
    """True when the link's first evidence line is dialogue (or a cue, a parenthetical...)."""
    first = link.evidence[0] if link.evidence else None
    if first is None or first.lines is None:
        return False
    return any(start <= first.lines[0] <= end for start, end in said.get(first.scene, ()))


def _derived_evidence(*sources: Relation) -> list[Evidence]:
    return [ev.model_copy(update={"producer": f"derived:{rel.id}"}) for rel in sources for ev in rel.evidence[:1]]


def derive_whereabouts(graph: KnowledgeGraph, schema: Schema,
                       screenplay: Screenplay | None = None) -> tuple[KnowledgeGraph, RepairCount]:
    """Add `located_at` / `present_on` for the characters of each event with a place or time.

    Args:
        graph: A merged graph.
        schema: Its schema: a derived relation is added only where its types are admissible.
        screenplay: The screenplay, to tell whether an undergoer is in the event's scene; without
            it, undergoers give nothing.

    Returns:
        The new graph (the input is not changed) and what was added or confirmed, per type.

    Example:
        >>> graph, count = derive_whereabouts(graph, load_schema(), screenplay)  # doctest: +SKIP
        >>> count.changed  # doctest: +SKIP
        {'located_at': 12, 'present_on': 3, 'already_stated': 40}
    """
    entities = {e.id: e for e in graph.entities}
    speakers = on_screen_speakers(screenplay) if screenplay is not None else {}
    said = _said_lines(screenplay) if screenplay is not None else {}
    roles: dict[str, list[_Link]] = defaultdict(list)
    settings: dict[str, list[tuple[str, _Link]]] = defaultdict(list)
    wanted = dict(WHEREABOUTS)
    for rel in graph.relations:
        if rel.type in (*PRESENT_ROLES, SHOWN_ROLE):
            roles[rel.target].append(_Link(rel, rel.source))
        elif rel.type in wanted:
            settings[rel.source].append((wanted[rel.type], _Link(rel, rel.target)))
    count = RepairCount(rule="derive_whereabouts")
    relations = {(r.source, r.type, r.target): r for r in graph.relations}
    stated = set(relations)
    for event_id, links in settings.items():
        event = entities.get(event_id)
        if event is None:
            continue
        for link in roles.get(event_id, []):
            character = entities.get(link.other)
            if character is None or not _there(link.relation, character, event, speakers):
                continue
            for derived_type, setting in links:
                place = entities.get(setting.other)
                if place is None or place.id == character.id:
                    continue
                if not schema.is_admissible(derived_type, character.type, place.type):
                    continue
                if derived_type == "present_on" and _only_said(setting.relation, said):
                    count.add("time_only_said", f"{character.name} -/-> {place.name} ({event.name})")
                    continue
                key = (character.id, derived_type, place.id)
                if key in stated:
                    count.add("already_stated", f"{character.name} -{derived_type}-> {place.name}")
                    continue
                derived = Relation(id=relation_id(*key), source=character.id, target=place.id, type=derived_type,
                               name="is at" if derived_type == "located_at" else "is there on",
                               description=f"During '{event.name}'.", scenes=sorted(event.scenes),
                               persistence=Persistence.MOMENTARY,
                               evidence=_derived_evidence(link.relation, setting.relation))
                if key in relations:
                    relations[key] = merge_relation_records(relations[key], derived)
                    continue
                relations[key] = derived
                count.add(derived_type, f"{character.name} -{derived_type}-> {place.name} ({event.name})")
    return graph.model_copy(update={"relations": list(relations.values())}), count


def _there(role: Relation, character: Entity, event: Entity, speakers: dict[int, set[str]]) -> bool:
    """Whether the role puts the character where the event happens."""
    if role.type in PRESENT_ROLES:
        return True
    names = _names(character)
    return any(names & speakers.get(scene, set()) for scene in event.scenes)

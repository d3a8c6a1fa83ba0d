"""Facts of story time, derived from who is in each scene: the scene layer, witnesses, and what a
character is told.

`derive_story` reads the screenplay for the graph's characters (`kgbuild.extraction.presence`) and
writes three things, each with its evidence:

- the scene layer (`KnowledgeGraph.scenes`): per scene its heading, time markers and who is in it;
- `witnesses` (character -> event): the character is on screen in the event's scene (in person:
  not on a screen, in a picture or as a voice from elsewhere, `kgbuild.extraction.presence`), is not
  its performer, undergoer or experiencer nor named in its title, its description or the rest
  of its act in the sentence (until another subject takes over) other than as one who watches
  or hears it ('Garcetti pulls a baggie from Danny's pocket': Danny is in the act) nor (for an
  event placed in a speech) the speaker of the turn just before or after it, nor the one a thing
  is taken back from ('Carl grabs his phone back': the last other person named with the phone
  before), and is there when it happens: seen at or before the event's place in the text (its
  line, and within a long paragraph its sentence), not then asleep, unconscious or dead ('Tudor
  lies unconscious'), with no exit, no blackout and no sentence showing them at another place
  ('OUTSIDE - Tanner and Garcetti hear the gunfire') between, or shown watching it in a later
  sentence of the same paragraph (first seen after it otherwise is not there; an event without
  a located line has no witnesses, and neither has one placed in a speech heard from elsewhere,
  a voice-over or a voice on the phone). Two kinds of event have no bystanders at all: an inner
  state (its verb is one of cognition or feeling, a closed class: 'She knows Henry is waiting',
  'Joker feels Burke behind him') is not something others see; and an event whose own clause
  points at people it does not name ('Geordi removes the connections from between their
  heads': 'their', 'each other' with one character named) leaves no one on screen told
  apart from those it is done to. Evidence:
  the line that shows the character there (producer `derived:presence`) and the event's own
  (`derived:<event id>`).
- `told_about` (character -> event): in a later scene (screen order), someone else says, on
  screen or off screen (not as a voice from elsewhere), a sentence that holds a form of the
  event's verb and names two of its participants, objects or places, while the character is
  there (on screen or off screen, seen at or before the line and not seen leaving since).
  The verb is the one the event's `performs` link records, or else the word after a
  participant's name in the event's name; light verbs ('looks', 'goes', 'takes', 'says') tell
  nothing, and neither does the verb's present third person ('approaches', 'pours'): telling of
  what happened before is said in a past form or the verb's base ('burned', 'was burning', 'saw
  her burn'), while the present is how the script's own action is written, and a reader that
  joined an action line to a speech ('It was not my impression. Saavik approaches Kirk:')
  leaves it there. Evidence: the spoken sentence (producer `derived:speech`) and the event's own.

Both types are `derived` in the schema: never extracted, never scored. They are rebuilt from
scratch on every run (a resumed build does not keep stale ones).

Example:
    >>> graph, count = derive_story(graph, load_schema(), screenplay)  # doctest: +SKIP
    >>> count.changed  # doctest: +SKIP
    {'witnesses': 40, 'told_about': 6}
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kgbuild.canonicalize.repairs import RepairCount
from kgbuild.evidence import quote_evidence, sentences
from kgbuild.extraction.presence import PresenceLayer, SceneReading, Sighting, position_in, read_presence
from kgbuild.graph import relation_id
from kgbuild.model import Entity, Evidence, KnowledgeGraph, Persistence, PresenceMode, Relation, Screenplay
from kgbuild.offline.scenes import moves
from kgbuild.offline.stoplists import word_set
from kgbuild.schema import Schema

WITNESSES = "witnesses"
#: A sentence that shows someone seeing or hearing what happens.
_PERCEIVES = re.compile(r"\b(?:watch(?:es|ed|ing)?|sees?|saw|seeing|looks? (?:on|at|up at)|stares? at|observes?|"
                        r"notices?|listens?|hears?|witness(?:es)?|eyes)\b|看着|看见|看到|注视|盯着|目睹|听见|听到",
                        re.IGNORECASE)
#: Verbs of cognition and feeling: what they tell is inside the character, not seen by others.
INNER_VERBS = word_set("""
    know knows knew known think thinks thought feel feels felt sense senses sensed realize realizes realized
    realise realises realised remember remembers remembered recall recalls recalled recognize recognizes
    recognized recognise recognises recognised understand understands understood believe believes believed
    want wants wanted wish wishes wished hope hopes hoped fear fears feared love loves loved hate hates hated
    like likes liked wonder wonders wondered imagine imagines imagined suspect suspects suspected notice
    notices noticed forget forgets forgot forgotten dream dreams dreamed dreamt doubt doubts doubted expect
    expects expected regret regrets regretted envy envies envied admire admires admired trust trusts trusted
    decide decides decided ponder ponders pondered worry worries worried long longs longed yearn yearns yearned
    crave craves craved dread dreads dreaded
""")
# An event's sentence that points at people it does not name ('... from between their heads').
_PLURAL_PEOPLE = re.compile(r"\b(?:their|themselves|each other|one another)\b", re.IGNORECASE)
# Where a sentence goes on with another clause: 'and' before a new subject, a semicolon, a dash.
_NEXT_CLAUSE = re.compile(r"\s+(?:and|but|while|as|then|until|when)\s+(?!(?:the|a|an|his|her|their|its|my|your|our)\b)"
                          r"|[;:]|--|—", re.IGNORECASE)
# Where another subject takes over a sentence: a semicolon or a colon, a comma before a name, a pronoun or a
# determiner, or 'while', 'as', 'when' before one ('While Will sips his tea, Jenny flips'); not 'and' ('approaches
# Kirk and Spock', 'pulls a gun and sticks Danny': one act).
_NEW_SUBJECT = re.compile(r"[;:]|(?:,|\s+(?:while|as|when|until|whereas))\s+"
                          r"(?=(?:the|a|an|his|her|their|its|my|your|our|he|she|they|it|we|i)\b|[A-Z])")
# Taking a thing back or away from someone the sentence does not name ('Carl grabs his phone back').
_TAKES_BACK = re.compile(r"\b(?:takes?|took|grabs?|snatch(?:es)?|pulls?|yanks?|wrests?|gets?|rips?|seizes?|"
                         r"plucks?)\b.*?\b(?:back|away|from (?:him|her|them))\b", re.IGNORECASE)
TOLD_ABOUT = "told_about"
#: Event links whose subject takes part in the event.
PARTICIPANT_ROLES = ("performs", "undergoes", "experiences")
#: Verbs that say too little to tell an event by.
LIGHT_VERBS = word_set("""
    look looks looked looking see sees saw seen watch watches watched turn turns turned go goes went gone
    come comes came get gets got take takes took taken give gives gave given make makes made put puts walk
    walks walked stand stands stood sit sits sat move moves moved face faces faced stare stares stared
    glance glances glanced nod nods nodded smile smiles smiled say says said tell tells told ask asks asked
    talk talks talked speak speaks spoke hold holds held keep keeps kept find finds found know knows knew
    think thinks thought want wants wanted try tries tried start starts started stop stops stopped have has
    had let lets is are was were be do does did pull pulls pulled push pushes pushed reach reaches reached
    follow follows followed lead leads led hand hands handed leave leaves left enter enters entered
    bring brings brought carry carries carried open opens opened close closes closed
""")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
#: How many of an event's participants, objects and places a sentence must name to tell it.
ARGUMENTS_NAMED = 2


@dataclass(frozen=True)
class _Event:
    entity: Entity
    participants: set[str]
    arguments: list[Entity]  # participants, objects and places the speech may name
    stems: set[str]
    verbs: set[str]  # the event's verbs as written, lower case


def _stem(verb: str) -> str | None:
    """A verb's stem for matching its forms ('punches' -> 'punch'); None for light or short verbs."""
    word = verb.strip().lower()
    if not word.isalpha() or word in LIGHT_VERBS or len(word) < 4:
        return None
    for suffix in ("ies", "es", "ed", "ing", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _event_verbs(event: Entity, links: list[Relation], entities: dict[str, Entity]) -> set[str]:
    """The event's verbs as written: its `performs` links' names, or else the word after a
    performer's name in the event's name ('Joker feels Burke' -> 'feels')."""
    verbs = {r.name.split()[0].lower() for r in links if r.type == "performs" and r.name.strip()}
    if not verbs:
        for r in links:
            if r.type != "performs" or r.source not in entities:
                continue
            for form in (entities[r.source].name, *entities[r.source].aliases):
                if form and event.name.startswith(form + " "):
                    nxt = event.name[len(form) + 1:].split()
                    if nxt:
                        verbs.add(nxt[0].lower())
    return verbs


def _events(graph: KnowledgeGraph, event_type: str | None) -> list[_Event]:
    entities = {e.id: e for e in graph.entities}
    links: dict[str, list[Relation]] = defaultdict(list)
    for r in graph.relations:
        if r.type in (*PARTICIPANT_ROLES, "occurs_at"):
            links[r.target if r.type in PARTICIPANT_ROLES else r.source].append(r)
    out = []
    for e in graph.entities:
        if e.type != event_type or not e.scenes:
            continue
        participants = {r.source for r in links[e.id] if r.type in PARTICIPANT_ROLES}
        argument_ids = participants | {r.target for r in links[e.id] if r.type == "occurs_at"}
        verbs = _event_verbs(e, links[e.id], entities)
        out.append(_Event(e, participants, [entities[i] for i in sorted(argument_ids) if i in entities],
                          {s for s in (_stem(v) for v in verbs) if s}, verbs))
    return out


def _event_at(event: Entity, reading: SceneReading) -> tuple[tuple[int, int] | None, Evidence | None]:
    """Where in the scene the event's evidence is: (line, offset of its quote in that element)."""
    ev = _event_evidence(event, reading.scene.index)
    if ev is None or ev.lines is None:
        return None, ev
    return position_in(reading.scene, ev.lines[0], ev.quote), ev


def _event_evidence(event: Entity, scene: int) -> Evidence | None:
    """The event's evidence in a scene, one with lines first."""
    ev = next((x for x in event.evidence if x.scene == scene and x.lines is not None), None)
    return ev if ev is not None else next((x for x in event.evidence if x.scene == scene), None)


def there_at(sightings: list[Sighting], at: tuple[int, int] | None,
             blackouts: Sequence[tuple[int, int]] = ()) -> Sighting | None:
    """The sighting that puts a character on screen at a place of a scene, or None.

    Args:
        sightings: The character's sightings in the scene, in text order.
        at: (line, offset within that line's element); None when unknown (then nothing places
            them there at it).
        blackouts: Where the screen goes dark in the scene (`SceneReading.blackouts`).

    Returns:
        The last on-screen sighting at or before the place unless it shows them leaving or asleep,
        unconscious or dead, or a blackout, a line saying they are gone or one showing them at
        another place ('OUTSIDE - ...') comes between; else None. A character first
        shown after the place (later in the same paragraph, too) is not counted there: the text
        does not say they saw or heard what came before (a door opening on them, an arrival the
        action does not call one, are read as coming in).
    """
    if at is None:
        return None
    before = [s for s in sightings if s.mode is PresenceMode.PRESENT and s.position <= at]
    if not before:
        return None
    last = before[-1]
    if last.kind == "exits" and last.position < at or last.kind == "senseless":
        return None  # gone out, or asleep, unconscious or dead ('Tudor lies unconscious')
    if any(s.kind in ("gone", "elsewhere") and last.position < s.position <= at for s in sightings):
        return None  # 'Picard is gone.', 'OUTSIDE - Tanner and Garcetti hear the gunfire.'
    return None if any(last.position < dark <= at for dark in blackouts) else last


def watching_after(sightings: list[Sighting], at: tuple[int, int] | None,
                   blackouts: Sequence[tuple[int, int]] = ()) -> Sighting | None:
    """A later sentence of the same paragraph that shows the character watching, or None.

    An action paragraph does not always name who is there before what happens ('Anna hides the
    key. Clara watches her.'): a character shown after the event's sentence, in the same
    paragraph and with no blackout between, counts when that sentence shows them seeing or
    hearing it (`_PERCEIVES`); one only revealed there later ('... opens the door. Nadia is
    standing outside') does not.
    """
    if at is None:
        return None
    for s in sightings:
        if (s.line == at[0] and s.offset > at[1] and s.mode is PresenceMode.PRESENT
                and not any(at < dark <= s.position for dark in blackouts)):
            return s if _PERCEIVES.search(s.evidence.quote) else None
    return None


def _speech_at(reading: SceneReading, at: tuple[int, int] | None) -> int | None:
    """The index in `reading.speeches` of the speech whose lines hold the event's place, or None."""
    if at is None:
        return None
    for i, said in enumerate(reading.speeches):
        speech = said.speech
        end = speech.lines[-1].line_end if speech.lines else speech.cue.line_end
        if speech.cue.line_start <= at[0] <= end:
            return i
    return None


def _partners(reading: SceneReading, i: int | None) -> set[str]:
    """Who speaks the turns just before and after speech `i` (the one the event is placed in):
    when an event is something said, the one it answers and the one who answers it are in the
    exchange, not bystanders (the lawyer whose offer a refusal answers). Empty when the event is
    no speech."""
    if i is None:
        return set()
    speeches = reading.speeches
    near = [speeches[j].speaker for j in (i - 1, i + 1) if 0 <= j < len(speeches)]
    return {who for who in near if who != speeches[i].speaker}


def _by_character(reading: SceneReading) -> dict[str, list[Sighting]]:
    out: dict[str, list[Sighting]] = defaultdict(list)
    for s in reading.sightings:
        out[s.character].append(s)
    return out


def _clause(event: Entity, quote: str) -> str:
    """The event's own clause of its sentence: from where its description starts (or the
    sentence's start) to the next clause ('Meeks lays his coat down' of '... down and everyone
    dumps their food on it')."""
    description = event.description.strip().rstrip(".")
    at = quote.find(description) if description else -1
    rest = quote[max(at, 0):]
    cut = _NEXT_CLAUSE.search(rest, len(description) if at >= 0 else 0)
    return rest[:cut.start()] if cut else rest


def _unnamed_people(clause: str, layer: PresenceLayer) -> bool:
    """Whether an event's clause points at people by a plural pronoun while naming at most one
    character ('Geordi removes the connections from between their heads')."""
    if not _PLURAL_PEOPLE.search(clause):
        return False
    return sum(1 for pattern in layer.names.values() if pattern.search(clause)) <= 1


def _act(event: Entity, quote: str) -> str:
    """The event's act in its sentence: from where its description starts to where another subject
    takes over ('Garcetti pulls a small shock gun and sticks Danny behind the neck' is one act;
    'Will sips his iced tea, Jenny flips through a form' ends at 'Jenny', '... to the surface as a
    laughing Janine splashes over' at 'as')."""
    description = event.description.strip().rstrip(".,;:!? ")
    at = quote.find(description) if description else -1
    rest = quote[max(at, 0):]
    cut = _NEW_SUBJECT.search(rest, len(description) if at >= 0 else 0)
    return rest[:cut.start()] if cut else rest


def _in_the_act(named: re.Pattern[str], act: str) -> bool:
    """Whether the event's act names the character other than as one who watches or hears it:
    'Garcetti pulls a baggie of meth from Danny's pocket', '... and sticks Danny behind the neck
    with it' have Danny in the act, not looking on."""
    found = list(named.finditer(act))
    return bool(found) and not any(moves(_PERCEIVES, act, m.end()) for m in found)


def _taken_from(ev: _Event, reading: SceneReading, at: tuple[int, int] | None, clause: str,
                layer: PresenceLayer) -> set[str]:
    """Who a thing is taken back from ('Carl grabs his phone back'): the characters the last
    earlier sentence of the scene that names the thing shows in person, other than the event's
    participants."""
    if at is None or not _TAKES_BACK.search(clause):
        return set()
    heads = {a.name.split()[-1].lower() for a in ev.arguments if a.id in ev.participants and a.id not in layer.names}
    if not heads:
        return set()
    words = re.compile(r"\b(?:" + "|".join(re.escape(h) for h in sorted(heads)) + r")\b", re.IGNORECASE)
    earlier = [s for s in reading.sightings if s.position < at and s.kind in ("shown", "enters", "exits")
               and words.search(s.evidence.quote)]
    if not earlier:
        return set()
    last = max(s.position for s in earlier)
    return {s.character for s in earlier if s.position == last} - ev.participants


def _witnesses(events: list[_Event], layer: PresenceLayer) -> dict[tuple[str, str], Relation]:
    out: dict[tuple[str, str], Relation] = {}
    for ev in events:
        if ev.verbs & INNER_VERBS:
            continue  # an inner state ('She knows Henry is waiting'): nothing others see
        told = f"{ev.entity.name} {ev.entity.description}"
        for scene in ev.entity.scenes:
            reading = layer.readings.get(scene)
            if reading is None:
                continue
            at, event_ev = _event_at(ev.entity, reading)
            said = _speech_at(reading, at)
            if said is not None and reading.speeches[said].speech.away:
                continue  # a voice-over or a voice on the phone: nobody in the scene's place is there for it
            clause = _clause(ev.entity, event_ev.quote) if event_ev is not None else ""
            if _unnamed_people(clause, layer):
                continue  # 'their heads': those it is done to are on screen, unnamed
            partners = _partners(reading, said) | _taken_from(ev, reading, at, clause, layer)
            act = _act(ev.entity, event_ev.quote) if event_ev is not None else ""
            for character, sightings in _by_character(reading).items():
                named = layer.names.get(character)
                if character in ev.participants or character in partners or named is not None and (
                        named.search(told) or _in_the_act(named, act)):
                    continue  # takes part, is spoken with, or the event's own words name them: no bystander
                seen = there_at(sightings, at, reading.blackouts) or watching_after(sightings, at, reading.blackouts)
                if seen is None:
                    continue
                evidence = [seen.evidence.model_copy(update={"producer": "derived:presence"})]
                if event_ev is not None:
                    evidence.append(event_ev.model_copy(update={"producer": f"derived:{ev.entity.id}"}))
                _add(out, character, WITNESSES, ev.entity, scene, evidence, "witnesses")
    return out


def _add(out: dict[tuple[str, str], Relation], character: str, rtype: str, event: Entity, scene: int,
         evidence: list[Evidence], name: str) -> None:
    key = (character, event.id)
    old = out.get(key)
    if old is not None:
        if scene not in old.scenes:
            out[key] = old.model_copy(update={"scenes": sorted({*old.scenes, scene}),
                                              "evidence": [*old.evidence, *evidence][:6]})
        return
    out[key] = Relation(id=relation_id(character, rtype, event.id), source=character, target=event.id, type=rtype,
                        name=name, description=f"{name.capitalize()} '{event.name}'.", scenes=[scene],
                        persistence=Persistence.MOMENTARY, evidence=evidence)


def _argument_pattern(entity: Entity, layer: PresenceLayer, thing_type: str | None) -> re.Pattern[str] | None:
    if entity.id in layer.names:
        return layer.names[entity.id]
    forms = [f for f in (entity.name, *entity.aliases) if len(f.strip()) >= 3]
    if entity.type == thing_type:
        forms += [f.split()[-1] for f in forms if len(f.split()) > 1 and len(f.split()[-1]) >= 4]
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _told(events: list[_Event], layer: PresenceLayer, thing_type: str | None) -> dict[tuple[str, str], Relation]:
    by_stem: dict[str, list[_Event]] = defaultdict(list)
    for ev in events:
        for stem in ev.stems:
            by_stem[stem].append(ev)
    patterns: dict[str, re.Pattern[str] | None] = {}
    out: dict[tuple[str, str], Relation] = {}
    for index, reading in sorted(layer.readings.items()):
        present = _by_character(reading)
        for said in reading.speeches:
            if not said.in_scene:
                continue
            for el in said.speech.lines:
                for text in sentences(el.text) or [el.text]:
                    words = {w.lower() for w in _WORD.findall(text)}
                    candidates = {id(ev): ev for w in words for k in range(4, len(w) + 1)
                                  for ev in by_stem.get(w[:k], ())
                                  if min(ev.entity.scenes) < index and not _present_third(w, w[:k])}
                    for ev in candidates.values():
                        named = 0
                        for arg in ev.arguments:
                            if arg.id not in patterns:
                                patterns[arg.id] = _argument_pattern(arg, layer, thing_type)
                            pattern = patterns[arg.id]
                            named += pattern is not None and pattern.search(text) is not None
                        if named < ARGUMENTS_NAMED:
                            continue
                        quote = quote_evidence(reading.scene, el, text, "derived:speech")
                        event_ev = _event_evidence(ev.entity, min(ev.entity.scenes))
                        for character, sightings in present.items():
                            if (character == said.speaker or character in ev.participants
                                    or there_at(sightings, (el.line_start, 0), reading.blackouts) is None
                                    and not _offscreen(sightings)):
                                continue
                            evidence = [quote]
                            if event_ev is not None:
                                evidence.append(event_ev.model_copy(update={"producer": f"derived:{ev.entity.id}"}))
                            _add(out, character, TOLD_ABOUT, ev.entity, index, evidence, "is told about")
    return out


def _present_third(word: str, stem: str) -> bool:
    """Whether a word is the present third person of the verb of `stem` ('approaches', 'pours',
    'carries' of 'carr'), the tense of action lines, not of telling what happened."""
    return word[len(stem):] in ("s", "es", "ies")


def _offscreen(sightings: list[Sighting]) -> bool:
    return any(s.mode is PresenceMode.OFFSCREEN for s in sightings) and not any(
        s.mode is PresenceMode.PRESENT for s in sightings)


def derive_story(graph: KnowledgeGraph, schema: Schema, screenplay: Screenplay) -> tuple[KnowledgeGraph, RepairCount]:
    """Add the scene layer, `witnesses` and `told_about` to a graph (see the module docstring).

    Args:
        graph: A merged graph; its `witnesses` and `told_about` relations are replaced.
        schema: Its schema (person, event and thing types): a relation type it lacks is not derived.
        screenplay: The screenplay the graph was built from.

    Returns:
        The new graph (the input is not changed) and how many facts of each kind were added.

    Example:
        >>> graph, count = derive_story(graph, load_schema(), screenplay)  # doctest: +SKIP
    """
    layer = read_presence(screenplay, graph, schema=schema)
    kept = [r for r in graph.relations if r.type not in (WITNESSES, TOLD_ABOUT)]
    events = _events(graph, schema.type_for_role("event"))
    thing = schema.type_for_role("thing")
    count = RepairCount(rule="derive_story")
    added: list[Relation] = []
    derivations = ((WITNESSES, lambda: _witnesses(events, layer)), (TOLD_ABOUT, lambda: _told(events, layer, thing)))
    for rtype, derive in derivations:
        if schema.relation(rtype) is None:
            continue
        found = list(derive().values())
        added += found
        for r in found:
            count.add(rtype, f"{r.source} -{rtype}-> {r.target} (scene {r.scenes[0]})")
    count.changed["scene_presences"] = sum(len(s.presence) for s in layer.records)
    return graph.model_copy(update={"relations": [*kept, *added], "scenes": layer.records}), count

"""Who is in each scene, and how: the scene layer of a graph, read from the screenplay.

The characters are the graph's Character entities (offline or LLM-built, after merging), found in
the text by their names, aliases and distinctive name parts (`mention_patterns`, as the offline
rules find them) and by the cues they speak under. Per scene, each character gets the strongest
mode the text shows, with the first line showing each mode:

- `present` (on screen): speaks under a cue without V.O., phone or O.S. (`presence_speaks`);
  named in an action sentence that shows them in person, not only as an owner ('Neil's desk')
  nor after 'of', 'about', 'for' ('a story about Sarah') nor in quotes or an insert
  (`presence_shown`); or spoken to in a parenthetical ('(to Neil)') that says nothing of a
  phone (`presence_addressed`);
- `offscreen`: speaks under O.S. / O.C. or under a cue named a voice ('FEMALE VOICE'), or the
  action has them heard and not seen ('We hear Esther screaming', and after that 'Esther keeps
  screaming') (`presence_offscreen`): in the scene's world, not shown;
- `away`: heard or seen from elsewhere: speaks as a voice from elsewhere, V.O., phone, TV, radio
  ('(O.S. RADIO FILTER)'), as a narrator ('TV NARRATOR'), a call that goes on under plain cues, a
  speaker first heard after a slug that opens on a screen ('ON A TV MONITOR')
  (`presence_away`); seen on a screen, in a photograph or
  in print ('CLOSE ON TV, Murray ...', 'a photo of Julie', 'Call display: MOM.';
  `presence_depicted`); shown in person at another place than the heading's: the sentence opens
  on it ('OUTSIDE - ...' in an interior, 'THROUGH THE DOOR -- ...', 'Above them, ...'), a locative
  after the name puts them there ('Victor, outside on the porch, taps', '老师乙在屋外敲门'), or they
  are what someone sees through a window or a lens (`presence_elsewhere`). The ways are a closed
  class read by `kgbuild.offline.scenes.scene_sights`, the same reading the offline rules put
  characters at a heading's place by;
- `mentioned`: named in a speech by someone else (`presence_named_in_dialogue`), in the action
  without being shown (`presence_named_in_action`: also in a question, 'Where is Mark?', '武举人呢?',
  in what is asked, supposed or waited for, 'to see if Kresimir is still there', 'certain that
  Rollo must be', 'until St. Luc comes', as the subject of a relative clause in the past, 'the
  novel Victor left', or in a speech the reader took for action, in the first person: 'Ross was
  my best friend.'), or said to be gone ('Picard is gone.', 'Malcolm has gone in ahead.',
  `presence_gone`: no longer there).

Pronouns are not resolved for presence: a character the text only calls 'he' is not recorded; only a
leaving is taken up ('He walks out.' after a sentence showing one character, `_taken_up`). The same
reading gives `Sighting`s with line numbers, which say when in the scene someone speaks, enters,
leaves or is gone (`derive` uses them for witnesses).

Example:
    >>> layer = read_presence(screenplay, graph)  # doctest: +SKIP
    >>> [(p.character, p.mode.value) for p in layer.records[0].presence]  # doctest: +SKIP
    [('character:neil_perry', 'present'), ('character:todd_anderson', 'mentioned')]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kgbuild.evidence import quote_evidence, sentences
from kgbuild.extraction.descriptors import is_descriptor
from kgbuild.model import (
    Element,
    ElementKind,
    Entity,
    Evidence,
    KnowledgeGraph,
    Presence,
    PresenceMode,
    Scene,
    SceneRecord,
    Screenplay,
)
from kgbuild.names import display_name
from kgbuild.offline.characters import Cast, common_words, cue_names
from kgbuild.offline.dialogue import Speech, scene_speeches
from kgbuild.offline.headings import heading_places, learn_heading_places
from kgbuild.offline.scenes import (
    ENTERS,
    ActionSentence,
    Sight,
    leaves,
    moves,
    name_spans,
    scene_place,
    scene_sights,
)
from kgbuild.offline.stoplists import word_set
from kgbuild.offline.stretches import setting_cuts
from kgbuild.readers.cues import normalize_name
from kgbuild.readers.time_markers import time_markers
from kgbuild.schema import Schema, load_schema

#: Modes strongest first.
MODE_RANK = {PresenceMode.PRESENT: 0, PresenceMode.OFFSCREEN: 1, PresenceMode.AWAY: 2, PresenceMode.MENTIONED: 3}
#: Modes in which a character is in the scene's world and hears what is said there.
IN_SCENE = frozenset({PresenceMode.PRESENT, PresenceMode.OFFSCREEN})

_PRONOUNS = word_set("he she him her his hers they them their it i you we me us")
_CJK = re.compile(r"[\u3400-\u9fff]")
_PHONE = re.compile(r"\b(?:phone|telephone|radio|intercom|walkie|line)\b", re.IGNORECASE)
_ADDRESSED = re.compile(r"^\(?\s*(?:to|at)\s+", re.IGNORECASE)
# A sentence that has someone on the phone or the radio ('Sandra talks on the phone'). The scene layer
# has always read it as naming the people, not showing them, and the judged `knows` sample of Big
# Fish (tests/story/test_knows_judged.py) is drawn from that layer; kept until it is judged again.
_ON_THE_LINE = re.compile(r"\b(?:over the (?:phone|radio|intercom|speaker)|on the (?:phone|radio))\b", re.IGNORECASE)
# Shown asleep, unconscious or dead ('Tudor lies unconscious', 'Creeper still fast asleep', '老汤昏迷不醒'):
# there, but seeing and hearing nothing until the text shows them again.
_SENSELESS = re.compile(
    r"^\s*(?:(?:is|was|lies|lay|lying|remains|stays|sits|still|now|already|fast|sound|falls|fell|slumps|collapses|"
    r"goes|passes)\s+){0,3}(?:asleep|unconscious|comatose|lifeless|dead\b(?!\s+(?:tired|serious|still|silent|center|"
    r"ahead|on|set))|out cold|passed out)|^\s*(?:faints|dies|dozes off|blacks out|passes out|falls asleep)\b|"
    r"^[\u3400-\u9fff]{0,3}?(?:昏迷|昏倒|晕倒|晕了过去|睡着|熟睡|死了|断气)", re.IGNORECASE)
# The screen goes dark ('Blackout.', 'FADE OUT.', 'Cut to black.', '黑场。') or the picture cuts away to
# another time or place and back ('(FLASHBACK)', 'CUT BACK TO:', 'BACK TO PRESENT', 'INTERCUT', '闪回').
_BLACKOUT = re.compile(
    r"^\W*(?:black\s*out|fade (?:out|to black)|cut to black|黑场|黑屏|淡出|"
    r"(?:begin |end (?:of )?)?flash ?(?:back|forward)s?|(?:cut|go|going) back to(?: (?:the )?(?:present|scene))?|"
    r"back to (?:the )?(?:present|scene)|intercut(?: with)?|闪回|回到现实|切回)\W*$", re.IGNORECASE)


@dataclass(frozen=True)
class Sighting:
    """One place in a scene where the text shows or names a character.

    Attributes:
        character: The entity id.
        kind: 'speaks', 'offscreen', 'away', 'shown', 'senseless' (shown asleep, unconscious or
            dead: there, but seeing nothing), 'depicted' (seen through a medium),
            'elsewhere' (in person, at another place than the heading's: 'Outside, Owen waits'),
            'addressed', 'gone' (said to be no longer there), 'named_in_dialogue' or
            'named_in_action'; a 'shown' sentence that brings the character in (the subject of
            'enters', 'arrives', ...; or their introduction, the name in capitals before a
            parenthesis or a comma) or takes them out ('leaves', 'exits', not a car; 'goes into
            the bathroom', 'has wandered off', `kgbuild.offline.scenes.leaves`; going after
            someone the sentence has leaving, 'with Max following her') is 'enters' or 'exits'.
        line: The first source line of the element.
        evidence: The line as evidence.
        offset: Where in the element's text the sentence showing the character begins (0 for a
            speech): a long action paragraph can show an event before it brings someone in.
    """

    character: str
    kind: str
    line: int
    evidence: Evidence
    offset: int = 0

    @property
    def position(self) -> tuple[int, int]:
        """(line, offset): where in the scene the text shows the character."""
        return self.line, self.offset

    @property
    def mode(self) -> PresenceMode:
        """The presence mode this sighting shows."""
        return _KIND_MODE[self.kind]


_KIND_MODE = {
    "speaks": PresenceMode.PRESENT, "shown": PresenceMode.PRESENT, "enters": PresenceMode.PRESENT,
    "exits": PresenceMode.PRESENT, "senseless": PresenceMode.PRESENT, "addressed": PresenceMode.PRESENT,
    "offscreen": PresenceMode.OFFSCREEN,
    "away": PresenceMode.AWAY, "depicted": PresenceMode.AWAY, "elsewhere": PresenceMode.AWAY,
    "gone": PresenceMode.MENTIONED,
    "named_in_dialogue": PresenceMode.MENTIONED, "named_in_action": PresenceMode.MENTIONED,
}
_RULES = {
    "speaks": "presence_speaks", "shown": "presence_shown", "enters": "presence_shown",
    "senseless": "presence_shown", "exits": "presence_shown", "addressed": "presence_addressed",
    "offscreen": "presence_offscreen",
    "away": "presence_away", "depicted": "presence_depicted", "elsewhere": "presence_elsewhere",
    "gone": "presence_gone",
    "named_in_dialogue": "presence_named_in_dialogue", "named_in_action": "presence_named_in_action",
}


@dataclass(frozen=True)
class SceneSpeech:
    """One speech of a scene with its speaker's entity id (`speech.away` when heard from
    elsewhere, by its cue, its parentheticals or the call it goes on: `scene_sights`)."""

    speaker: str  # entity id
    speech: Speech

    @property
    def in_scene(self) -> bool:
        """Said where the scene is (on screen or off screen), not from elsewhere."""
        return not self.speech.away


@dataclass
class SceneReading:
    """What the text of one scene shows about the characters."""

    scene: Scene
    sightings: list[Sighting] = field(default_factory=list)
    speeches: list[SceneSpeech] = field(default_factory=list)
    blackouts: list[tuple[int, int]] = field(default_factory=list)
    """(line, offset) of each blackout, fade out or cut away within the scene (also a heading inside
    it that names another setting): the screen goes dark or shows another time or place, and
    nobody shown before it is on screen after it until the text shows them again."""


@dataclass(frozen=True)
class PresenceLayer:
    """The scene layer of a graph and the readings it was made from."""

    records: list[SceneRecord]
    readings: dict[int, SceneReading]
    names: dict[str, re.Pattern[str]]  # entity id -> the pattern finding the character in text


@dataclass(frozen=True)
class CharacterNames:
    """The graph's characters as the text names them."""

    cast: Cast
    ids: dict[str, str]  # entity name -> entity id
    patterns: dict[str, re.Pattern[str]]  # entity name -> pattern


def name_patterns(cast: Cast, common: frozenset[str] = frozenset()) -> dict[str, re.Pattern[str]]:
    """A regex per character (by entity name) matching its name, its aliases and its distinctive
    name parts, as the offline rules find characters (`kgbuild.offline.characters.mention_patterns`).

    A name part is distinctive when it has three letters or more, starts with a capital, one
    character's names hold it and the script never writes it in lower case (`common`). A
    descriptor name ('Texas Ranger #1', `kgbuild.story.descriptors`) is found only whole. English
    forms match in title case and capitals only ('Will' is a name, 'will' a word).
    """
    forms: dict[str, set[str]] = defaultdict(set)
    for surface, canonical in cast.canonical.items():
        forms[canonical] |= {display_name(surface), canonical}
    for canonical, names in cast.aliases.items():
        forms[canonical] |= names
    owners: dict[str, set[str]] = defaultdict(set)
    for canonical in forms:
        for token in canonical.split():
            owners[token.casefold()].add(canonical)
    patterns = {}
    for canonical, names in forms.items():
        parts = set(names)
        cjk = bool(_CJK.search(canonical))
        if not cjk and not is_descriptor(canonical):
            parts |= {t for t in canonical.split() if len(t) >= 3 and t[0].isupper() and len(owners[t.casefold()]) == 1
                      and t.casefold() not in common and t.casefold() not in _PRONOUNS}
        if not cjk:
            parts |= {p.upper() for p in parts}
        alternatives = "|".join(sorted((re.escape(p) for p in parts if p), key=len, reverse=True))
        patterns[canonical] = re.compile(alternatives if cjk else rf"\b(?:{alternatives})\b")
    return patterns


def _forms(entity: Entity) -> list[str]:
    return [f for f in dict.fromkeys([entity.name, *entity.aliases])
            if f.strip() and f.strip().casefold() not in _PRONOUNS and (_CJK.search(f) or any(c.isupper() for c in f))]


def character_names(screenplay: Screenplay, characters: list[Entity]) -> CharacterNames:
    """A cast of the graph's characters: their names and aliases, and every cue of the screenplay
    that names one of them (by a name or alias, or by a name part only one character has).

    A form two characters share is left out (it names neither for sure).

    Args:
        screenplay: The screenplay (its cues and common words).
        characters: The Character entities.

    Returns:
        The cast, the entity id of each name, and the text pattern of each character.
    """
    owners: dict[str, set[str]] = defaultdict(set)
    for e in characters:
        for form in _forms(e):
            owners[normalize_name(form)].add(e.name)
    cast = Cast()
    for e in characters:
        cast.canonical[e.name] = e.name
        for form in _forms(e):
            if owners[normalize_name(form)] == {e.name}:
                cast.canonical[normalize_name(form)] = e.name
                if form != e.name:
                    cast.aliases[e.name].add(form)
    tokens: dict[str, set[str]] = defaultdict(set)
    for e in characters:
        for form in _forms(e):
            for token in normalize_name(form).split():
                if len(token) >= 3:
                    tokens[token].add(e.name)
    for scene in screenplay.scenes:
        for el in scene.elements:
            if el.kind is not ElementKind.CHARACTER or not el.speaker or el.speaker in cast.joined:
                continue
            found = []
            for part in cue_names(el.speaker):
                key = normalize_name(part)
                name = cast.canonical.get(key)
                if name is None and len(tokens.get(key, ())) == 1:
                    name = next(iter(tokens[key]))
                if name is not None:
                    found.append(name)
            cast.joined[el.speaker] = list(dict.fromkeys(found))
    patterns = name_patterns(cast, common_words(screenplay))
    return CharacterNames(cast, {e.name: e.id for e in characters}, patterns)


def _sighting(scene: Scene, element: Element, quote: str, character: str, kind: str, *,
              lines: tuple[int, int] | None = None, offset: int = 0) -> Sighting:
    ev = quote_evidence(scene, element, quote, "rule:" + _RULES[kind])
    if lines is not None:
        ev = ev.model_copy(update={"lines": lines})
    return Sighting(character, kind, element.line_start, ev, offset)


def sentence_offsets(text: str) -> list[tuple[int, str]]:
    """The sentences of an element's text (`kgbuild.evidence.sentences`) with where each begins."""
    out = []
    at = 0
    for sentence in sentences(text) or [text]:
        found = text.find(sentence, at)
        start = found if found >= 0 else at
        out.append((start, sentence))
        at = start + len(sentence)
    return out


def position_in(scene: Scene, line: int, quote: str) -> tuple[int, int]:
    """(line, offset) of a quote of the element that begins at or holds `line` (offset 0 if not found)."""
    for el in scene.elements:
        if el.line_start <= line <= el.line_end:
            found = el.text.find(quote.strip()) if quote.strip() else -1
            return el.line_start, max(found, 0)
    return line, 0


def _speech_sightings(scene: Scene, speeches: list[SceneSpeech]) -> list[Sighting]:
    out = []
    for s in speeches:
        speech = s.speech
        kind = "away" if speech.away else "offscreen" if speech.offscreen else "speaks"
        last = speech.lines[0].line_end if speech.lines else speech.cue.line_end
        out.append(_sighting(scene, speech.cue, speech.first_line.text, s.speaker, kind,
                             lines=(speech.cue.line_start, last)))
    return out


def _introduced(text: str, start: int, end: int) -> bool:
    """True for a character's introduction, which brings them into the story: the name in
    capitals, then a parenthesis or a comma ('OFFICER CRAIG LANG (a man in his mid 30's ...')."""
    written = text[start:end]
    return (not _CJK.search(written) and written.isupper() and len(written) > 1
            and bool(re.match(r"\s*[(,]", text[end:])))


def _action_sentences(scene: Scene, names: CharacterNames) -> list[tuple[int, ActionSentence]]:
    """The action sentences of a scene (those naming no one too: 'The phone rings.' tells of a
    call), each with its offset in its element."""
    place = scene_place(scene)
    return [(offset, ActionSentence(el, text, name_spans(text, names.patterns), [], place, scene.int_ext))
            for el in scene.elements if el.kind is ElementKind.ACTION
            for offset, text in sentence_offsets(el.text)]


_SIGHT_KIND = {Sight.ELSEWHERE: "elsewhere", Sight.HEARD: "offscreen", Sight.SCREEN: "depicted",
               Sight.PICTURE: "depicted", Sight.ABSENT: "gone", Sight.NAMED: "named_in_action"}


def _action_sightings(scene: Scene, names: CharacterNames, sents: list[tuple[int, ActionSentence]],
                      sights: list[dict[str, Sight]]) -> list[Sighting]:
    out: list[Sighting] = []
    kinds_by_sentence: list[dict[str, str]] = []
    for i, ((offset, sent), seen) in enumerate(zip(sents, sights, strict=True)):
        text, spans = sent.text, sent.spans
        kinds: dict[str, str] = {}
        for name in dict.fromkeys(n for _, _, n in spans):
            sight = seen.get(name, Sight.NAMED)
            if sight is Sight.IN_PERSON and _ON_THE_LINE.search(text):
                sight = Sight.NAMED
            if sight is Sight.IN_PERSON:
                start, end = next((s, e) for s, e, n in spans if n == name)
                kind = ("enters" if moves(ENTERS, text, end)
                        else "exits" if any(leaves(text, e, sent.place, name_start=s, exterior=sent.int_ext == "EXT")
                                            for s, e, n in spans if n == name)
                        else "enters" if _introduced(text, start, end)
                        else "senseless" if _SENSELESS.match(text[end:]) else "shown")
            else:
                kind = _SIGHT_KIND[sight]
            kinds[name] = kind
        out.extend(_sighting(scene, sent.element, text, names.ids[name], kind, offset=offset)
                   for name, kind in _followers(sent, kinds).items())
        if not spans:
            out.extend(_sighting(scene, sent.element, text, names.ids[name], "exits", offset=offset)
                       for name in _taken_up(scene, sents, i, kinds_by_sentence))
        kinds_by_sentence.append(kinds)
    return out


# A sentence that opens on a subject pronoun or a definite plural noun ('He finishes and walks out',
# 'They exit.', 'The kids start filing in.').
_SUBJECT_WORD = re.compile(r"^\W*(?:(?:and|then|now|finally)\s+)?(?:(?P<pro>he|she|they)|the\s+(?P<noun>[a-z]+s))\b",
                           re.IGNORECASE)


def _taken_up(scene: Scene, sents: list[tuple[int, ActionSentence]], i: int,
              kinds_by_sentence: list[dict[str, str]]) -> list[str]:
    """Who a sentence that names no one has leaving by a subject it takes up from before: 'he' or
    'she' the one character the last sentence naming anyone shows in person, 'they' the two or
    more it shows, with no speech between (a speaker may be who is meant); 'the kids' those an
    earlier sentence of the scene lists in a parenthesis after the same noun ('The kids
    (including Ann, Bo ...) wait'). Empty when the sentence has no such subject or no leaving."""
    sent = sents[i][1]
    m = _SUBJECT_WORD.match(sent.text)
    if m is None or not leaves(sent.text, m.end(), sent.place, name_start=m.start(m.lastgroup or 0),
                               exterior=sent.int_ext == "EXT"):
        return []
    if m.group("noun"):
        listed = re.compile(rf"\b{re.escape(m.group('noun'))}\s*\((?P<list>[^)]*)\)", re.IGNORECASE)
        for j in range(i - 1, -1, -1):
            found = listed.search(sents[j][1].text)
            if found:
                return [n for s, _, n in sents[j][1].spans if found.start("list") <= s < found.end("list")
                        and kinds_by_sentence[j].get(n) in _THERE]
        return []
    last = next((k for k in range(i - 1, -1, -1) if sents[k][1].spans), None)
    if last is None or _speech_between(scene, sents[last][1].element, sent.element):
        return []
    shown = [n for n, k in kinds_by_sentence[last].items() if k in _THERE]
    plural = m.group("pro").lower() == "they"
    return shown if (len(shown) >= 2 if plural else len(shown) == 1) else []


_THERE = frozenset({"shown", "enters", "senseless", "exits"})


def _speech_between(scene: Scene, first: Element, last: Element) -> bool:
    """Whether a cue stands between two elements of a scene."""
    return any(el.kind is ElementKind.CHARACTER and first.line_start < el.line_start < last.line_start
               for el in scene.elements)


# Going after someone: 'with Max following her', 'Max follows Margo', 'Max goes after them'.
_FOLLOWS = re.compile(r"^\s*(?:(?:closely|right|quickly|then)\s+)?(?:follows?|following|followed|goes after|"
                      r"going after|hurries after|runs after)\s+(?P<whom>[\w'’-]+)", re.IGNORECASE)


def _followers(sent: ActionSentence, kinds: dict[str, str]) -> dict[str, str]:
    """The sentence's kinds with who goes after someone it has leaving ('Margo going into the pantry
    with Max following her'): the follower, shown in it, leaves too. The one followed is a pronoun
    or a name the sentence has leaving."""
    leaving = [n for n, k in kinds.items() if k == "exits"]
    if not leaving:
        return kinds
    out = dict(kinds)
    for _, end, name in sent.spans:
        m = _FOLLOWS.match(sent.text[end:])
        if kinds.get(name) != "shown" or m is None:
            continue
        whom = m.group("whom")
        if whom.lower() in ("him", "her", "them") or any(sent.text.find(whom, end) == s and n in leaving
                                                          for s, _, n in sent.spans):
            out[name] = "exits"
    return out


def _dialogue_sightings(scene: Scene, speeches: list[SceneSpeech], names: CharacterNames) -> list[Sighting]:
    out = []
    for s in speeches:
        for el in s.speech.lines:
            for text in sentences(el.text) or [el.text]:
                for _, _, name in name_spans(text, names.patterns):
                    if names.ids[name] != s.speaker:
                        out.append(_sighting(scene, el, text, names.ids[name], "named_in_dialogue"))
    for el in scene.elements:
        if el.kind is ElementKind.PARENTHETICAL and _ADDRESSED.match(el.text) and not _PHONE.search(el.text):
            rest = _ADDRESSED.sub("", el.text, count=1)
            spans = name_spans(rest, names.patterns)
            if spans and spans[0][0] == 0:
                out.append(_sighting(scene, el, el.text, names.ids[spans[0][2]], "addressed"))
    return out


def read_scene(scene: Scene, names: CharacterNames,
               places: Callable[[Scene], list[str]] | None = None) -> SceneReading:
    """Every sighting and speech of the graph's characters in one scene, in line order; `places`
    names the places of a heading (the script's `HeadingPlaces.places`), for the cuts to another
    setting inside the scene."""
    speeches = [s for s in scene_speeches(scene, names.cast) if s.speaker in names.ids]
    sents = _action_sentences(scene, names)
    sights = scene_sights(scene, [a for _, a in sents], speeches)
    said = [SceneSpeech(names.ids[s.speaker], replace(s, away=True) if away and not s.away else s)
            for s, away in zip(speeches, sights.away, strict=True)]
    sightings = [*_speech_sightings(scene, said), *_action_sightings(scene, names, sents, sights.sentences),
                 *_dialogue_sightings(scene, said, names)]
    sightings.sort(key=lambda s: (s.line, s.offset, MODE_RANK[s.mode]))
    return SceneReading(scene, sightings, said, _blackouts(scene, places))


def _blackouts(scene: Scene, places: Callable[[Scene], list[str]] | None = None) -> list[tuple[int, int]]:
    """Where the screen goes dark or cuts away: a blackout line, or a heading printed inside the
    scene that names another setting (`kgbuild.offline.stretches.setting_cuts`, by the script's
    learned heading `places`)."""
    out: list[tuple[int, int]] = [(line, 0) for line in setting_cuts(scene, places or heading_places)]
    for el in scene.elements:
        if el.kind in (ElementKind.ACTION, ElementKind.TRANSITION):
            out.extend((el.line_start, offset) for offset, text in sentence_offsets(el.text) if _BLACKOUT.match(text))
    return sorted(out)


def presence_of(reading: SceneReading) -> list[Presence]:
    """The scene's characters, each with its strongest mode and the first line of each mode."""
    by_character: dict[str, dict[PresenceMode, Evidence]] = defaultdict(dict)
    for s in reading.sightings:
        by_character[s.character].setdefault(s.mode, s.evidence)
    out = []
    for character, modes in by_character.items():
        ranked = sorted(modes, key=MODE_RANK.__getitem__)
        out.append(Presence(character=character, mode=ranked[0], evidence=[modes[m] for m in ranked]))
    return sorted(out, key=lambda p: (MODE_RANK[p.mode], p.evidence[0].lines or (0, 0), p.character))


def read_presence(screenplay: Screenplay, graph: KnowledgeGraph, *, schema: Schema | None = None) -> PresenceLayer:
    """The scene layer of a graph: per scene its heading, time markers and who is in it.

    Args:
        screenplay: The screenplay the graph was built from.
        graph: The graph (its entities of the schema's person type are the ones looked for).
        schema: The graph's schema; the default when None.

    Returns:
        One `SceneRecord` per scene of the screenplay, the readings behind them, and each
        character's text pattern.

    Example:
        >>> layer = read_presence(screenplay, graph)  # doctest: +SKIP
        >>> graph = graph.model_copy(update={"scenes": layer.records})  # doctest: +SKIP
    """
    person = (schema or load_schema()).type_for_role("person")
    characters = [e for e in graph.entities if e.type == person]
    names = character_names(screenplay, characters)
    records, readings = [], {}
    places = learn_heading_places(screenplay).places
    for scene in screenplay.scenes:
        reading = read_scene(scene, names, places)
        readings[scene.index] = reading
        records.append(SceneRecord(index=scene.index, number=scene.number, heading=scene.heading,
                                   markers=time_markers(scene), presence=presence_of(reading)))
    patterns = {names.ids[name]: pattern for name, pattern in names.patterns.items() if name in names.ids}
    return PresenceLayer(records, readings, patterns)

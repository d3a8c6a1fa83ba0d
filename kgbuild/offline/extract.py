"""The offline extractor: rules that state only what the screenplay's words show.

Each rule names the evidence it reads and emits nothing without it (producer 'rule:<name>'):

- `heading_place`, `heading_part_of`: places of the scene heading (`kgbuild.offline.headings`:
  no continuity marks, notes or states of the place) and which holds which, only where the
  script's headings show it (`kgbuild.offline.containment`); the innermost is where the scene is.
- `heading_year`, `title_card_year`: years the heading or an on-screen title gives. The bare
  time of day of a heading (DAY, NIGHT) stays scene metadata (`Scene.time_of_day`): it is a
  kind of time, not a time point of the story.
- `speaks`, `named_in_action`: who is in the scene (speaking in it, not as a voice-over, on the
  phone, a radio or a screen, as a narrator or off screen, or shown by the action in person: not
  on a screen, in a picture or in print, nor only heard, nor said to be gone, nor only named by a
  question, a condition, a supposition, a past relative clause or a misread speech,
  `kgbuild.offline.scenes.scene_sights`);
  with the heading: `present_in_heading_place` (located_at), `present_in_stated_year` (present_on
  a year the heading or a title card gives). Where the heading names two places each with its own
  INT./EXT. (an intercut), `present_at_side`: located_at the side the text puts a character at
  (`kgbuild.offline.sides`), none where it does not say. Who the action shows at another place ('OUTSIDE -
  ...' in an interior, seen through a window, '老师乙在屋外敲门') is in the scene but not at its
  heading's place; so is who is first shown or heard after an intercut with another place
  ('INTERCUT WITH:'). A heading printed inside an English scene that names a place opens a
  stretch of its own (`kgbuild.offline.stretches`): every rule reads each stretch as a scene at
  that heading's places. In Chinese scenes (`_presence`) who is first shown
  after a cut, a heading inside the scene or a line opening in another room is in the scene but
  not at its heading's place, and a speaker first heard after a phone call is not in it.
- `speaks_to_direction`, `speaks_to_vocative`, `speaks_to_facing`, `speaks_to_two_speakers`,
  `speaks_to_exchange`, `speaks_to_answer`: whom a speech addresses, someone in the room when it
  is said (`kgbuild.offline.dialogue`, `kgbuild.offline.comings`), or someone heard through the
  same broadcast; `speaks_to_line`: the other end of a phone or a radio, by the turns of the talk
  (`kgbuild.offline.address`).
- attitude cues in a speech whose words are aimed at its listener (`thanks`, `thanks_given`:
  a weighted 'thank you' for what the listener has just handed the speaker, `love`,
  `endearment`, `insult`, `threat`), warmth both ways (`warmth_both_ways`: affinity needs both
  sides) and in action clauses (`embrace`, `violence`, `glare`, `thanks_action`: thanks that
  say what they are for, 'Anna thanks Ben for the ride'; see `kgbuild.offline.dialogue` for
  why a thanks formula alone is no attitude).
- kinship: `kin_in_name`, `kin_apposition`, `kin_my`, `kin_vocative` (see `kgbuild.offline.kinship`).
- action clauses (English): `action_event` (an Event named by who does what, with performs,
  undergoes and occurs_at), `handles` (interacts_with), `possessive` ("Neil's pen"),
  `possessive_pronoun` ('Neil opens his desk': the sentence names Neil alone, and the script
  calls Neil 'he'),
  `moves_into_place` (located_at a place the clause names). What a clause acts on is a noun,
  the head of its phrase (`kgbuild.offline.phrases`, `kgbuild.offline.actions`): not a light
  verb's action ('takes a sip', 'takes a heave on the booze'), an amount, a body part or
  gesture, a noun of an act made from a verb ('his appearance'), what its complement makes no
  thing ('his wave of nausea'), a modifier cut from its noun by 'and' or a comma ('a thick and
  colorful towel' is that towel, 'the sharp, still smoking STEEL' that steel), nor a picture
  taken of someone ('takes Elizabeth's picture' photographs her); a thing after 'at', 'past' or
  'toward' is what the act is aimed at, not handled ('starts at the sight of'), a place after
  'at' where its owner is ('at her flat'); a character after 'with' is a companion who performs
  too, one after 'past' or 'toward' no one acted on; 'He' after another speaker's speech is not carried
  from the sentence before it, nor from someone that sentence names only as an owner ('He
  stuffs Garcetti's gun into his mouth. He takes the gun out.').
- Chinese action lines, read in jieba's words (`kgbuild.offline.chinese`): `zh_place`,
  `zh_thing`, `zh_handles`, `zh_possessive`, `zh_goes_to_place`.

A scene heading is scene metadata, never an event; a scene with no action clause has no event.

The rules speak in roles (a person, a place, a time, an event, a thing); the schema of the build
says which entity type each role is, and a role it lacks is not extracted (`kgbuild.offline.facts`).
Relation types keep the names the rules give them; the repair stage drops those the schema does
not know.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import replace

from kgbuild.embeddings import Embedder
from kgbuild.evidence import heading_evidence, quote_evidence
from kgbuild.model import Element, ElementKind, Evidence, KnowledgeGraph, Persistence, Scene, Scope, Screenplay
from kgbuild.names import display_name
from kgbuild.offline import chinese, kinship
from kgbuild.offline.actions import (
    ACTION_VERBS,
    AFFECTION,
    CARRYING,
    GLARES,
    HANDLING,
    NOT_EVENTS,
    THANKS,
    VIOLENCE,
    Clause,
    action_noun,
    clauses,
    photographs,
    thanks_for,
)
from kgbuild.offline.address import calling_line, listeners, turned_to, vocative_patterns
from kgbuild.offline.characters import Cast, common_words, find_cast, mention_patterns
from kgbuild.offline.comings import rooms
from kgbuild.offline.dialogue import (
    GIVEN_CUES,
    Speech,
    aimed,
    attitude_cues,
    given_to,
    has_other_voices,
    mutual_warmth,
    quoted_line,
    scene_speeches,
)
from kgbuild.offline.facts import Facts, Ref
from kgbuild.offline.genders import learn_genders
from kgbuild.offline.headings import HeadingPlaces, heading_places, learn_heading_places
from kgbuild.offline.lexicon import ABSTRACT, ABSTRACT_THINGS, BODY_SENSES, GARMENTS, PLURAL_THINGS
from kgbuild.offline.lexicon import BODY as _BODY_WORDS
from kgbuild.offline.phrases import ING_NOUNS, VERB_FORMS, Phrase, join_modifiers, made_from_verb, rejoin_broken
from kgbuild.offline.phrases import words as tokens_of
from kgbuild.offline.scenes import (
    ZH_ELSEWHERE,
    ActionSentence,
    Sight,
    is_chinese,
    name_spans,
    read_sentences,
    scene_place,
    scene_sights,
)
from kgbuild.offline.selection import assemble
from kgbuild.offline.sides import placed_sides
from kgbuild.offline.stoplists import (
    AMBIENCE,
    BODY_PARTS,
    CLOTHES,
    COLORS,
    FIXTURES,
    GENERIC_PEOPLE,
    GESTURES,
    NOT_THINGS,
    PLACE_HEADS,
    SPATIAL_PARTS,
    TIME_WORDS,
    in_class,
)
from kgbuild.offline.stretches import stretches
from kgbuild.offline.times import is_title_card, years
from kgbuild.offline.typer import PhraseTyper
from kgbuild.readers.headings import looks_like_chinese_heading
from kgbuild.schema import Role, Schema, load_schema

logger = logging.getLogger(__name__)

# A sentence that opens with a pronoun has a subject the sentence does not name.
_PRONOUN_OPENING = re.compile(r"^(?:He|She|They|It|His|Her|Their)\b")
_PLACE_PARTICLES = frozenset({"into", "to", "onto", "inside", "through", "across", "toward", "towards"})
_NOT_OBJECTS = BODY_PARTS | SPATIAL_PARTS | AMBIENCE | FIXTURES | TIME_WORDS | NOT_THINGS | CLOTHES | GESTURES
_POSSESSIVES = frozenset({"'s", "his", "her", "their", "its", "my", "your", "our"})
# Prepositions that place a motion by someone, who is not acted on: 'walks past Lophakin'.
_LANDMARK_PARTICLES = frozenset({"by", "past", "toward", "towards", "near", "behind", "around", "beside",
                                 "across", "through"})
# Prepositions that say what an act is aimed at or goes toward, not what it handles: 'fires at the
# car', 'starts at the sight of', 'pushes past the cart'.
_AIMED_PARTICLES = frozenset({"at", "past", "toward", "towards"})
# A preposition that places someone at a place they have ('Judy in bed at her flat'): the place is
# where they are, not a thing they own.
_AT_PLACE = frozenset({"at"})
# Prepositions that put someone against a part of a body, theirs or another's: 'at his heels',
# 'on her heels', 'a gun at his temple' (a place by a body, whatever else the noun may name).
_AT_BODY = frozenset({"at", "on"})
# Prepositions that put someone or something in what is worn: 'sleeping in his clothes', 'hides
# in Jack's tunic' (worn, a place to be, no thing handled or owned there).
_IN_WORN = frozenset({"in", "inside", "under", "beneath"})
# Every verb the rules know: a noun made from one by a suffix of acts and states is no thing.
_VERB_LEXICON = VERB_FORMS | ACTION_VERBS


def no_physical_thing(noun: str) -> bool:
    """Whether a noun names no physical thing by its most frequent sense, far more frequent than
    a sense of one (`kgbuild.offline.lexicon.ABSTRACT`, WordNet's): an act, a state, a quality,
    speech or a show ('her vision', 'his energy', 'his phone conversation', 'her song'). Writing
    is a thing on paper ('letter', 'ticket'); a plural may name a thing its singular does not
    ('belongings').

    Example:
        >>> no_physical_thing("news"), no_physical_thing("letters"), no_physical_thing("belongings")
        (True, False, False)
    """
    noun = noun.lower()
    return noun in ABSTRACT or noun not in PLURAL_THINGS and in_class(noun, ABSTRACT)


def no_thing_here(phrase: Phrase, before: str, after: str = "") -> bool:
    """Whether an owned phrase names no thing where it is written, whatever it names elsewhere:
    a part of its owner's body by its most frequent sense ('his knuckles', "Tooth's feathers",
    'his tail': `kgbuild.offline.lexicon.BODY`, WordNet's; 'a tissue' is still a prop), a place
    by a body after 'at' or 'on' ('at his heels', 'on her heels', 'at his temple'), a noun with
    a sense of a body part doing what the verb after it says ('her heel lands', 'his temple
    throbs'), or clothes worn after 'in' ('sleeping in his clothes', 'hides in Jack's tunic').

    Args:
        phrase: A phrase of an action sentence.
        before: The word before its determiner, lowercased.
        after: The word after it, lowercased.

    Example:
        >>> from kgbuild.offline.phrases import noun_phrases
        >>> no_thing_here(noun_phrases("He cracks his knuckles.")[0], "cracks")
        True
    """
    if phrase.owner is None:
        return False
    head = phrase.text.split(" of ")[0].split()[-1]
    acts = after in _VERB_LEXICON or after.endswith("s") and after[:-1] in _VERB_LEXICON
    return (in_class(head, _BODY_WORDS) or (before in _AT_BODY or acts) and in_class(head, BODY_SENSES)
            or before in _IN_WORN and in_class(head, GARMENTS))


def _ev(scene: Scene, element: Element, text: str, rule: str) -> Evidence:
    return quote_evidence(scene, element, text, "rule:" + rule)


class _Script:
    """What every scene's rules share: the cast, the sentences, the typed phrases."""

    def __init__(self, screenplay: Screenplay, embedder: Embedder):
        self.cast: Cast = find_cast(screenplay)
        self.patterns = mention_patterns(self.cast, common_words(screenplay))
        self.vocatives = vocative_patterns(self.patterns)
        self.names = sorted(set(self.cast.canonical.values()))
        read = read_sentences(screenplay, self.cast, self.patterns)
        self.sentences, self.verbs = _join_modifiers(_rejoin_broken(read.sentences, screenplay)), read.verbs
        # Phrases the typer calls a thing that name no physical thing ('takes a heave'): acted on
        # as a phrase with no thing named
        self.types, self.no_things = _phrase_types(self.sentences, PhraseTyper(embedder), self.verbs)
        self.definite = frozenset(p.text for sents in self.sentences.values() for s in sents
                                  for p in s.phrases if p.determiner in ("the", "this", "that"))
        # Nouns the script writes after 'the': the role ending a name ('Dunkin Donuts Cashier').
        self.role_words = frozenset(p.split()[-1] for p in self.definite)
        self.genders = learn_genders([[(s.text, s.spans[0][2] if s.spans else None) for s in sents]
                                      for sents in self.sentences.values()])
        self.headings: HeadingPlaces = learn_heading_places(screenplay)

    def character(self, facts: Facts, name: str, scene: int, rule: str, evidence: list[Evidence]) -> Ref:
        return facts.mention("person", name, scene, rule, evidence,
                             aliases=tuple(sorted(self.cast.aliases.get(name, ()))),
                             description=self.cast.introductions.get(name, ""), scope=Scope.GLOBAL)


def _rejoin_broken(read: dict[int, list[ActionSentence]], screenplay: Screenplay) -> dict[int, list[ActionSentence]]:
    """The sentences with each word a line end broke at its hyphen whole again where the script
    writes it whole elsewhere, in any element ('his new sign- off': 'sign-off';
    `kgbuild.offline.phrases.rejoin_broken`)."""
    if not any(p.broken for sents in read.values() for s in sents for p in s.phrases):
        return read
    written = frozenset(w.lower() for scene in screenplay.scenes for el in scene.elements for w in tokens_of(el.text))

    def whole(sent: ActionSentence) -> ActionSentence:
        if not any(p.broken for p in sent.phrases):
            return sent
        return replace(sent, phrases=[rejoin_broken(p, written) for p in sent.phrases])

    return {index: [whole(s) for s in sents] for index, sents in read.items()}


def _join_modifiers(read: dict[int, list[ActionSentence]]) -> dict[int, list[ActionSentence]]:
    """The sentences with each modifier cut from its noun by a coordination named by the whole
    coordination ('a thick and colorful towel': not 'thick'; 'the sharp, still smoking STEEL': not
    'sharp'), and each verb stem that is no noun of its own before a particle written with it
    ('grabs the read out'; `kgbuild.offline.phrases.join_modifiers`), its `particle` kept to say
    it names no thing the rules can tell; a noun of its own ('hands the comb back') loses it."""
    joined = join_modifiers(s.phrases for sents in read.values() for s in sents)

    def one(p: Phrase) -> Phrase:
        if (p.coordinated or p.particle) and p.text in joined:
            added = p.particle or p.coordinated
            return replace(p, text=joined[p.text], written=1 + p.between + len(added.split()))
        return replace(p, particle="") if p.particle else p

    def named(sent: ActionSentence) -> ActionSentence:
        if not any(p.coordinated or p.particle for p in sent.phrases):
            return sent
        return replace(sent, phrases=[one(p) for p in sent.phrases])

    return {index: [named(s) for s in sents] for index, sents in read.items()}


def _phrase_types(read: dict[int, list[ActionSentence]], typer: PhraseTyper,
                  verbs: frozenset[str] = frozenset()) -> tuple[dict[str, Role], frozenset[str]]:
    """Give every noun phrase of the English action lines a role once; keep places and things only.

    What an owned phrase names is read from its words with its 'of' complement (`Phrase.typed`:
    'his wave of nausea' is no thing, 'his bouquet of roses' is), the result keyed the same
    way; a verb stem written with its particle ('the read out') is given none. A thing is named
    by a noun: not a body part, a gesture or a fixture (singular or plural, 'heads' as 'head');
    not a noun made from a verb by a suffix of acts and states ('appearance' from 'appear';
    `kgbuild.offline.phrases.made_from_verb`); not a noun that by its most frequent sense names
    no physical thing ('her vision', 'his phone conversation'; `no_physical_thing`); not a
    phrase that only ever follows an owner and opens with a body part ("his face bloody",
    "Holden's head snaps forward": the owner's body and what it does); not a verb in -s that
    only ever follows a name's 's ("Alejandro's appears only half committed": 's is 'is' there;
    'his watch' is a watch).

    Returns:
        The roles by phrase key, and the keys of the phrases that would be things but for a noun
        of no physical thing.
    """
    texts: dict[str, str] = {}
    determiners: dict[str, set[str]] = {}
    carried: set[str] = set()  # phrases a verb of carrying or putting acts on ('puts a guitar case in her hand')
    for sents in read.values():
        for sent in sents:
            tokens = tokens_of(sent.text)
            for p in sent.phrases:
                if p.particle:
                    continue  # 'the read out': no thing the rules can tell
                texts.setdefault(p.typed, p.text)
                determiners.setdefault(p.typed, set()).add(p.determiner)
                verb = tokens[p.start - (2 if p.determiner else 1)].lower() if p.start >= 2 else ""
                if verb in CARRYING:
                    carried.add(p.typed)
    typed = typer.classify(list(texts))
    out: dict[str, Role] = {}
    abstract: set[str] = set()
    for key, role in typed.items():
        phrase = texts[key]
        words = phrase.split()
        head = words[-1]
        if head in COLORS or head.endswith("ed") or head.endswith("ing") and head not in ING_NOUNS:
            continue
        owned_only = determiners[key] <= _POSSESSIVES
        if owned_only and len(words) > 1 and in_class(words[0], BODY_PARTS) or (
                determiners[key] == {"'s"} and phrase.endswith("s") and (phrase in verbs or phrase in VERB_FORMS)):
            continue
        noun = phrase.split(" of ")[0].split()[-1]
        thing = not in_class(head, _NOT_OBJECTS) and phrase not in GENERIC_PEOPLE and not made_from_verb(
            noun, _VERB_LEXICON)
        # A noun that has a physical sense, though not its most frequent one, is that thing where
        # a hand carries or puts it ('fetches his guitar cases'; not 'checks her pulse').
        if role == "thing" and thing and no_physical_thing(noun) and not (
                key in carried and in_class(noun, ABSTRACT_THINGS)):
            abstract.add(key)
        elif role == "thing" and thing or role == "place" and head in PLACE_HEADS:
            out[key] = role
    return out, frozenset(abstract)


def _heading(facts: Facts, scene: Scene, headings: HeadingPlaces) -> tuple[dict[str, Ref], list[Ref], Evidence | None]:
    """The heading's places (by name, outermost first) and time points, and its evidence;
    `part_of` only where the script's headings show which place holds which."""
    index = scene.index
    place_ev = heading_evidence(scene, "rule:heading_place")
    if place_ev is None:
        return {}, [], None
    refs = {p: facts.mention("place", display_name(p), index, "heading_place", [place_ev])
            for p in headings.places(scene)}
    part_ev = place_ev.model_copy(update={"producer": "rule:heading_part_of"})
    for inner, outer in headings.part_of(scene):
        facts.relate(refs[inner], "part_of", refs[outer], index, "heading_part_of", [part_ev],
                     persistence=Persistence.STABLE)
    times: list[Ref] = []
    for year in years(scene.heading):
        times.append(facts.mention("time", year, index, "heading_year",
                                   [place_ev.model_copy(update={"producer": "rule:heading_year"})]))
    for el in scene.elements:
        if el.kind in (ElementKind.ACTION, ElementKind.CENTERED, ElementKind.SHOT) and is_title_card(el.text):
            for year in years(el.text):
                times.append(facts.mention("time", year, index, "title_card_year",
                                           [_ev(scene, el, el.text, "title_card_year")]))
    return refs, times, place_ev


# Chinese action telling of a phone call ('程勇接起电话', '电话铃声响起').
_ZH_CALL = re.compile(r"接(?:起|通)?电话|电话(?:铃声?)?(?:响|震)|打(?:来)?电话|拨(?:通|打)|手机(?:铃声?)?响"
                      r"|电话(?:里|那头)")


# A heading place that is one room: an action line opening in another place is elsewhere.
_ROOM_ENDS = tuple("室厅房间屋库舱")


def _elsewhere_from(scene: Scene) -> tuple[int, int] | None:
    """(line, offset) of the first Chinese cut to another place or time in the scene's action
    ('切换至许东家', '插入画面'), of a heading written inside the scene ('117办公室日内'), or
    of a line opening in another room than the heading's ('银行监控室' then '大厅里，…'); what
    follows is not at the heading's place."""
    rooms = [p for p in heading_places(scene) if p.endswith(_ROOM_ENDS)]
    for el in scene.elements:
        if el.kind != ElementKind.ACTION:
            continue
        if m := ZH_ELSEWHERE.search(el.text):
            return el.line_start, m.start()
        if looks_like_chinese_heading(el.text):
            return el.line_start, 0
        opening = chinese.opening_place(el.text) if rooms else None
        if opening and opening.endswith(_ROOM_ENDS) and not any(opening in room or room in opening for room in rooms):
            return el.line_start, 0  # another room, not a part of this one ('舞台上，…' in a hall)
    return None


# An intercut with another place inside a scene ('INTERCUT WITH:', 'INTERCUT AS DESIRED WITH ROCKY CAVERN').
# An intercut of both ends of a talk is one too ('We INTERCUT as they speak.').
_INTERCUT = re.compile(r"\bINTERCUT(?:TING)?\s+(?:AS DESIRED\s+)?(?:WITH|BETWEEN)\b|\bWILL INTERCUT BETWEEN\b"
                       r"|\bINTERCUT(?:TING)?\s+(?i:as|while)\s+(?i:they|both|the two)\b")


def _intercut_from(scene: Scene) -> tuple[int, int] | None:
    """(line, offset) of the first intercut with another place in an English scene ('INTERCUT
    WITH:'): who is first shown or heard after it is in the other place, not the heading's."""
    for el in scene.elements:
        if el.kind in (ElementKind.ACTION, ElementKind.TRANSITION) and (m := _INTERCUT.search(el.text)):
            return el.line_start, m.start()
    return None


def _presence(scene: Scene, speeches: list[Speech], sents: list[ActionSentence]
              ) -> tuple[dict[str, Evidence], dict[str, Evidence], dict[str, Evidence]]:
    """Characters shown in the scene in person, each with the first evidence of it; those shown
    at the heading's place, with the first evidence of that (not where the scene has moved away);
    and those only heard or seen through a medium (a call, a screen, a photograph, print:
    `kgbuild.offline.scenes.scene_sights`), who are in the story of the scene but not at its place.
    Who the action shows at another place than the heading's (`Sight.ELSEWHERE`: 'Outside, Owen
    waits' in an interior, seen through a window, '老师乙在屋外敲门') is in the scene, not at its place.

    In English scenes who is first shown or heard after an intercut with another place ('INTERCUT
    WITH:') is in that place, not the heading's.

    In Chinese scenes what follows a cut to elsewhere ('切换至许东家', a heading inside the scene,
    a line opening in another room) is not at the heading's place, and a speaker first heard
    after a phone call who was not there before it is on the line ('程勇接电话' '喂' then 张院士
    speaks): not in the scene.
    """
    chinese = is_chinese(scene)
    cut = _elsewhere_from(scene) if chinese else _intercut_from(scene)
    calls = [el.line_start for el in scene.elements
             if chinese and el.kind == ElementKind.ACTION and _ZH_CALL.search(el.text)]
    sights = scene_sights(scene, sents, speeches)

    def after_cut(element: Element, text: str = "") -> bool:
        if cut is None:
            return False
        if element.line_start == cut[0] and text:
            return element.text.find(text) >= cut[1]
        return element.line_start > cut[0]

    shown = [(sent, name) for sent, seen in zip(sents, sights.sentences, strict=True)
             for name, sight in seen.items() if sight in (Sight.IN_PERSON, Sight.ELSEWHERE)]
    elsewhere = {(id(sent), name) for sent, seen in zip(sents, sights.sentences, strict=True)
                 for name, sight in seen.items() if sight is Sight.ELSEWHERE}
    present: dict[str, Evidence] = {}
    here: dict[str, Evidence] = {}
    through: dict[str, Evidence] = {}
    for speech, away in zip(speeches, sights.away, strict=True):
        line = speech.first_line.line_start
        if away and not speech.away:
            through.setdefault(speech.speaker, _ev(scene, speech.first_line, speech.first_line.text, "speaks"))
        if away or speech.offscreen:
            continue
        call = max((c for c in calls if c < line), default=None)
        if call is not None and speech.speaker not in present and not any(
                n == speech.speaker and sent.element.line_start <= call for sent, n in shown) and not any(
                o.speaker == speech.speaker and o.first_line.line_start <= call for o in speeches):
            continue  # first heard after the call: on the line
        evidence = _ev(scene, speech.first_line, speech.first_line.text, "speaks")
        present.setdefault(speech.speaker, evidence)
        if not after_cut(speech.first_line):
            here.setdefault(speech.speaker, evidence)
    for sent, name in shown:
        evidence = _ev(scene, sent.element, sent.text, "named_in_action")
        present.setdefault(name, evidence)
        if not after_cut(sent.element, sent.text) and (id(sent), name) not in elsewhere:
            here.setdefault(name, evidence)
    for sent, seen in zip(sents, sights.sentences, strict=True):
        for name, sight in seen.items():
            if sight in (Sight.SCREEN, Sight.PICTURE):
                through.setdefault(name, _ev(scene, sent.element, sent.text, "named_in_action"))
    return present, here, {n: ev for n, ev in through.items() if n not in present}


def _dialogue(facts: Facts, scene: Scene, script: _Script, speeches: list[Speech], present: set[str],
              refs: dict[str, Ref], sents: list[ActionSentence]) -> None:
    """speaks_to, attitudes and kinship from the speeches of one scene; a listener is someone in
    the room when the speech is said (`kgbuild.offline.comings`)."""
    index = scene.index
    crowd = has_other_voices(scene, script.cast)
    in_room = rooms(present, speeches, sents, script.genders)
    deniers = {s.speaker for s in speeches if not s.away and kinship.denies_kin(s.text)}
    for i, speech in enumerate(speeches):
        if speech.speaker not in refs:
            continue
        a = refs[speech.speaker]
        for other, words in kinship.speaker_kin(speech.text, name_spans(speech.text, script.patterns)):
            if other != speech.speaker:
                el, sentence = quoted_line(speech, words)
                ref = script.character(facts, other, index, "kin_my", [_ev(scene, el, sentence, "kin_my")])
                facts.relate(a, "kinship_with", ref, index, "kin_my", [_ev(scene, el, sentence, "kin_my")],
                             persistence=Persistence.STABLE)
        if not speech.away:
            for other, el in turned_to(speech, script.patterns):
                if other in refs:
                    facts.relate(a, "speaks_to", refs[other], index, "speaks_to_direction",
                                 [_ev(scene, el, el.text, "speaks_to_direction")], name="speaks to")
        heard = [(n, how) for n, how in listeners(speeches, i, present, script.vocatives, other_voices=crowd,
                                                  here=in_room[i], patterns=script.patterns,
                                                  genders=script.genders) if n in refs]
        for name, how in heard:
            rule = "speaks_to_" + how
            said = calling_line(speech, script.vocatives[name], name) if how == "vocative" else speech.first_line
            facts.relate(a, "speaks_to", refs[name], index, rule, [_ev(scene, said, said.text, rule)],
                         name="speaks to")
        if len(heard) != 1:
            continue
        name = heard[0][0]
        b = refs[name]
        if aimed(speech, heard):
            for cue, words in attitude_cues(speech.text):
                if cue.rule in GIVEN_CUES and not given_to(speech.lead, script.patterns[name],
                                                            script.patterns[speech.speaker]):
                    continue  # 'Thank you so much' for nothing given: manners
                el, sentence = quoted_line(speech, words)
                facts.relate(a, cue.relation, b, index, cue.rule, [_ev(scene, el, sentence, cue.rule)])
        kin_word = kinship.calls_listener_kin(speech.text)
        if kin_word and len(present) == 2 and not deniers & {speech.speaker, name}:
            el, sentence = quoted_line(speech, kin_word.strip(" ,.!?"))
            facts.relate(a, "kinship_with", b, index, "kin_vocative", [_ev(scene, el, sentence, "kin_vocative")],
                         persistence=Persistence.STABLE)


def _clause_facts(facts: Facts, scene: Scene, script: _Script, sent: ActionSentence, clause: Clause,
                  refs: dict[str, Ref], place: Ref | None, events: Counter[str]) -> None:
    """The event, handling and attitude of one action clause.

    A character after 'with' is a companion who performs the event too, not one who undergoes
    it ('Lophakin enters with Dunyasha'); one after 'past', 'by' or 'toward' is where the
    motion passes or heads ('walks past Lophakin'), and a light verb's action noun ('takes a
    sip') is the event's action, no thing: then the event has no one and nothing undergoing it.
    """
    index = scene.index

    def ev(rule: str) -> list[Evidence]:
        return [_ev(scene, sent.element, sent.text, rule)]

    subjects = [refs[s] for s in clause.subjects if s in refs]
    if not subjects:
        return
    verb = clause.verb.lower()
    target: Ref | None = None
    companions: list[Ref] = []
    acted = False  # an event with no one and nothing undergoing it
    if clause.target_character and clause.target_character in refs and clause.particle == "with":
        companions.append(refs[clause.target_character])
    elif clause.target_character and clause.target_character in refs and clause.particle in _LANDMARK_PARTICLES:
        acted = True  # 'walks past Lophakin': the motion's landmark, not acted on
    elif clause.target_character and clause.target_character in refs:
        target = refs[clause.target_character]
        if verb in AFFECTION and not clause.friendly:
            for s in subjects:
                facts.relate(s, "affinity_with", target, index, "embrace", ev("embrace"))
        if verb in VIOLENCE and not clause.friendly:
            for s in subjects:
                facts.relate(s, "hostility_with", target, index, "violence", ev("violence"))
        if verb in GLARES and clause.particle == "at":
            for s in subjects:
                facts.relate(s, "unfavorable_toward", target, index, "glare", ev("glare"))
        if verb in THANKS and thanks_for(clause):
            for s in subjects:
                facts.relate(s, "favorable_toward", target, index, "thanks_action", ev("thanks_action"))
    if clause.target_phrase is not None and not companions:
        phrase = clause.target_phrase.text
        kind = script.types.get(clause.target_phrase.typed)
        if no_thing_here(clause.target_phrase, clause.particle or verb):
            kind = None  # 'cracks his knuckles', 'hides in Jack's tunic': no thing acted on, no event
        camera = phrase == "camera" and clause.particle in ("at", "into", "to", "toward", "towards")
        aimed = clause.particle in _AIMED_PARTICLES  # 'starts at the sight of': nothing handled
        # 'grabs the read out', 'takes a heave': no thing to name
        unnamed = clause.target_phrase.particle != "" or clause.target_phrase.typed in script.no_things
        if verb in HANDLING and (unnamed or kind == "thing" and not camera and (
                aimed or action_noun(clause, script.verbs, script.definite))):
            acted = True
        elif kind == "thing" and verb in HANDLING and not camera:
            thing = facts.mention("thing", phrase, index, "handles", ev("handles"))
            for s in subjects:
                facts.relate(s, "interacts_with", thing, index, "handles", ev("handles"), name=verb)
            target = target or thing
        elif kind == "place" and clause.particle in _PLACE_PARTICLES and target is None:
            target = facts.mention("place", phrase, index, "moves_into_place", ev("moves_into_place"))
            for s in subjects:
                facts.relate(s, "located_at", target, index, "moves_into_place", ev("moves_into_place"),
                             name=f"{verb} {clause.particle}")
            return
    if verb in NOT_EVENTS or target is None and not companions and not acted:
        return
    name = clause.event_name()
    events[name] += 1
    if events[name] > 1:
        name = f"{name} (scene {index})"
    event = facts.mention("event", name, index, "action_event", ev("action_event"), description=clause.text)
    for s in [*subjects, *companions]:
        facts.relate(s, "performs", event, index, "action_event", ev("action_event"), name=verb)
    if target is not None:
        facts.relate(target, "undergoes", event, index, "action_event", ev("action_event"))
    if place is not None:
        facts.relate(event, "occurs_at", place, index, "action_event", ev("action_event"))


def _whole_role_names(sent: ActionSentence, roles: frozenset[str],
                      aliases: Mapping[str, Iterable[str]]) -> ActionSentence:
    """The sentence without the mentions that leave out the role word ending a character's name:
    'Dunkin Donuts' names the shop, not the Dunkin Donuts Cashier, where the script writes
    'the cashier' (a role, not a name). A mention the script itself gives that character as a
    name (a cue or an introduction: `Cast.aliases`) still names them: 'Jack' is Jack Frost
    where his cues read JACK, though the script writes 'the frost'."""
    def names_them(s: int, e: int, name: str) -> bool:
        said = sent.text[s:e].casefold()
        return any(said == alias.casefold() for alias in aliases.get(name, ()))

    kept = [(s, e, name) for s, e, name in sent.spans
            if not (len(name.split()) > 1 and name.split()[-1].lower() in roles
                    and name.split()[-1].lower() not in sent.text[s:e].lower()
                    and not names_them(s, e, name))]
    return sent if len(kept) == len(sent.spans) else replace(sent, spans=kept)


def _next_subject(sent: ActionSentence) -> str | None:
    """The one character the sentence names, whom 'He' or 'She' opening the next sentence may
    continue; not one named only as an owner in a sentence whose subject is a pronoun ('He
    stuffs Garcetti's gun into his mouth. He takes the gun out.' is not Garcetti's)."""
    opens_with_pronoun = _PRONOUN_OPENING.match(sent.text) is not None
    names = {n for _, e, n in sent.spans
             if not (opens_with_pronoun and sent.text[e:e + 2].lower() in ("'s", "’s"))}
    return next(iter(names)) if len(names) == 1 else None


def _action(facts: Facts, scene: Scene, script: _Script, sents: list[ActionSentence], refs: dict[str, Ref],
            place: Ref | None, events: Counter[str]) -> None:
    """Events, handling, possession, places and kinship from one scene's English action lines."""
    index = scene.index
    previous: str | None = None
    last_line = -1
    cues = [(s.cue.line_start, s.speaker) for s in scene_speeches(scene, script.cast)]
    for sent in sents:
        between = [who for line, who in cues if last_line < line < sent.element.line_start]
        if between and between[-1] != previous:
            previous = None  # 'He grabs a wing' after Joe spoke is not the waitress's, named before
        last_line = sent.element.line_start
        sent = _whole_role_names(sent, script.role_words, script.cast.aliases)
        for kin, elder, _words in kinship.apposed_kin(sent.text, sent.spans):
            if kin in refs and elder in refs:
                facts.relate(refs[elder], "kinship_with", refs[kin], index, "kin_apposition",
                             [_ev(scene, sent.element, sent.text, "kin_apposition")],
                             persistence=Persistence.STABLE)
        carried = previous if previous and script.genders.get(previous) else None
        pronoun = re.match(r"(He|She)\b", sent.text)
        if carried and pronoun and script.genders.get(carried) != pronoun.group(1).lower():
            carried = None
        found = clauses(sent.text, sent.spans, sent.phrases, script.verbs, carried)
        # 'takes Elizabeth's picture' photographs her: no picture, hers or anyone's
        photographed = [c.target_phrase for c in found if c.target_phrase is not None and photographs(c)]
        named = {n for _, _, n in sent.spans}
        sole = next(iter(named)) if len(named) == 1 else None
        tokens = tokens_of(sent.text)
        for phrase in sent.phrases:
            if script.types.get(phrase.typed) != "thing" or phrase.owner is None or phrase in photographed:
                continue
            before = tokens[phrase.start - 2].lower() if phrase.start >= 2 else ""
            if phrase.text.split()[-1] in PLACE_HEADS and before in _AT_PLACE:
                continue  # 'at her flat': where she is, not a thing of hers
            end = phrase.start + (phrase.written or len(phrase.text.split()))
            after = tokens[end].lower() if end < len(tokens) else ""
            if no_thing_here(phrase, before, after):
                continue  # 'his knuckles', 'at his heels', 'her heel lands': no thing of his
            owner: str | None
            if phrase.determiner == "'s":
                rule = "possessive"
                owner = next((n for s, e, n in sent.spans if sent.text[e:e + 2].lower() in ("'s", "’s")
                              and sent.text[s:e].upper().endswith(phrase.owner.upper())), None)
            else:
                # 'Angier pulls out his watch': the only character the sentence names, when the
                # script calls that character by the same pronoun.
                rule = "possessive_pronoun"
                at = sent.text.find(f"{phrase.determiner} {phrase.text.split()[0]}")
                first = min((s for s, _, _ in sent.spans), default=len(sent.text))
                owner = sole if (sole and script.genders.get(sole) == phrase.owner and first < at
                                 and not _PRONOUN_OPENING.match(sent.text)) else None
            if owner in refs:
                obj = facts.mention("thing", phrase.text, index, rule, [_ev(scene, sent.element, sent.text, rule)])
                facts.relate(refs[owner], "possesses", obj, index, rule, [_ev(scene, sent.element, sent.text, rule)])
        for clause in found:
            _clause_facts(facts, scene, script, sent, clause, refs, place, events)
        previous = _next_subject(sent)


def _add_scene(facts: Facts, scene: Scene, script: _Script, events: Counter[str]) -> None:
    index = scene.index
    by_name, times, heading_ev = _heading(facts, scene, script.headings)
    places = list(by_name.values())
    first, last = scene.line_span
    setting = scene_place(scene)
    # A stretch of a scene (`kgbuild.offline.stretches`): its own sentences, at its own place.
    sents = [s if s.place == setting else replace(s, place=setting, int_ext=scene.int_ext)
             for s in script.sentences.get(index, []) if first <= s.element.line_start <= last]
    speeches = scene_speeches(scene, script.cast)
    present, at_heading, through = _presence(scene, speeches, sents)
    sides = script.headings.sides(scene) if places else []
    # Two places, each its own INT./EXT. (an intercut): where each one is, only the text says.
    placed = placed_sides(scene, sides, sents, speeches) if len(sides) > 1 else {}
    if len(script.headings.settings(scene)) > 1:
        # '街边/土贼房间': the heading names several settings, and which one a character is in only
        # the action can say (`chinese.add_chinese_sentences`, `placed_sides`); the heading places no one.
        at_heading = {}
    refs: dict[str, Ref] = {}
    for name, evidence in through.items():  # heard or seen through a medium: in the story, not at the place
        refs[name] = script.character(facts, name, index, evidence.producer.removeprefix("rule:"), [evidence])
    for name, evidence in present.items():
        rule = evidence.producer.removeprefix("rule:")
        refs[name] = script.character(facts, name, index, rule, [evidence])
        if heading_ev is None:
            continue
        for side, (el, quote) in placed.get(name, {}).items():
            for where in sides[side]:
                facts.relate(refs[name], "located_at", by_name[where], index, "present_at_side",
                             [heading_ev.model_copy(update={"producer": "rule:present_at_side"}),
                              _ev(scene, el, quote, "present_at_side")],
                             name="is in", persistence=Persistence.MOMENTARY)
        for place in places if name in at_heading and len(sides) < 2 else ():
            facts.relate(refs[name], "located_at", place, index, "present_in_heading_place",
                         [heading_ev.model_copy(update={"producer": "rule:present_in_heading_place"}),
                          at_heading[name].model_copy(update={"producer": "rule:present_in_heading_place"})],
                         name="is in", persistence=Persistence.MOMENTARY)
        for when in times:
            facts.relate(refs[name], "present_on", when, index, "present_in_stated_year",
                         [heading_ev.model_copy(update={"producer": "rule:present_in_stated_year"}),
                          evidence.model_copy(update={"producer": "rule:present_in_stated_year"})])
    for speech in speeches:
        if (speech.away or speech.offscreen) and speech.speaker not in refs:
            refs[speech.speaker] = script.character(
                facts, speech.speaker, index, "speaks",
                [_ev(scene, speech.first_line, speech.first_line.text, "speaks")])
    for name in list(refs):
        found = kinship.kin_in_name(name, set(refs))
        if found:
            owner, _ = found
            kin_evidence = [e.model_copy(update={"producer": "rule:kin_in_name"})
                            for e in (present.get(name), present.get(owner)) if e is not None]
            facts.relate(refs[owner], "kinship_with", refs[name], index, "kin_in_name", kin_evidence,
                         persistence=Persistence.STABLE)
    in_scene = set(present) | set(through) | {s.speaker for s in speeches if s.offscreen}
    _dialogue(facts, scene, script, speeches, in_scene, refs, sents)
    if is_chinese(scene):
        chinese.add_chinese_sentences(facts, scene, sents, script.names)
    else:
        # An event's place is the scene's innermost, where the heading names one place only.
        _action(facts, scene, script, sents, refs, places[-1] if places and len(sides) < 2 else None, events)


def collect_facts(screenplay: Screenplay, embedder: Embedder,
                  on_scene: Callable[[], object] | None = None, scenes: Container[int] | None = None, *,
                  schema: Schema | None = None) -> Facts:
    """Run every rule over every scene and record what each finds, with its evidence.

    Args:
        screenplay: The parsed screenplay.
        embedder: Types English noun phrases (places, things).
        on_scene: Called after each scene (progress).
        scenes: Only these scene indices give facts (the cast and names still come from the
            whole script); None: every scene.
        schema: The schema whose types the roles become; the default STAGE-KG schema when None.
    """
    script = _Script(screenplay, embedder)
    facts = Facts(roles=(schema or load_schema()).role_types())
    events: Counter[str] = Counter()
    for scene in screenplay.scenes:
        if scenes is not None and scene.index not in scenes:
            continue
        for stretch in [scene] if is_chinese(scene) else stretches(scene, script.headings.places):
            _add_scene(facts, stretch, script, events)
        if on_scene is not None:
            on_scene()
    facts.relations.extend(mutual_warmth(facts.relations))
    return facts


def extract_offline(
    screenplay: Screenplay,
    *,
    embedder: Embedder | None = None,
    version: str = "",
    on_scene: Callable[[], object] | None = None,
    scenes: Container[int] | None = None,
    schema: Schema | None = None,
) -> KnowledgeGraph:
    """Build a story graph from a screenplay with rules only; every fact carries its evidence.

    Args:
        screenplay: The parsed screenplay.
        embedder: Types noun phrases (places, things); the bundled MiniLM model behind the
            on-disk cache when None.
        version: The kgbuild version for the provenance.
        on_scene: Called after each scene that gives facts (progress).
        scenes: Only these scene indices give facts, the whole script still naming the cast
            (`kgbuild build --scenes`); None: every scene.
        schema: The schema: the entity type of each role the rules find (a role it lacks is not
            extracted); the default STAGE-KG schema when None.

    Returns:
        A graph in the schema's entity types (see the module docstring for the rules); its
        relation types are the rules' own, for the repair stage to check against the schema.

    Example:
        >>> graph = extract_offline(read_screenplay("script.fountain"))  # doctest: +SKIP
    """
    if embedder is None:
        from kgbuild.embeddings import default_embedder

        embedder = default_embedder()
    schema = schema or load_schema()
    facts = collect_facts(screenplay, embedder, on_scene, scenes, schema=schema)
    if facts.skipped:
        logger.info("offline rules: not extracted, the schema has no type for the role: %s",
                    ", ".join(f"{role} ({n} mentions)" for role, n in sorted(facts.skipped.items())))
    return assemble(facts, screenplay, version=version, schema=schema)

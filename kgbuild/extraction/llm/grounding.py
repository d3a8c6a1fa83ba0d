"""Evidence for the facts of an LLM extraction, found in the screenplay text.

The model says what happens; the screenplay shows where. Once the chunks' graphs are merged,
every entity and relation is grounded in the scenes it cites (`kgbuild.evidence`), and a fact
the text does not show is left out of the graph and counted. The rules, in order:

- relation: the model's quote, located in the relation's scenes; else, for a link between an
  event and an entity, the heading of the event's scene when it names a place or time end
  (the schema's types of the roles 'place' and 'time'), then the event's own sentence when it
  names the entity, then the first sentence of the event's scene naming the entity; else,
  between two entities, the first sentence of its scenes naming both; a link between two
  events needs the quote, and cites each event's own line beside it.
- entity: for a place or a time the first heading of its scenes naming it; else the first
  sentence of its scenes naming it (its name or an alias).
- event: the sentence of its scene that best matches its title and description (rapidfuzz
  token_set_ratio of at least `EVENT_MATCH`, sharing a content word); else the first
  sentence of its scene naming one of the entities it is linked to.

Participants: a sentence that shows nobody and nothing of a fact is no evidence of it, whatever
the model says (`shows_participants`). An event's sentence must name or refer to at least one of
the entities the answer links to it (when it links any); the sentence a relation's quote is found
in must name or refer to one of its ends that are not events, and its scene (or the scene before)
must name or hear the others. To name or refer to (`refers_to`) is: a name, an alias, a word of a
multi-word name (in Chinese two of its characters, or 老/小/阿 and its family name), being the
speaker of the sentence, a place or time its scene's heading names, or a pronoun or title that
can stand for the participant because the scene (or the one before it) names it. A sentence that
fails is passed over as if it did not match or hold the quote, and the next rule above is tried;
a fact left without evidence is dropped and counted with its reason. So 'Vader destroys
Alderaan' citing Jamal's 'Uh, never mind.' is dropped, and 'She floors it.' still shows Margo and
the Mustang when the scene names them.

Names are matched as whole words, case-insensitively (`kgbuild.evidence.locate_names`), outside
the scene headings, which are read only where a rule above says so: 'EXT. BRICK'S PATIO - DAY'
names a place, not Brick. Every quote is verbatim text of the lines its evidence names.

Example:
    >>> entities, relations, dropped = ground_facts(screenplay, entities, relations, quotes,
    ...                                             producer=extraction_producer("gpt-4o-mini"))
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, utils

from kgbuild.evidence import (
    best_sentence,
    heading_evidence,
    locate_names,
    locate_quote,
    name_pattern,
    quote_evidence,
    sentences,
)
from kgbuild.graph import merge_evidence
from kgbuild.llm.prompts import load_prompt
from kgbuild.model import Element, ElementKind, Entity, Evidence, Relation, Scene, Screenplay
from kgbuild.names import has_cjk
from kgbuild.schema import Role, Schema, load_schema

logger = logging.getLogger(__name__)

#: Roles of the entity types a scene heading names (its place parts and time of day).
HEADING_ROLES: tuple[Role, ...] = ("place", "time")
#: The rapidfuzz token_set_ratio (0-100) a sentence needs to stand for an event.
EVENT_MATCH = 50.0
#: Content words an event's sentence must share with its title and description.
EVENT_SHARED_WORDS = 1
#: Words an event's sentence needs: a one-word line ('DEAD!') matches any event using the word.
EVENT_MIN_WORDS = 2
#: How long, relative to the model's quote, an element must be to hold it; shorter lines (a cue
#: 'STEEL') would match inside any quote that contains them.
QUOTE_MIN_SHARE = 0.5
#: English function words, which make token_set_ratio find likeness in any two sentences.
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "from",
    "into", "onto", "off", "out", "up", "down", "over", "as", "is", "are", "was", "were", "be", "been",
    "being", "am", "do", "does", "did", "has", "have", "had", "it", "its", "this", "that", "these", "those",
    "there", "then", "than", "so", "not", "no", "he", "him", "his", "she", "her", "hers", "they", "them",
    "their", "we", "us", "our", "you", "your", "i", "me", "my", "who", "whom", "what", "which", "when",
    "where", "while", "all", "any", "some",
})
#: Element kinds an event's sentence is taken from (headings and cues tell no event).
_EVENT_KINDS = frozenset({ElementKind.ACTION, ElementKind.DIALOGUE, ElementKind.PARENTHETICAL,
                          ElementKind.LYRIC, ElementKind.CENTERED, ElementKind.SHOT})
_CJK = re.compile(r"[\u3400-\u9fff]")
#: Concrete cases kept in the count for each reason, for the report.
_EXAMPLES = 10
#: Why a fact was left out (`UngroundedFacts.reasons`).
NO_EVIDENCE = "no line of its scenes shows it"
NO_PARTICIPANT = "its lines name none of its participants"
END_LEFT_OUT = "an end was left out"
SCENE_OUTSIDE_CHUNK = "its scene is outside its chunk"


class UngroundedFacts(BaseModel):
    """Facts of the model's answers left out of the graph: the screenplay text shows none of them."""

    model_config = ConfigDict(extra="forbid")

    entities: int = Field(default=0, description="Entities (events included) without evidence.")
    relations: int = Field(default=0, description="Relations without evidence or with an end left out.")
    examples: list[str] = Field(default_factory=list, description="A few of them for each reason, for the report.")
    reasons: dict[str, int] = Field(default_factory=dict, description="How many facts were left out for "
                                    "each reason (`NO_EVIDENCE`, `NO_PARTICIPANT`, `END_LEFT_OUT`, "
                                    "`SCENE_OUTSIDE_CHUNK`).")

    @property
    def total(self) -> int:
        """Entities and relations left out."""
        return self.entities + self.relations

    def add(self, kind: Literal["entity", "relation"], example: str, reason: str = "", detail: str = "") -> None:
        """Count one fact left out ('entity' or 'relation') for `reason` (`NO_EVIDENCE` when not
        given) and keep it as an example, with the reason and `detail` after a colon, while that
        reason has few."""
        if kind == "entity":
            self.entities += 1
        else:
            self.relations += 1
        why = reason or NO_EVIDENCE
        self.reasons[why] = self.reasons.get(why, 0) + 1
        if self.reasons[why] <= _EXAMPLES:
            said = f"{reason} ({detail})" if reason and detail else reason
            self.examples.append(f"{example}: {said}" if said else example)


def extraction_producer(model: str | None) -> str:
    """The `Evidence.producer` of facts from the extraction prompt: 'llm:MODEL/extract@VERSION'.

    Args:
        model: The model name; 'unknown' stands in when None.

    Example:
        >>> extraction_producer("gpt-4o-mini")
        'llm:gpt-4o-mini/extract@3'
    """
    prompt = load_prompt("extract")
    return f"llm:{model or 'unknown'}/{prompt.name}@{prompt.version}"


def names_of(entity: Entity) -> list[str]:
    """The surface forms an entity goes by: its name, then its aliases."""
    return [entity.name, *entity.aliases]


def _heading(scene: Scene) -> Element | None:
    element = next((el for el in scene.elements if el.kind is ElementKind.SCENE_HEADING), None)
    if element is None and scene.heading:
        line = scene.line_span[0]
        element = Element(kind=ElementKind.SCENE_HEADING, text=scene.heading, line_start=line, line_end=line)
    return element


def heading_naming(scenes: Iterable[Scene], forms: list[str], producer: str) -> Evidence | None:
    """The first of these scenes' headings that names one of `forms`, as evidence.

    Args:
        scenes: Where to look, in order.
        forms: The surface forms of one thing (name and aliases).
        producer: What produced the fact.
    """
    for scene in scenes:
        heading = _heading(scene)
        if heading is None:
            continue
        alone = scene.model_copy(update={"elements": [heading]})
        if locate_names([alone], [forms], producer) is not None:
            return heading_evidence(scene, producer)
    return None


def body(scenes: Iterable[Scene]) -> list[Scene]:
    """The scenes without their headings: a heading names places and times, and the possessive
    in 'BRICK'S PATIO' names no one."""
    return [s.model_copy(update={"elements": [el for el in s.elements if el.kind is not ElementKind.SCENE_HEADING]})
            for s in scenes]


def find_quote(scenes: Iterable[Scene], quote: str, producer: str, accept: LineCheck | None = None) -> Evidence | None:
    """`kgbuild.evidence.locate_quote` over the elements long enough to hold the quote
    (`QUOTE_MIN_SHARE` of its length): a short line inside a long quote is not the quote.
    With `accept`, only over the elements whose sentence holding the quote it accepts
    (`shows_participants`)."""
    least = QUOTE_MIN_SHARE * len(" ".join(quote.split()))
    long_enough = [s.model_copy(update={"elements": [
        el for el in s.elements if len(" ".join(el.text.split())) >= least
        and (accept is None or accept(s, el, best_sentence(el.text, quote)))]}) for s in scenes]
    return locate_quote(long_enough, quote, producer)


def _tokens(text: str) -> list[str]:
    """The words of a text, lower-cased; Chinese, written without spaces, as character pairs."""
    words = utils.default_process(text).split()
    if not _CJK.search(text):
        return words
    return [w[i:i + 2] for w in words for i in range(max(len(w) - 1, 1))]


def _words(text: str) -> set[str]:
    """The content words of a text (`_tokens` without the function words)."""
    return set(_tokens(text)) - _FUNCTION_WORDS


# -- participants: do the cited lines name or refer to who and what a fact is about? ----------

#: Third-person words that can stand for a person the scene names or hears: pronouns and the
#: plain nouns a screenplay uses for someone it has named ('the man', '众人').
PERSON_PRONOUNS = frozenset({
    "he", "him", "his", "himself", "she", "her", "hers", "herself", "they", "them", "their", "theirs",
    "themselves", "man", "men", "woman", "women", "boy", "boys", "girl", "girls", "guy", "guys", "lady",
    "ladies", "kid", "kids", "child", "children", "gentleman", "gentlemen", "everyone", "everybody", "both",
    "他", "她", "他们", "她们", "他俩", "她俩", "男人", "女人", "老人", "孩子", "小伙子", "姑娘", "众人", "大家",
    "两人", "二人", "俩人",
})
#: Words that can stand for a thing or place the scene names.
THING_PRONOUNS = frozenset({"it", "its", "itself", "they", "them", "their", "theirs", "它", "它们"})
#: Words of a speech that stand for someone the speaker talks to (anyone else the scene names or hears).
ADDRESSEE_PRONOUNS = frozenset({"you", "your", "yours", "yourself", "yourselves", "ya", "sir", "ma'am",
                                "madam", "你", "您", "你们", "你俩"})
#: Titles, each with the words that say the same: one in the cited lines refers to a participant
#: whose name, alias or description holds a word of the same group ('the doctor', 'Dr. Bennett').
TITLES: tuple[frozenset[str], ...] = tuple(frozenset(group) for group in (
    {"doctor", "dr", "doc", "physician", "医生", "大夫"},
    {"nurse", "护士"},
    {"mother", "mom", "mum", "mommy", "mama", "妈", "妈妈", "母亲", "老妈", "娘"},
    {"father", "dad", "daddy", "papa", "pops", "爸", "爸爸", "父亲", "老爸", "爹"},
    {"grandmother", "grandma", "granny", "nana", "奶奶", "外婆", "姥姥"},
    {"grandfather", "grandpa", "granddad", "gramps", "爷爷", "外公", "姥爷"},
    {"sister", "sis", "姐", "姐姐", "妹", "妹妹"},
    {"brother", "bro", "哥", "哥哥", "大哥", "弟", "弟弟"},
    {"son", "儿子"},
    {"daughter", "女儿"},
    {"wife", "老婆", "妻子", "媳妇", "前妻"},
    {"husband", "老公", "丈夫", "前夫"},
    {"aunt", "auntie", "阿姨", "姑姑"},
    {"uncle", "叔", "叔叔", "舅舅"},
    {"officer", "cop", "policeman", "policewoman", "deputy", "sheriff", "detective", "sergeant", "sarge",
     "lieutenant", "警察", "警官", "所长"},
    {"captain", "队长"},
    {"boss", "manager", "chief", "老板", "老板娘", "经理"},
    {"teacher", "professor", "老师"},
    {"lawyer", "attorney", "律师"},
    {"judge", "法官"},
    {"director", "主任", "院长"},
    {"driver", "司机"},
    {"waiter", "waitress", "bartender", "服务员"},
    {"king", "queen", "prince", "princess"},
))
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_PLAIN_WORD = re.compile(r"[^\W\d_]+")
#: A Chinese 他 or 它 inside 其他 / 其它 ('the other') is no pronoun.
_NOT_PRONOUN = re.compile(r"其[他它]")
#: What a Chinese name's first character (the family name) is called by: 老程, 小刘, 阿强.
_CJK_NAME_PREFIXES = "老小阿"


@dataclass(frozen=True)
class Participant:
    """One end of a fact as the participant check reads it.

    Attributes:
        names: Its name, then its aliases.
        person: Whether it is a person (he, she, the man...) or a thing, place or time (it).
        description: The model's description of it ('the Mustang's owner, a doctor'): where a
            title in the cited lines is looked up.
    """

    names: tuple[str, ...]
    person: bool = True
    description: str = ""


@dataclass(frozen=True)
class CitedLines:
    """The sentence a fact's evidence quotes, and the scene around it.

    Attributes:
        text: The sentence (or the whole text of the cited lines).
        speaker: Who speaks it, when it is part of a speech (its cue).
        heading: The heading of its scene: every line of a scene happens at the place (and
            time) it names.
        scene: The text of their scene without its heading, and of the scene before it (a
            pronoun of the lines can only stand for someone or something named there; a 'he'
            often carries over a cut: 'John stands at the door.' / 'INT. HER ROOM' / 'He slips
            inside.').
        scene_speakers: The cues heard in those scenes.
        is_heading: The cited lines are the heading: it names places and times, not people
            ('INT. NADIA'S BEDROOM' does not show Nadia).
    """

    text: str
    speaker: str | None = None
    heading: str = ""
    scene: str = ""
    scene_speakers: tuple[str, ...] = ()
    is_heading: bool = False


def name_forms(names: Iterable[str]) -> list[str]:
    """The forms a participant's names can take in a line: each name and alias; each word of a
    multi-word name (three letters or more, not a function word: 'Simmons' of 'Jim Simmons');
    of a Chinese name of three characters or more, each two characters running ('思慧' of
    '刘思慧'), and of one of two or more its first character after 老, 小 or 阿 ('老程' of '程勇').

    Example:
        >>> name_forms(["Jim Simmons", "程勇"])
        ['Jim Simmons', '程勇', 'Jim', 'Simmons', '老程', '小程', '阿程']
    """
    forms = [n.strip() for n in names if n and n.strip()]
    parts: list[str] = []
    for name in forms:
        for run in _CJK_RUN.findall(name):
            if len(run) >= 3:
                parts += [run[i:i + 2] for i in range(len(run) - 1)]
            if len(run) >= 2:
                parts += [prefix + run[0] for prefix in _CJK_NAME_PREFIXES]
        words = [w for w in _LATIN_WORD.findall(name) if not has_cjk(w)]
        if len(words) > 1:
            parts += [w for w in words if len(w) >= 3 and w.casefold() not in _FUNCTION_WORDS]
    return list(dict.fromkeys([*forms, *parts]))


def _says_word(text: str, words: Iterable[str]) -> str | None:
    """One of `words` the text holds: a Latin word as a whole word (case-insensitive; 'she' in
    "She's", 'ma'am' whole), a Chinese one anywhere (but 他 and 它 not inside 其他, 其它)."""
    plain = text.replace("’", "'")
    latin = {w.casefold() for w in [*_LATIN_WORD.findall(plain), *_PLAIN_WORD.findall(plain)]}
    chinese = _NOT_PRONOUN.sub("", text)
    for word in words:
        if (word in chinese) if has_cjk(word) else (word.casefold() in latin):
            return word
    return None


def _names(forms: list[str], text: str) -> bool:
    pattern = name_pattern(forms)
    return pattern is not None and pattern.search(text) is not None


def refers_to(participant: Participant, cited: CitedLines) -> str | None:
    """How the cited lines name or refer to a participant of a fact; None when they do not.

    The ways, tried in this order (the first that holds is returned):

    - 'name': a name, an alias or a part of a name (`name_forms`), as a whole word (anywhere in
      Chinese, which has no spaces), but a person never by a scene heading;
    - 'speaker': the lines are the participant's speech (its cue names it);
    - 'heading': for a thing, place or time, the heading of the lines' scene names it (the lines
      happen there: 'Cigarette cartons, lighters.' under 'INT. NADIA'S BEDROOM');
    - 'title': a title in the lines ('the doctor', '警官') of a group of `TITLES` whose words the
      participant's names or description hold ('Dr. Bennett', '王警官');
    - 'pronoun': for a person, a word of `PERSON_PRONOUNS` (he, she, they, the man, 他, 她...),
      or in a speech a word of `ADDRESSEE_PRONOUNS` (you, 你) when someone else speaks it; for a
      thing or place, a word of `THING_PRONOUNS` (it, 它) -- each only when the scene makes the
      reference possible: it (or the scene before it) names the participant, or hears it speak
      (`in_scene`).

    Gender and number are not checked ('she' can stand for a man the scene names): the check
    keeps out lines that show nobody of a fact, not every wrong reading.

    Example:
        >>> margo = Participant(names=("Margo Vance", "MARGO"))
        >>> refers_to(margo, CitedLines("She floors it.", scene="Margo guns the Mustang. She floors it."))
        'pronoun'
        >>> refers_to(margo, CitedLines("Uh, never mind.", speaker="JAMAL", scene="JAMAL Uh, never mind."))
    """
    forms = name_forms(participant.names)
    if cited.is_heading and participant.person:
        return None
    if _names(forms, cited.text):
        return "name"
    if cited.speaker is not None and _names(forms, cited.speaker):
        return "speaker"
    if not participant.person and _names(forms, cited.heading):
        return "heading"
    own = " ".join([*participant.names, participant.description])
    for group in TITLES:
        if _says_word(cited.text, group) is not None and _says_word(own, group) is not None:
            return "title"
    if not in_scene(participant, cited):
        return None
    if not participant.person:
        return "pronoun" if _says_word(cited.text, THING_PRONOUNS) is not None else None
    if _says_word(cited.text, PERSON_PRONOUNS) is not None:
        return "pronoun"
    spoken_to = cited.speaker is not None and not _names(forms, cited.speaker)
    if spoken_to and _says_word(cited.text, ADDRESSEE_PRONOUNS) is not None:
        return "pronoun"
    return None


def in_scene(participant: Participant, cited: CitedLines) -> bool:
    """Whether the scene of the cited lines (or the scene before it) names the participant (a
    form of `name_forms`, in the text or, for a thing, place or time, the heading of the lines'
    scene) or hears it speak."""
    forms = name_forms(participant.names)
    return (_names(forms, cited.scene) or any(_names(forms, cue) for cue in cited.scene_speakers)
            or (not participant.person and _names(forms, cited.heading)))


def shows_participants(participants: list[Participant], cited: CitedLines, *, every_in_scene: bool) -> bool:
    """The participant check of one fact's cited lines: they name or refer to at least one of its
    participants (`refers_to`), and with `every_in_scene` (a relation's ends) each of the others
    is at least named or heard in the scene (`in_scene`): 'Uh, never mind.' shows nobody of
    'Vader destroys Alderaan', and a line naming John shows no 'John -part_of-> ...' whose other
    end the scene never names. A fact without participants passes."""
    if not participants:
        return True
    found = [refers_to(p, cited) is not None for p in participants]
    if every_in_scene and not all(ok or in_scene(p, cited) for p, ok in zip(participants, found, strict=True)):
        return False
    return any(found)


def cited_lines(scene: Scene, element: Element, before: Scene | None = None) -> CitedLines:
    """The `CitedLines` of one element of a scene (its whole text; grounding replaces it with the
    sentence quoted): its speaker, the scene's heading, and the text and cues of the scene and of
    the scene `before` it, if given."""
    around = [*(before.elements if before is not None else []), *scene.elements]
    cues = tuple(dict.fromkeys(el.speaker for el in around if el.speaker))
    text = " ".join(el.text for el in around if el.kind is not ElementKind.SCENE_HEADING)
    speaker = element.speaker if element.kind in (ElementKind.DIALOGUE, ElementKind.PARENTHETICAL,
                                                  ElementKind.LYRIC) else None
    heading = _heading(scene)
    return CitedLines(text=element.text, speaker=speaker, heading=heading.text if heading is not None else "",
                      scene=text, scene_speakers=cues, is_heading=element.kind is ElementKind.SCENE_HEADING)


#: Whether a sentence of one element of a scene may be a fact's evidence (`_Grounder.shows`).
LineCheck = Callable[[Scene, Element, str], bool]


def event_sentence(scenes: Iterable[Scene], event: Entity, producer: str,
                   accept: LineCheck | None = None) -> Evidence | None:
    """The sentence of these scenes that best matches an event's title and description.

    A sentence qualifies with a token_set_ratio of at least `EVENT_MATCH`, at least
    `EVENT_SHARED_WORDS` content words in common (function words alone make any two sentences
    look alike) and at least `EVENT_MIN_WORDS` words; the highest ratio wins, then the most
    shared words, then the earliest. With `accept`, only sentences it accepts qualify
    (`shows_participants`).

    Returns:
        Evidence quoting that sentence, or None when no sentence qualifies.
    """
    query = f"{event.name} {event.description}".strip()
    wanted = _words(query)
    best: tuple[float, int, Scene, Element, str] | None = None
    for scene in scenes:
        for el in scene.elements:
            if el.kind not in _EVENT_KINDS:
                continue
            for sentence in sentences(el.text):
                shared = len(wanted & _words(sentence))
                if shared < EVENT_SHARED_WORDS or len(_tokens(sentence)) < EVENT_MIN_WORDS:
                    continue
                if accept is not None and not accept(scene, el, sentence):
                    continue
                score = fuzz.token_set_ratio(query, sentence, processor=utils.default_process)
                if score >= EVENT_MATCH and (best is None or (score, shared) > best[:2]):
                    best = (score, shared, scene, el, sentence)
    if best is None:
        return None
    _, _, scene, el, sentence = best
    return quote_evidence(scene, el, sentence, producer)


class _Grounder:
    """Finds evidence for the facts of one assembled graph."""

    def __init__(self, screenplay: Screenplay, entities: list[Entity], relations: list[Relation],
                 producer: str, schema: Schema):
        self.scenes = {s.index: s for s in screenplay.scenes}
        self.entities = {e.id: e for e in entities}
        self.relations = relations
        self.producer = producer
        self.event = schema.type_for_role("event")
        self.person = schema.type_for_role("person")
        self.heading_types = {t for role in HEADING_ROLES if (t := schema.type_for_role(role)) is not None}
        self._cited: dict[tuple[int, int], CitedLines] = {}

    def cited(self, scene: Scene, element: Element) -> CitedLines:
        """`cited_lines`, kept per element (the scene's text is joined once per element; a cue and
        its speech can share a line, so the element itself is the key: the scenes grounding
        reads are copies holding the screenplay's own elements)."""
        key = (scene.index, id(element))
        found = self._cited.get(key)
        if found is None:
            found = self._cited[key] = cited_lines(self.scenes.get(scene.index, scene), element,
                                                   self.scenes.get(scene.index - 1))
        return found

    def participant(self, entity: Entity) -> Participant:
        """An entity as the participant check reads it."""
        return Participant(names=tuple(names_of(entity)), person=entity.type == self.person,
                           description=entity.description)

    def shows(self, ends: list[Entity], *, every_in_scene: bool) -> LineCheck:
        """`shows_participants` of `ends` as a check of the lines of one element."""
        participants = [self.participant(e) for e in ends]

        def check(scene: Scene, element: Element, sentence: str) -> bool:
            cited = replace(self.cited(scene, element), text=sentence)
            return shows_participants(participants, cited, every_in_scene=every_in_scene)

        return check

    def scenes_of(self, indices: Iterable[int]) -> list[Scene]:
        """The screenplay's scenes with these indices, in story order."""
        return [self.scenes[i] for i in sorted(set(indices)) if i in self.scenes]

    def linked(self, event: Entity) -> list[Entity]:
        """The non-event entities an event is linked to, in relation order."""
        ids = [r.target if r.source == event.id else r.source for r in self.relations
               if event.id in (r.source, r.target)]
        ends = [self.entities[i] for i in dict.fromkeys(ids) if i in self.entities]
        return [e for e in ends if e.type != self.event]

    def entity(self, entity: Entity) -> tuple[list[Evidence], str]:
        """Evidence for an entity (see the module docstring); [] when the text shows none, with
        the reason (`NO_PARTICIPANT` when only lines showing none of an event's participants
        matched it, else `NO_EVIDENCE`)."""
        scenes = self.scenes_of(entity.scenes)
        found: Evidence | None = None
        if entity.type == self.event:
            linked = self.linked(entity)
            found = event_sentence(scenes, entity, self.producer, accept=self.shows(linked, every_in_scene=False))
            forms = [f for end in linked for f in names_of(end)]
            if found is None and forms:
                found = locate_names(body(scenes), [forms], self.producer)
            if found is not None:
                return [found], ""
            passed_over = event_sentence(scenes, entity, self.producer) is not None
            return [], NO_PARTICIPANT if passed_over else NO_EVIDENCE
        if entity.type in self.heading_types:
            found = heading_naming(scenes, names_of(entity), self.producer)
        if found is None:
            found = locate_names(body(scenes), [names_of(entity)], self.producer)
        return ([found], "") if found is not None else ([], NO_EVIDENCE)

    def relation(self, relation: Relation, quotes: list[str],
                 grounded: dict[str, Entity]) -> tuple[list[Evidence], str]:
        """Evidence for a relation (see the module docstring); [] when the text shows none, with
        the reason (`NO_PARTICIPANT` when its quote was found only in lines showing not all of
        its ends, else `NO_EVIDENCE`). `grounded` holds the entities with their evidence: a link
        between two events also cites each event's own line, so the evidence shows both ends."""
        scenes = self.scenes_of(relation.scenes)
        subject, obj = self.entities.get(relation.source), self.entities.get(relation.target)
        events = [e for e in (subject, obj) if e is not None and e.type == self.event]
        ends = [e for e in (subject, obj) if e is not None and e.type != self.event]
        accept = self.shows(ends, every_in_scene=True)
        given = [q for q in quotes if q.strip()]
        found = [e for q in given if (e := find_quote(scenes, q, self.producer, accept)) is not None]
        if found and len(events) == 2:
            cited = [ev for e in events if e.id in grounded for ev in grounded[e.id].evidence[:1]]
            return merge_evidence(found, cited), ""
        if found:
            return merge_evidence(found), ""
        fallback = self._fallback(relation, subject, obj, events, scenes, grounded)
        if fallback:
            return fallback, ""
        passed_over = any(find_quote(scenes, q, self.producer) is not None for q in given)
        return [], NO_PARTICIPANT if passed_over else NO_EVIDENCE

    def _fallback(self, relation: Relation, subject: Entity | None, obj: Entity | None, events: list[Entity],
                  scenes: list[Scene], grounded: dict[str, Entity]) -> list[Evidence]:
        """A relation's evidence when no quote of the model shows it (module docstring)."""
        if subject is None or obj is None:
            return []
        ends = [subject, obj]
        if len(events) == 2:
            return []
        fallback: Evidence | None = None
        if events:
            other = next(e for e in ends if e.type != self.event)
            if other.type in self.heading_types:
                fallback = heading_naming(scenes, names_of(other), self.producer)
            if fallback is None:
                fallback = _own_line_naming(grounded.get(events[0].id), other, set(relation.scenes), self.producer)
            if fallback is None:
                fallback = locate_names(body(scenes), [names_of(other)], self.producer)
        else:
            fallback = locate_names(body(scenes), [names_of(subject), names_of(obj)], self.producer)
        return [fallback] if fallback is not None else []


def _own_line_naming(event: Entity | None, other: Entity, scenes: set[int], producer: str) -> Evidence | None:
    """The event's own sentence in one of the link's scenes, when it names the entity linked to
    it: 'John performs John swerves onto the hard shoulder' cites the swerve, not the scene's
    first line naming John."""
    own = next((ev for ev in event.evidence if ev.scene in scenes), None) if event is not None else None
    pattern = name_pattern(names_of(other))
    if own is None or pattern is None or not pattern.search(own.quote):
        return None
    return own.model_copy(update={"producer": producer})


def ground_facts(screenplay: Screenplay, entities: list[Entity], relations: list[Relation],
                 quotes: dict[str, list[str]], *, producer: str, schema: Schema | None = None
                 ) -> tuple[list[Entity], list[Relation], UngroundedFacts]:
    """Give every fact evidence from the screenplay; leave out and count those the text does not show.

    Args:
        screenplay: The screenplay the facts were extracted from (scene text and line numbers).
        entities: The assembled entities (events included); their scenes say where to look.
        relations: The assembled relations; their scenes say where to look.
        quotes: Relation id -> the quotes the model gave for it.
        producer: The producer of the evidence (`extraction_producer`).
        schema: The schema (its event, place and time types); the default STAGE-KG schema when None.

    Returns:
        The entities and relations with evidence (inputs are not changed), in input order, and
        the count of what was left out: entities without evidence, relations without evidence
        and relations whose subject or object was left out.
    """
    grounder = _Grounder(screenplay, entities, relations, producer, schema or load_schema())
    dropped = UngroundedFacts()
    kept_entities: list[Entity] = []
    for entity in entities:
        found, reason = grounder.entity(entity)
        evidence = merge_evidence(entity.evidence, found)
        if evidence:
            kept_entities.append(entity.model_copy(update={"evidence": evidence}))
        else:
            dropped.add("entity", f"{entity.type} '{entity.name}' (scenes {_scene_list(entity.scenes)})",
                        "" if reason == NO_EVIDENCE else reason)
    grounded = {e.id: e for e in kept_entities}
    kept_ids = set(grounded)
    names = {e.id: e.name for e in entities}
    kept_relations: list[Relation] = []
    for rel in relations:
        label = (f"'{names.get(rel.source, rel.source)}' -{rel.type}-> '{names.get(rel.target, rel.target)}' "
                 f"(scenes {_scene_list(rel.scenes)})")
        if rel.source not in kept_ids or rel.target not in kept_ids:
            dropped.add("relation", label, END_LEFT_OUT)
            continue
        found, reason = grounder.relation(rel, quotes.get(rel.id, []), grounded)
        evidence = merge_evidence(rel.evidence, found)
        if evidence:
            kept_relations.append(rel.model_copy(update={"evidence": evidence}))
        else:
            dropped.add("relation", label, "" if reason == NO_EVIDENCE else reason)
    if dropped.total:
        logger.info("grounding: %d entities and %d relations the text does not show were left out",
                    dropped.entities, dropped.relations)
    return kept_entities, kept_relations, dropped


def _scene_list(scenes: list[int]) -> str:
    return ", ".join(map(str, scenes)) or "none"

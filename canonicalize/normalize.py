"""Normalization before merge (STAGE app. C.2): bring entity names into a comparable form.

A name becomes a `NormalizedName`: a comparison key (NFKC so full- and half-width forms meet,
case-folded, curly quotes straightened, whitespace collapsed, leading articles and a trailing
possessive removed), the honorific kept apart (comparable, never discarded: `Mr. Smith` and
`Smith` can meet, `Mr. Smith` and `Mrs. Smith` cannot), and the version markers that must keep
two mentions apart (`YOUNG`, `OLD`, `#2`, `-2012`, roman numerals...). A name that cannot be
normalized (empty, a pronoun, a relative reference such as "his wife", an over-long phrase) is
marked `comparable=False`; such mentions are kept apart and never merged.

Example:
    >>> n = normalize_name("Mr. Angier's", person=True)
    >>> (n.key, n.honorific, n.comparable)
    ('angier', 'mr', True)
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.model import Entity, Scope
from kgbuild.schema import Schema, load_schema

_CJK = re.compile(r"[\u3400-\u9fff]")
_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[\w#]+(?:[.'’\-][\w#]+)*\.?", re.UNICODE)
_ARTICLES = {"the", "a", "an"}
#: Words that make a mention a relative reference ("his wife"): it names no one by itself.
_RELATIVE = {"his", "her", "my", "your", "their", "our", "its", "this", "that", "these", "those",
             "some", "another", "one", "every", "each"}
_PRONOUNS = {
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "he", "him", "his",
    "himself", "she", "her", "hers", "herself", "it", "its", "itself", "we", "us", "our", "ours",
    "ourselves", "they", "them", "their", "theirs", "themselves", "who", "whom", "whose", "which",
    "that", "this", "these", "those", "someone", "somebody", "everyone", "anyone", "nobody", "y'all",
    "我", "你", "您", "他", "她", "它", "我们", "你们", "他们", "她们", "咱们", "自己", "大家", "谁",
}
HONORIFICS = {
    "mr", "mrs", "ms", "miss", "mister", "madam", "madame", "mme", "dr", "doctor", "prof", "professor",
    "sir", "dame", "lady", "lord", "det", "detective", "officer", "capt", "captain", "sgt", "sergeant",
    "lt", "lieutenant", "agent", "chief", "judge", "coach", "general", "gen", "colonel", "col",
    "major", "maj", "private", "pvt", "corporal", "cpl", "inspector", "father", "fr", "sister",
    "brother", "uncle", "aunt", "auntie", "king", "queen", "prince", "princess", "reverend", "rev",
    "senator", "president", "mayor", "sheriff", "deputy", "nurse", "master", "saint", "st",
}
#: Abbreviated titles and the full form they are stored under ('Sgt. Pola' meets 'Sergeant Pola').
TITLE_FULL_FORMS = {"maj": "major", "sgt": "sergeant", "lt": "lieutenant", "capt": "captain",
                    "dr": "doctor", "det": "detective", "prof": "professor", "col": "colonel",
                    "gen": "general", "pvt": "private", "cpl": "corporal", "rev": "reverend", "fr": "father",
                    "mister": "mr", "st": "saint"}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Roles, relations and devices that speak in screenplays: never the short form of a personal name.
ROLE_WORDS = _words("""
    man woman boy girl kid child lady gentleman guy people person stranger friend crowd voice voices
    mother father mom dad mum wife husband son daughter brother sister uncle aunt grandmother
    grandfather grandma grandpa baby cousin fiance fiancee boyfriend girlfriend clerk security guard
    officer cop cops police doctor nurse waiter waitress driver agent reporter bartender
    receptionist secretary operator manager boss owner teller pilot soldier worker chief captain
    sergeant detective sheriff deputy judge lawyer priest teacher student assistant attendant host
    hostess executive exec producer director actor actress fan crew thug killer customer passenger
    announcer narrator phone machine recording radio tv television computer intercom speaker 经理 老板
    警察 医生 司机 保安 服务员 老师 父亲 母亲 爸爸 妈妈 儿子 女儿 妻子 丈夫 局长 队长 护士 老人
    男人 女人 孩子 店员 秘书 助理 律师 法官 记者
""")
#: Words marking a life stage (a closed class: the same person at another age).
LIFE_STAGE_WORDS = frozenset({"young", "younger", "old", "older", "aged", "little", "baby", "adult", "teen",
                              "teenage", "teenaged", "elderly", "child", "kid"})
#: Words marking a life stage or a parallel version of a character ('Good Cop Bob' and 'Bad Cop
#: Bob', 'Future Marty'): mentions differing in them are never merged.
STAGE_WORDS = LIFE_STAGE_WORDS | {"future", "past", "evil", "bad", "good", "fake", "real", "original",
                                  "alternate"}
_CJK_STAGE = ("年轻的", "年轻", "少年", "青年", "中年", "老年", "童年", "幼年", "小时候的")
_CJK_HONORIFIC_SUFFIX = ("先生", "小姐", "太太", "女士", "夫人", "师傅", "老师", "医生", "大夫", "警官")
#: Ordinals mark numbered instances ("second ghost").
ORDINALS = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th"}
_ROMAN = re.compile(r"^(?:ii|iii|iv|v|vi|vii|viii|ix|x)$")
_NUMBERED = re.compile(r"^#?\d+[a-z]?$")
_YEAR_SUFFIX = re.compile(r"(?<=[^\W\d_])[-–]\s*(\d{2,4})$")
_LETTER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_GLUED_TITLE = re.compile(r"^(mr|mrs|ms|dr|st|lt|sgt|det|maj|capt|col|gen)\.(?=\w)")
#: Names with more words than this are descriptions, not names.
MAX_NAME_TOKENS = 8


class NormalizedName(BaseModel):
    """The comparable form of one name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    raw: str = Field(description="The name as written.")
    display: str = Field(description="Whitespace collapsed, appositions and parentheticals cut.")
    key: str = Field(description="Comparison key: tokens of the core name joined by single spaces.")
    tokens: tuple[str, ...] = Field(description="Tokens of the key (for CJK: the key as one token).")
    honorific: str | None = Field(
        default=None, description="Leading title, case-folded, abbreviations spelled out ('sgt' -> 'sergeant').")
    article: str | None = Field(default=None, description="Leading article, kept apart like a title.")
    versions: tuple[str, ...] = Field(
        default=(), description="Life-stage words, numbers, years: mentions differing here never merge.")
    cjk: bool = False
    generic: bool = Field(default=False, description="Written as a common noun phrase ('the driver').")
    comparable: bool = Field(default=True, description="False: kept apart and never merged.")
    reason: str = Field(default="", description="Why the name is not comparable.")


def fold(text: str) -> str:
    """NFKC (full-width to half-width), case-folded, straight quotes, collapsed whitespace."""
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'").casefold()
    return _SPACE.sub(" ", text).strip()


def _core(raw: str, person: bool) -> str:
    """The name part of a mention: parentheticals cut; for a person also appositions and
    descriptions ('BYRON HADLEY, captain of the guard', 'HARRY -60s, tall')."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", raw)).strip()
    text = re.sub(r"\s*[(\[（].*?[)\]）]\s*", " ", text).strip()
    if person:
        text = re.split(r",|\s[-–—]\s?|：", text, maxsplit=1)[0].strip()
    return text.strip(" .;!?\"'")


def _cjk_name(raw: str, display: str) -> NormalizedName:
    key = fold(display).replace(" ", "").replace("·", "").replace("•", "")
    versions: list[str] = []
    for word in _CJK_STAGE:
        if key.startswith(word) and len(key) > len(word) + 1:
            versions.append(word)
            key = key[len(word):]
            break
    honorific = None
    for suffix in _CJK_HONORIFIC_SUFFIX:
        if key.endswith(suffix) and len(key) > len(suffix):
            honorific, key = suffix, key[: -len(suffix)]
            break
    if key.endswith("的") and len(key) > 1:
        key = key[:-1]
    reason = ""
    if not key:
        reason = "empty"
    elif key in _PRONOUNS:
        reason = "pronoun"
    elif len(key) > 16:
        reason = "too long for a name"
    return NormalizedName(raw=raw, display=display, key=key, tokens=(key,) if key else (),
                          honorific=honorific, versions=tuple(versions), cjk=True,
                          comparable=not reason, reason=reason)


def normalize_name(raw: str, *, person: bool = False) -> NormalizedName:
    """Normalize one entity name for comparison.

    Args:
        raw: The name as extracted or written in the screenplay.
        person: A character's name: titles are set apart, appositions cut and a trailing
            possessive dropped ("RUMLOW'S" is Rumlow; a place called "Newberry's" is not Newberry,
            and a "master bathroom" is not a bathroom with a title).

    Returns:
        Its comparable form; `comparable=False` (with a reason) when it cannot be normalized.
    """
    display = _core(raw, person) or _SPACE.sub(" ", raw).strip()
    if _CJK.search(display):
        return _cjk_name(raw, display)
    text = _GLUED_TITLE.sub(r"\1. ", fold(display))
    year = _YEAR_SUFFIX.search(text)
    versions: list[str] = []
    if year:
        versions.append(year.group(1))
        text = text[: year.start()].strip()
    words = [p.rstrip(".") for w in _TOKEN.findall(text) for p in _LETTER_HYPHEN.split(w)]
    words = [w for w in words if w and w != "#"]
    generic = False
    reason = ""
    article = None
    if words and words[0] in _RELATIVE and len(words) > 1:
        reason = "relative reference"
    while words and words[0] in _ARTICLES:
        generic, article = True, words[0]
        words = words[1:]
    if person and words and re.search(r"'s$|s'$", words[-1]):
        words[-1] = re.sub(r"'s$|'$", "", words[-1])
    honorific = None
    if person and len(words) > 1 and words[0] in HONORIFICS:
        honorific, words = TITLE_FULL_FORMS.get(words[0], words[0]), words[1:]
    core: list[str] = []
    for word in words:
        if word in STAGE_WORDS or word in ORDINALS or _NUMBERED.match(word) or _ROMAN.match(word):
            versions.append(word.lstrip("#"))
        if word not in STAGE_WORDS:
            core.append(word)
    core = [w.replace("'", "") for w in core]
    if not display[:1].isupper() and not display.isupper():
        generic = True
    key = " ".join(core)
    if not reason:
        if not key:
            reason = "empty"
        elif len(core) == 1 and core[0] in _PRONOUNS:
            reason = "pronoun"
        elif len(core) > MAX_NAME_TOKENS:
            reason = "too long for a name"
    return NormalizedName(raw=raw, display=display, key=key, tokens=tuple(core), honorific=honorific,
                          article=article, versions=tuple(sorted(set(versions))), generic=generic,
                          comparable=not reason, reason=reason)


def honorifics_compatible(a: NormalizedName, b: NormalizedName) -> bool:
    """Titles never contradict: equal, or at most one of the two names has one."""
    return a.honorific is None or b.honorific is None or a.honorific == b.honorific


class NormalizedEntity(BaseModel):
    """An entity ready for merging: its normalized name and its reconciled type and scope."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entity: Entity
    name: NormalizedName
    type: str = Field(description="The type reconciled across mentions with the same key.")
    scope: Scope


def normalize_entities(entities: list[Entity], *, schema: Schema | None = None) -> list[NormalizedEntity]:
    """Normalize every entity; reconcile types and scope across mentions sharing a key.

    Names of the schema's person type are personal names (appositions cut, possessives dropped,
    titles kept apart). Mentions whose keys are equal (and that carry the same version markers)
    get the majority type among them (ties: the schema's `type_priority`) and global scope if
    any is global.

    Args:
        entities: The entities (or raw mentions) to compare.
        schema: The schema; the default STAGE-KG schema when None.

    Returns:
        One `NormalizedEntity` per input, in input order (inputs are not changed).
    """
    schema = schema or load_schema()
    person, rank = schema.type_for_role("person"), schema.type_rank
    names = [normalize_name(e.name, person=e.type == person) for e in entities]
    types: dict[tuple[str, tuple[str, ...]], Counter[str]] = defaultdict(Counter)
    scopes: dict[tuple[str, tuple[str, ...]], set[Scope]] = defaultdict(set)
    for ent, name in zip(entities, names, strict=True):
        if name.comparable:
            types[(name.key, name.versions)][ent.type] += 1
            scopes[(name.key, name.versions)].add(ent.scope)

    out = []
    for ent, name in zip(entities, names, strict=True):
        etype, scope = ent.type, ent.scope
        if name.comparable:
            counts = types[(name.key, name.versions)]
            etype = max(counts, key=lambda t: (counts[t], -rank(t)))
            scope = Scope.GLOBAL if Scope.GLOBAL in scopes[(name.key, name.versions)] else ent.scope
        out.append(NormalizedEntity(entity=ent, name=name, type=etype, scope=scope))
    return out

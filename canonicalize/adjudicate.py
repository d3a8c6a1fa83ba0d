"""Adjudication of a candidate cluster: which mentions are one entity, under which name.

Two adjudicators give the same `Verdict`:

- `adjudicate_offline`: rules, precision first. Mentions merge when their normalized names are
  equal (for persons: no family title against another title; 'Detective Kincaid' meets
  'Kincaid', 'Mr. Newberry' does not meet 'Newberry'), differ by one letter in a long word, or
  when one is
  - (the type of the role 'person') the unambiguous first name or surname of the other and
    not a role word ("Clerk" is not the short form of "Woman Clerk"), or a given name against
    its pet form ('Scott' / 'Scotty'), or a formal given name against its familiar form with
    the same surname ('Nicholas Wilde' / 'Nick Wilde');
  - (types with the merge rule head_noun: objects, concepts) the other's only longer form
    around the same head noun ('Cane' / 'Cane With Four Tennis Balls'; never someone's own
    object against a bare one);
  - (types with the merge rule generic_tail: places, concepts) the other's only form with a
    generic tail or a qualifier ('New York' / 'New York City', 'Grosse Pointe' /
    'Grosse Pointe, Michigan');
  - (Chinese names, not persons) the other with a generic head, or (places) a story place
    in front ('重庆' / '重庆市', '金楼' / '佛山金楼').
  Which types are persons, places, or opt into a rule, the schema says (`kgbuild.schema`).
- `adjudicate_llm`: asks the configured LLM with the merge rules of STAGE's Figure 9 (our own
  wording, in the versioned prompt file `kgbuild/llm/prompts/adjudicate.md`). A reply that
  never validates, or that names a mention twice, or a server failing through every retry,
  keeps the whole cluster apart and is logged; a refused request, the budget and batch-export
  mode are raised and stop the merge stage.

Both obey the screenplay's hard constraints (`kgbuild.canonicalize.constraints`): accepted groups
are split where two members cannot be one entity, and life-stage pairs are linked, not merged.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.canonicalize.constraints import Candidate, cannot_link, life_stage_link, split_by_constraints
from kgbuild.canonicalize.normalize import ROLE_WORDS, NormalizedName, fold, normalize_name
from kgbuild.llm.prompts import load_prompt
from kgbuild.llm.types import ANSWER_ERRORS, ChatMessage, LLMOutputError, StructuredLLM
from kgbuild.schema import Schema, load_schema

logger = logging.getLogger(__name__)

#: Common Chinese surnames: '小澍' is the given name of '程小澍' because '程' is a surname;
#: '前妻' is not a name of '程勇前妻'.
CHINESE_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚"
    "卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤宫叶"
) | {"欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "令狐", "慕容", "司徒", "尉迟"}
#: Generic heads a CJK name may carry or drop ('重庆市' / '重庆', '洞子火锅店' / '洞子火锅', '咏春拳' / '咏春').
CJK_GENERIC_SUFFIXES = frozenset(
    {"市", "省", "县", "区", "镇", "村", "店", "馆", "楼", "大楼", "大厦", "公司", "集团", "拳"})
#: Words after which an English noun phrase only qualifies its head ('cane with tennis balls').
_POST_MODIFIERS = frozenset({"of", "with", "for", "from", "in", "on", "at"})
#: A possessor in front of a name ("ellie's mailbox").
_POSSESSOR = re.compile(r"^(.+?)'s?\s")
#: Endings that turn a given name into its pet form (Scott -> Scotty, Ann -> Annie).
_PET_ENDINGS = frozenset({"y", "ie", "ey", "i"})
#: English given names and the familiar forms that stand for them ('Peggy Carter' is 'Margaret Carter').
_FAMILIAR_FORMS = {
    "robert": "bob bobby rob robbie bert", "william": "bill billy will willie liam", "richard": "dick rick ricky rich",
    "margaret": "peggy maggie meg marge margie greta", "elizabeth": "liz lizzie beth betty betsy eliza libby",
    "henry": "hank harry hal", "nicholas": "nick nicky", "james": "jim jimmy jamie", "john": "jack johnny",
    "edward": "ed eddie ted teddy ned", "theodore": "ted teddy theo", "charles": "charlie chuck chas",
    "thomas": "tom tommy", "joseph": "joe joey", "michael": "mike mikey mick", "daniel": "dan danny",
    "anthony": "tony", "steven": "steve", "stephen": "steve", "samuel": "sam sammy", "benjamin": "ben benny",
    "alexander": "alex sasha", "alfred": "alf alfie fred freddy", "frederick": "fred freddy freddie",
    "lawrence": "larry", "leonard": "leo lenny", "patrick": "pat paddy", "peter": "pete", "gerald": "gerry jerry",
    "jerome": "jerry", "raymond": "ray", "ronald": "ron ronnie", "donald": "don donnie", "kenneth": "ken kenny",
    "timothy": "tim timmy", "matthew": "matt", "andrew": "andy drew", "christopher": "chris kit",
    "douglas": "doug", "gregory": "greg", "jonathan": "jon", "joshua": "josh", "nathaniel": "nate nat",
    "zachary": "zach zack", "walter": "walt wally", "harold": "harry hal", "catherine": "cathy kate katie kitty",
    "katherine": "kathy kate katie kitty", "rebecca": "becky becca", "susan": "sue susie suzy",
    "deborah": "deb debbie debi", "patricia": "pat patty trish", "jennifer": "jen jenny", "victoria": "vicky tori",
    "christine": "chris chrissy", "dorothy": "dot dottie dorothea", "barbara": "barb babs", "abigail": "abby",
    "samantha": "sam sammy", "alexandra": "alex sasha", "natasha": "tasha nat", "natalia": "natasha tasha",
    "jacqueline": "jackie", "josephine": "jo josie", "virginia": "ginny", "frances": "fran frannie",
    "judith": "judy", "eleanor": "ellie nell nora", "helen": "nell", "isabella": "bella izzy",
    "ann": "annie nancy", "anne": "annie nancy", "mary": "molly polly mae", "sarah": "sally sadie",
}
_FAMILIAR: frozenset[tuple[str, str]] = frozenset(
    (formal, pet) for formal, pets in _FAMILIAR_FORMS.items() for pet in pets.split())
#: Generic trailing words of place and organization names.
GENERIC_TAILS = frozenset({"city", "town", "village", "area", "lot", "backlot", "grounds", "store", "shop",
                           "diner", "restaurant", "cafe", "bar", "pub", "building", "complex", "force",
                           "department", "dept", "project", "program", "programme", "company", "inc",
                           "corp", "corporation", "ltd", "headquarters", "hq", "school", "campus"})
#: Titles that say whose family member is meant rather than which one.
GENDERED_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mister", "madam", "madame", "mme", "lady", "lord",
                             "sir", "dame"})
#: Task label of adjudication requests (usage is counted per task).
TASK_MERGE = "merge"
#: The prompt file of adjudication requests (its version is part of every request and cache key).
PROMPT = "adjudicate"
_DESCRIPTION_CHARS = 300


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MergeDecision(_Model):
    """One accepted merge in the LLM's reply."""

    canonical_name: str = Field(description="The well-formed name the merged entity keeps.")
    aliases: list[str] = Field(default_factory=list, description="The other mention names merged into it.")
    justification: str = ""


class UnmergedDecision(_Model):
    """A mention the LLM keeps on its own."""

    name: str
    justification: str = ""


class AdjudicationReply(_Model):
    """The reply format of the adjudication prompt (STAGE Figure 9)."""

    merges: list[MergeDecision] = Field(default_factory=list)
    unmerged: list[UnmergedDecision] = Field(default_factory=list)


class AcceptedGroup(_Model):
    """Mentions adjudicated to be one entity."""

    members: list[str] = Field(description="Candidate ids, at least two.")
    canonical_name: str
    evidence: list[str] = Field(default_factory=list)


class Link(_Model):
    """Two mentions of one character at different life stages (linked, never merged)."""

    source: str
    target: str
    reason: str


class Verdict(_Model):
    """What an adjudicator decided for one cluster."""

    adjudicator: str = Field(description="'offline' or 'llm'.")
    groups: list[AcceptedGroup] = Field(default_factory=list)
    kept_apart: dict[str, str] = Field(default_factory=dict, description="Candidate id -> reason.")
    links: list[Link] = Field(default_factory=list)
    error: str | None = Field(default=None, description="Why the adjudicator's answer was not used.")


class NameContext:
    """Which full names of a block contain a short name as first or last words (ambiguity check),
    and which name rules the schema gives each type.

    Args:
        candidates: Every candidate of one entity type (not only one cluster).
        places: Normalized CJK names of the story's locations: '佛山金楼' is '金楼' qualified by a place.
        common_words: Words the screenplay writes in lower case: a character name they precede
            is a descriptor form ('Tiny Scott'), neither a different person nor a fuller name.
        schema: The schema (its person and place types, the types of each merge rule); the
            default STAGE-KG schema when None.
    """

    def __init__(self, candidates: list[Candidate], places: frozenset[str] = frozenset(),
                 common_words: frozenset[str] = frozenset(), schema: Schema | None = None):
        schema = schema or load_schema()
        #: The type whose names are personal names, and the type of places (None: no such type).
        self.person, self.place = schema.type_for_role("person"), schema.type_for_role("place")
        #: Types whose short forms drop modifiers of the head noun; types whose names may carry a generic tail.
        self.head_types, self.tail_types = schema.types_with_rule("head_noun"), schema.types_with_rule("generic_tail")
        self._owners: dict[tuple[str, ...], set[tuple[str, ...]]] = defaultdict(set)
        self.places = places
        self.common_words = common_words
        self._extensions: dict[tuple[str, str], set[str]] = defaultdict(set)
        self._heads: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        self._tails: dict[tuple[str, ...], set[tuple[str, ...]]] = defaultdict(set)
        for cand in candidates:
            if cand.norm.comparable and cand.norm.cjk and cand.type != self.person:
                key = cand.norm.key
                for suffix in CJK_GENERIC_SUFFIXES:
                    if key.endswith(suffix) and len(key) - len(suffix) >= 2:
                        self._extensions[("suffix", key[: -len(suffix)])].add(key)
                for place in places:
                    if key.startswith(place) and len(key) - len(place) >= 2:
                        self._extensions[("place", key[len(place):])].add(key)
            if cand.norm.comparable and not cand.norm.cjk and cand.type != self.person:
                self._heads[head_noun(cand.norm.tokens)].add(cand.norm.tokens)
                for base in {without_tail(cand.norm.tokens), qualified_base(cand.norm)}:
                    if base and base != cand.norm.tokens:
                        self._tails[base].add(cand.norm.tokens)
            if not cand.norm.comparable or cand.norm.generic or cand.type != self.person:
                continue
            tokens = cand.norm.tokens
            if cand.norm.cjk:
                for size in (1, 2):
                    if len(tokens[0]) - size >= 1:
                        self._owners[(tokens[0][size:],)].add(tokens)
                continue
            for size in range(1, len(tokens)):
                self._owners[tokens[:size]].add(tokens)
                if not self.descriptor(tokens[:-size]):
                    self._owners[tokens[-size:]].add(tokens)

    def descriptor(self, words: tuple[str, ...]) -> bool:
        """True when every word is a common word of the screenplay ('tiny') or holds a digit ('a1')."""
        return bool(words) and all(w in self.common_words or any(c.isdigit() for c in w) for w in words)

    def extensions(self, kind: str, key: str) -> int:
        """How many CJK names extend `key` by a generic suffix (kind 'suffix') or a place prefix ('place')."""
        return len(self._extensions.get((kind, key), ()))

    def same_head(self, tokens: tuple[str, ...]) -> list[tuple[str, ...]]:
        """The longer names (of this type) with the same head noun that contain these tokens in order."""
        return [t for t in self._heads.get(head_noun(tokens), ()) if len(t) > len(tokens) and _within(tokens, t)]

    def with_tail(self, tokens: tuple[str, ...]) -> int:
        """How many names are these tokens plus a generic tail ('Sunrise Studios' + 'Lot')."""
        return len(self._tails.get(tokens, ()))

    def owners(self, tokens: tuple[str, ...]) -> int:
        """How many distinct longer names start or end with these tokens."""
        return len(self._owners.get(tokens, ()))


def head_noun(tokens: tuple[str, ...]) -> str:
    """The head of an English noun phrase, singular: 'red canvas burn bag' -> 'bag',
    'cane with four tennis balls' -> 'cane'."""
    cut = next((i for i, t in enumerate(tokens) if t in _POST_MODIFIERS and i > 0), len(tokens))
    return _singular(tokens[cut - 1]) if tokens else ""


def without_tail(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The name without trailing generic words ('grosse pointe high school' keeps 'grosse pointe high')."""
    end = len(tokens)
    while end > 1 and tokens[end - 1] in GENERIC_TAILS:
        end -= 1
    return tokens[:end]


def qualified_base(name: NormalizedName) -> tuple[str, ...]:
    """The words before a qualifying comma ('Grosse Pointe, Michigan' -> grosse pointe), or ()."""
    if "," not in name.display:
        return ()
    return normalize_name(name.display.split(",", 1)[0]).tokens


def _owner(display: str) -> str | None:
    """The possessor a name starts with ('Ellie' in "Ellie's Mailbox"), folded, or None."""
    match = _POSSESSOR.match(fold(display))
    return match.group(1) if match else None


def _within(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    it = iter(full)
    return all(any(_singular(t) == _singular(w) for w in it) for t in short)


def _head_variant(short: Candidate, full: Candidate, context: NameContext) -> str | None:
    """A name of a head_noun type (objects, concepts) and its unique longer form around the same
    head noun ('Red Bag' / 'Red Canvas Burn Bag', 'Phial Of Pills' / 'Phial Of Brown Pills'); a
    name of a generic_tail type (places, concepts) and its unique form with a generic tail or a
    qualifier ('New York' / 'New York City', 'Police' / 'Police Force', 'Grosse Pointe' /
    'Grosse Pointe, Michigan'); the reason, or None."""
    s, f = short.norm, full.norm
    if s.cjk or f.cjk or short.type == context.person or len(s.tokens) >= len(f.tokens):
        return None
    owner = _owner(f.display)
    if (short.type in context.head_types and context.same_head(s.tokens) == [f.tokens]
            and (owner is None or owner == _owner(s.display))):  # "Ellie's Pin" is hers, 'Pin' may be any
        return f"'{full.name}' is the only longer '{head_noun(s.tokens)}' containing '{short.name}'"
    if short.type not in context.tail_types or context.with_tail(s.tokens) != 1:
        return None
    if without_tail(f.tokens) == s.tokens:
        return f"'{full.name}' is '{short.name}' with the generic tail '{' '.join(f.tokens[len(s.tokens):])}'"
    if qualified_base(f) == s.tokens:
        return f"'{full.name}' is '{short.name}' qualified after a comma"
    return None


def _singular(word: str) -> str:
    """A plain English singular ('babies' -> 'baby', 'guards' -> 'guard'); other words unchanged."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _short_form(short: Candidate, full: Candidate, context: NameContext) -> bool:
    s, f = short.norm, full.norm
    if short.type != context.person or s.generic or f.generic or any(t in ROLE_WORDS for t in s.tokens):
        return False
    if s.honorific in GENDERED_TITLES:
        return False  # 'Mrs. Brumby' is not 'Cliff Brumby', 'Mr. Newberry' not 'Debi Newberry'
    if s.cjk and f.cjk:
        a, b = s.tokens[0], f.tokens[0]
        return (len(a) >= 2 and b.endswith(a) and b[: len(b) - len(a)] in CHINESE_SURNAMES
                and context.owners((a,)) == 1)
    if s.cjk or f.cjk or len(s.tokens) >= len(f.tokens):
        return False
    if any(_singular(t) in ROLE_WORDS for t in f.tokens) or not all(w[:1].isupper() for w in f.display.split()):
        return False  # 'Woman behind Professor' is a description, 'Bird Babies' a group, not a personal name
    n = len(s.tokens)
    if f.tokens[:n] != s.tokens and (f.tokens[-n:] != s.tokens or context.descriptor(f.tokens[:-n])):
        return False  # 'Tiny Scott' is a version of 'Scott', kept apart
    return context.owners(s.tokens) == 1


def _cjk_variant(short: Candidate, full: Candidate, context: NameContext) -> str | None:
    """A CJK name (not a person's) and its unique longer form with a generic head ('重庆' / '重庆市'),
    or a place and the same place named inside a story location ('金楼' / '佛山金楼'; for objects and
    concepts a place in front names a variant: '印度格列宁' is not '格列宁'); the reason, or None."""
    s, f = short.norm.key, full.norm.key
    if not (short.norm.cjk and full.norm.cjk) or short.type == context.person or len(s) < 2 or len(f) <= len(s):
        return None
    if f.startswith(s) and f[len(s):] in CJK_GENERIC_SUFFIXES and context.extensions("suffix", s) == 1:
        return f"'{full.name}' is '{short.name}' with the generic head '{f[len(s):]}'"
    if (short.type == context.place and f.endswith(s) and f[: -len(s)] in context.places
            and context.extensions("place", s) == 1):
        return f"'{full.name}' is '{short.name}' qualified by the location '{f[: -len(s)]}'"
    return None


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _misspelling(a: Candidate, b: Candidate, context: NameContext) -> bool:
    """One long word differs by one letter ('Gale Wathers' / 'Gale Weathers'); never a given name,
    never singular against plural ('Balloon' / 'Balloons')."""
    x, y = a.norm, b.norm
    if x.cjk or y.cjk or x.generic or y.generic or len(x.tokens) != len(y.tokens):
        return False
    diff = [i for i, (s, t) in enumerate(zip(x.tokens, y.tokens, strict=True)) if s != t]
    if len(diff) != 1:
        return False
    i = diff[0]
    s, t = x.tokens[i], y.tokens[i]
    shortest = 7 if len(x.tokens) == 1 else 6
    if min(len(s), len(t)) < shortest or (a.type == context.person and i == 0 and len(x.tokens) > 1):
        return False
    plural = s.rstrip("s") == t.rstrip("s")
    return s[0] == t[0] and not plural and edit_distance(s, t) == 1


def _diminutive(short: Candidate, full: Candidate, context: NameContext) -> bool:
    """A character's pet form: a given name plus -y/-ie/-i, a doubled last letter allowed ('Scott' /
    'Scotty', 'Tom' / 'Tommy', 'Deb Newberry' / 'Debi Newberry'); other words equal."""
    s, f = short.norm, full.norm
    if (short.type != context.person or s.cjk or f.cjk or s.generic or f.generic
            or len(s.tokens) != len(f.tokens) or s.tokens[1:] != f.tokens[1:]):
        return False
    base, pet = s.tokens[0], f.tokens[0]
    if len(base) < 3 or not pet.startswith(base) or base in ROLE_WORDS:
        return False
    return pet[len(base):] in _PET_ENDINGS or pet[len(base):] in {base[-1] + e for e in _PET_ENDINGS}


def _familiar_form(a: Candidate, b: Candidate, context: NameContext) -> bool:
    """A character's formal given name against its familiar form, surname equal and present
    ('Nicholas Wilde' / 'Nick Wilde', 'Margaret Carter' / 'Peggy Carter'); either order."""
    x, y = a.norm, b.norm
    if (a.type != context.person or x.cjk or y.cjk or x.generic or y.generic or len(x.tokens) < 2
            or x.tokens[1:] != y.tokens[1:]):
        return False
    return (x.tokens[0], y.tokens[0]) in _FAMILIAR or (y.tokens[0], x.tokens[0]) in _FAMILIAR


def link_evidence(a: Candidate, b: Candidate, context: NameContext) -> str | None:
    """The offline reason to merge two candidates, or None.

    Args:
        a: One candidate.
        b: Another of the same cluster.
        context: Short-name ambiguity over the whole entity type.
    """
    if not (a.norm.comparable and b.norm.comparable) or cannot_link(a, b):
        return None
    if a.norm.key == b.norm.key and (a.norm.article == b.norm.article or len(a.norm.tokens) > 1):
        titles = {a.norm.honorific, b.norm.honorific}
        if a.type == context.person and len(titles) > 1 and (None not in titles or titles & GENDERED_TITLES):
            return None  # 'Mr. Newberry' may be the father of the Newberry the story calls by name
        return f"same normalized name '{a.norm.key}'"
    if _misspelling(a, b, context):
        return f"'{a.name}' and '{b.name}' differ by one letter in a long word"
    if _diminutive(a, b, context) or _diminutive(b, a, context):
        return f"'{a.name}' and '{b.name}' are a given name and its pet form"
    if _familiar_form(a, b, context):
        return f"'{a.name}' and '{b.name}' are a formal given name and its familiar form, same surname"
    if _short_form(a, b, context):
        return f"'{a.name}' is the unambiguous short form of '{b.name}'"
    if _short_form(b, a, context):
        return f"'{b.name}' is the unambiguous short form of '{a.name}'"
    return (_cjk_variant(a, b, context) or _cjk_variant(b, a, context) or _head_variant(a, b, context)
            or _head_variant(b, a, context))


def canonical_choice(members: list[Candidate]) -> Candidate:
    """The member whose name becomes canonical: a specific, complete, well-formed name."""
    def rank(c: Candidate) -> tuple:
        n = c.norm
        return (n.generic, len(n.versions), -len(n.tokens if not n.cjk else n.key),
                c.name.isupper(), -len(c.scenes), c.name)

    return min(members, key=rank)


def _links(cluster: list[Candidate], person: str | None, common_words: frozenset[str] = frozenset()) -> list[Link]:
    """Life-stage pairs of persons (of the type `person`; 'Old Town' is no life stage of 'Town',
    'Young Woman' none of 'Old Woman': `life_stage_link`)."""
    out = []
    for i, a in enumerate(cluster):
        for b in cluster[i + 1:]:
            if a.type == person and life_stage_link(a, b, common_words):
                younger, base = (a, b) if a.norm.versions else (b, a)
                out.append(Link(source=younger.id, target=base.id,
                                reason=f"'{younger.name}' is '{base.name}' at another life stage"))
    return out


def _finish(adjudicator: str, groups: list[tuple[list[Candidate], str | None, list[str]]],
            cluster: list[Candidate], reasons: dict[str, str], person: str | None,
            common_words: frozenset[str] = frozenset()) -> Verdict:
    """Apply the hard constraints to proposed groups and build the verdict.

    A kept-apart mention's reason never cites its life-stage partner: their link says why.
    """
    accepted: list[AcceptedGroup] = []
    grouped: set[str] = set()
    kept_apart = dict(reasons)
    for members, name, evidence in groups:
        ordered = sorted(members, key=lambda c: c.id != canonical_choice(members).id)
        kept, removed = split_by_constraints(ordered)
        for cand, reason in removed:
            kept_apart[cand.id] = f"hard constraint: {reason}"
        if len(kept) < 2:
            continue
        canonical = name if name and (name in {c.name for c in kept} or not removed) else None
        accepted.append(AcceptedGroup(members=[c.id for c in kept],
                                      canonical_name=canonical or canonical_choice(kept).name,
                                      evidence=evidence))
        grouped.update(c.id for c in kept)
    links = _links(cluster, person, common_words)
    linked = {pair for link in links for pair in ((link.source, link.target), (link.target, link.source))}
    stages = {link.source: link.reason for link in links}
    for cand in cluster:
        if cand.id not in grouped and cand.id not in kept_apart:
            blocked = next((why for other in cluster if other is not cand and (cand.id, other.id) not in linked
                            and (why := cannot_link(cand, other))), None)
            kept_apart[cand.id] = (f"hard constraint: {blocked}" if blocked
                                   else f"life stage: {stages[cand.id]}" if cand.id in stages
                                   else "no merge evidence")
    return Verdict(adjudicator=adjudicator, groups=accepted, kept_apart=kept_apart, links=links)


def adjudicate_offline(cluster: list[Candidate], context: NameContext) -> Verdict:
    """Merge the members of a cluster that the offline rules link (transitively, checked).

    Args:
        cluster: The candidates of one cluster (one entity type).
        context: Short-name ambiguity over the whole entity type.

    Returns:
        The verdict; groups never contain two members that a hard constraint keeps apart.
    """
    parent = list(range(len(cluster)))
    evidence: dict[int, list[str]] = defaultdict(list)

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pairs = []
    for i, a in enumerate(cluster):
        for j in range(i + 1, len(cluster)):
            why = link_evidence(a, cluster[j], context)
            if why:
                pairs.append((0 if why.startswith("same") else 1, i, j, why))
    for _, i, j, why in sorted(pairs):
        ri, rj = find(i), find(j)
        if ri == rj:
            continue
        left = [c for c in range(len(cluster)) if find(c) == ri]
        right = [c for c in range(len(cluster)) if find(c) == rj]
        if any(cannot_link(cluster[x], cluster[y]) for x in left for y in right):
            continue
        parent[rj] = ri
        evidence[ri] = [*evidence[ri], *evidence.pop(rj, []), why]
    roots: dict[int, list[Candidate]] = defaultdict(list)
    for i, cand in enumerate(cluster):
        roots[find(i)].append(cand)
    groups: list[tuple[list[Candidate], str | None, list[str]]] = [
        (members, None, evidence[root]) for root, members in roots.items() if len(members) > 1]
    reasons = {c.id: f"not comparable: {c.norm.reason}" for c in cluster if not c.norm.comparable}
    return _finish("offline", groups, cluster, reasons, context.person, context.common_words)


def _quoted(name: str) -> str:
    """A name between quote marks, its own characters unescaped (the model copies names exactly)."""
    return f"«{name}»" if '"' in name else f'"{name}"'


def build_messages(cluster: list[Candidate]) -> list[ChatMessage]:
    """The adjudication request for one cluster (prompt file `kgbuild/llm/prompts/adjudicate.md`)."""
    mentions = []
    for i, cand in enumerate(cluster, 1):
        desc = cand.description.strip().replace("\n", " ")[:_DESCRIPTION_CHARS] or "(no description)"
        scenes = ", ".join(map(str, cand.scenes[:12])) or "unknown"
        mentions.append(f"{i}. {_quoted(cand.name)}: {desc} [scenes: {scenes}]")
    facts = [f"- {_quoted(a.name)} and {_quoted(b.name)}: {why}"
             for i, a in enumerate(cluster) for b in cluster[i + 1:] if (why := cannot_link(a, b))]
    prompt = load_prompt(PROMPT)
    return [ChatMessage(role="system", content=prompt.render("system")),
            ChatMessage(role="user", content=prompt.render("user", type=cluster[0].type, mentions="\n".join(mentions),
                                                           facts="\n".join(facts or ["- none"])))]


class MalformedReply(LLMOutputError):
    """The adjudicator's reply validated but cannot be applied (unknown or repeated names)."""


def resolve_reply(cluster: list[Candidate], reply: AdjudicationReply, *, schema: Schema | None = None) -> Verdict:
    """Turn a validated LLM reply into a verdict, enforcing the hard constraints.

    Unknown names in a merge are ignored (the merge keeps the names it can resolve); a
    canonical name that is not a mention is accepted as a new well-formed name. Life-stage
    pairs of the schema's person type (default schema when None) are linked.

    Raises:
        MalformedReply: a mention is placed in two merges.
    """
    by_name: dict[str, Candidate] = {}
    for cand in cluster:
        by_name.setdefault(cand.name, cand)
        by_name.setdefault(fold(cand.name), cand)
    used: set[str] = set()
    groups: list[tuple[list[Candidate], str | None, list[str]]] = []
    for merge in reply.merges:
        members: list[Candidate] = []
        for name in [merge.canonical_name, *merge.aliases]:
            named = by_name.get(name) or by_name.get(fold(name))
            if named is None or named in members:
                continue
            if named.id in used:
                raise MalformedReply(f"'{named.name}' is placed in two merges")
            members.append(named)
        used.update(c.id for c in members)
        if len(members) > 1:
            groups.append((members, merge.canonical_name.strip(), [f"llm: {merge.justification}".strip()]))
    reasons = {c.id: f"llm: {u.justification}".strip() for u in reply.unmerged
               if (c := by_name.get(u.name) or by_name.get(fold(u.name))) is not None}
    return _finish("llm", groups, cluster, reasons, (schema or load_schema()).type_for_role("person"))


async def adjudicate_llm(cluster: list[Candidate], client: StructuredLLM, *, schema: Schema | None = None) -> Verdict:
    """Ask the LLM about one cluster; an answer that cannot be used keeps the cluster apart (and says why).

    Args:
        cluster: The candidates of one cluster.
        client: The structured LLM client (`kgbuild.llm.client.LLMClient`).
        schema: The schema (its person type: life-stage links); the default STAGE-KG schema when None.

    Returns:
        The verdict; `error` is set when no usable answer came (`kgbuild.llm.types.ANSWER_ERRORS`:
        no valid reply after the repairs, a reply naming a mention twice, the server failing
        through every retry).

    Raises:
        LLMRequestError: the server refused the request (key, model, URL).
        BudgetExceededError: the budget would be exceeded by the request.
        BatchPendingError: batch-export mode and the request is not cached yet.
    """
    comparable = [c for c in cluster if c.norm.comparable]
    apart = {c.id: f"not comparable: {c.norm.reason}" for c in cluster if not c.norm.comparable}
    if len(comparable) < 2:
        return Verdict(adjudicator="llm", kept_apart=apart or {c.id: "alone" for c in cluster})
    try:
        reply = await client.structured(task=TASK_MERGE, messages=build_messages(comparable),
                                        response_model=AdjudicationReply)
        verdict = resolve_reply(comparable, reply, schema=schema)
    except ANSWER_ERRORS as e:
        logger.warning("merge adjudication of %s failed, kept apart: %s",
                       ", ".join(c.name for c in comparable), e)
        return Verdict(adjudicator="llm", kept_apart={c.id: "adjudication failed" for c in cluster},
                       error=str(e), links=_links(cluster, (schema or load_schema()).type_for_role("person")))
    return verdict.model_copy(update={"kept_apart": {**verdict.kept_apart, **apart}})

"""Relations between characters: who talks with whom, who is whose kin, who fights whom.

Screenplays show relationships through exchanges: two characters whose speeches alternate in
a scene are talking to each other, and characters who keep talking scene after scene are bound
by some tie (the STAGE references mark most such pairs with affinity or hostility, often both).
Kinship shows in names ("Ben's mother", "程勇儿子") and in
vocatives ("Mom, ..." said to the next speaker) and in kin words next to a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from kgbuild.offline.facts import Facts, Ref
from kgbuild.offline.stoplists import word_set

_CJK = re.compile(r"[\u3400-\u9fff]")

KIN_WORDS_EN = word_set("""
    mother father mom mum dad daddy mommy mummy mama papa pa ma son daughter brother sister wife
    husband uncle aunt auntie grandma grandpa grandmother grandfather granny cousin niece nephew
    stepfather stepmother stepson stepdaughter sis bro fiance fiancee ex-wife ex-husband
""")
KIN_WORDS_ZH = (
    "爸爸", "妈妈", "父亲", "母亲", "儿子", "女儿", "妻子", "丈夫", "老婆", "老公", "前妻", "前夫",
    "哥哥", "姐姐", "弟弟", "妹妹", "爷爷", "奶奶", "外公", "外婆", "孙子", "孙女", "叔叔", "阿姨",
    "舅舅", "姑姑", "媳妇", "女婿", "岳父", "岳母", "公公", "婆婆", "未婚夫", "未婚妻", "孩子", "爸", "妈",
    "哥", "姐", "弟", "妹", "父", "母", "妻", "夫", "儿", "女", "叔", "舅", "姨", "姑",
)
_VOCATIVE_EN = re.compile(
    r"^(?:mom|mum|mother|dad|daddy|father|pop|papa|mama|son|sis|grandma|grandpa|granny|honey|"
    r"uncle\s+\w+|aunt\s+\w+)\b|,\s*(?:mom|mum|mother|dad|daddy|father|son|sis|grandma|grandpa)\s*[.!?]",
    re.IGNORECASE,
)
_VOCATIVE_ZH = re.compile(r"^(?:爸爸?|妈妈?|爹|娘|儿子|闺女|老婆|老公|哥|姐|爷爷|奶奶|外公|外婆)[，,！!。]")


@dataclass(frozen=True)
class Exchange:
    """One cue following another in a scene: `first` spoke, then `second` answered."""

    first: str
    second: str
    first_line: str
    second_line: str


def kin_in_name(name: str, others: set[str]) -> str | None:
    """The character whose kin `name` is by its very form ("Ben's Mother", "程勇儿子")."""
    if _CJK.search(name):
        for other in sorted(others, key=len, reverse=True):
            if other != name and name.startswith(other):
                rest = name[len(other):].removeprefix("的")
                if rest.startswith(KIN_WORDS_ZH):
                    return other
        return None
    m = re.match(r"^(.+?)['’]s\s+(\S+)$", name, re.IGNORECASE)
    if m and m.group(2).lower() in KIN_WORDS_EN:
        owner = m.group(1).lower()
        return next((o for o in sorted(others) if o != name and owner in o.lower().split()), None)
    return None


def is_vocative_kin(line: str) -> bool:
    """A speech that calls its listener by a kin word ('Mom, listen.', '爸，你别管了。')."""
    text = line.strip()
    return bool(_VOCATIVE_ZH.match(text) if _CJK.search(text) else _VOCATIVE_EN.search(text))


def add_social(facts: Facts, index: int, refs: dict[str, Ref], exchanges: list[Exchange]) -> None:
    """Relations between the characters of one scene.

    Args:
        facts: Where the candidates go.
        index: The scene index.
        refs: canonical character name -> reference, for the characters present.
        exchanges: The scene's consecutive cue pairs, in order.
    """
    names = set(refs)
    for name in names:
        owner = kin_in_name(name, names)
        if owner:
            facts.relate(refs[owner], "kinship_with", refs[name], index, "kin_name")
    for ex in exchanges:
        if ex.first == ex.second or ex.first not in refs or ex.second not in refs:
            continue
        a, b = refs[ex.first], refs[ex.second]
        facts.relate(a, "speaks_to", b, index, "adjacent_cues", name="speaks to")
        for rtype in ("affinity_with", "hostility_with", "kinship_with", "favorable_toward",
                      "unfavorable_toward"):
            facts.relate(a, rtype, b, index, "exchange_" + rtype)
        if is_vocative_kin(ex.second_line):
            facts.relate(b, "kinship_with", a, index, "kin_vocative")
        if is_vocative_kin(ex.first_line):
            facts.relate(a, "kinship_with", b, index, "kin_vocative")


def add_comention(facts: Facts, index: int, names: list[str]) -> None:
    """Characters named one after the other in one action sentence act on each other.

    Args:
        facts: Where the candidates go.
        index: The scene index.
        names: Canonical names in the order the sentence names them.
    """
    ordered = list(dict.fromkeys(names))
    for a, b in pairwise(ordered):
        for rtype in ("affinity_with", "hostility_with"):
            facts.relate(("Character", a), rtype, ("Character", b), index, "comention_" + rtype)

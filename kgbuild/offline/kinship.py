"""Kinship, only where words tie two named characters.

Kin words are a closed class: ties of blood, marriage and adoption (mother, son, wife, uncle,
stepfather; 爸爸, 妻子, 女婿). An engagement ('my fiance', 未婚妻), a courtship or a friendship is
no kin tie, whatever else it is.

- A character named by kin of another: 'Ben's Mother', '程勇儿子'.
- 'NAME's wife, NAME' or 'NAME, NAME's wife' in an action sentence.
- 'my wife, NAME' or 'NAME, my son' in a speech: the speaker's kin.
- A kin word used to call the listener ('Dad, listen.', '爸，你别管了。'), when the listener is
  known (`kgbuild.offline.dialogue.listener`), unless either of the two denies the tie in the
  scene, in the first or second person ('Dad.' then 'I'm not your father.'; '我不是你爸'): a
  word of address the exchange denies is no kinship.
'His son', 'the boy's father' or a shared surname are never enough.
"""

from __future__ import annotations

import re

from kgbuild.offline.stoplists import word_set

_CJK = re.compile(r"[\u3400-\u9fff]")

KIN_WORDS_EN = word_set("""
    mother father mom mum dad daddy mommy mummy mama papa son daughter brother sister wife
    husband uncle aunt auntie grandma grandpa grandmother grandfather granny cousin niece nephew
    stepfather stepmother stepson stepdaughter
""")
KIN_WORDS_ZH = (
    "爸爸", "妈妈", "父亲", "母亲", "儿子", "女儿", "妻子", "丈夫", "老婆", "老公", "前妻", "前夫",
    "哥哥", "姐姐", "弟弟", "妹妹", "爷爷", "奶奶", "外公", "外婆", "孙子", "孙女", "舅舅", "姑姑",
    "媳妇", "女婿", "岳父", "岳母", "爸", "妈", "儿", "女",
)
_KIN = "|".join(sorted(KIN_WORDS_EN, key=len, reverse=True))
# Kin words that call the listener; 'son' and 'father' are also said to strangers and priests.
_VOCATIVE_EN = re.compile(
    r"^\W*(?:mom|mum|mommy|mama|dad|daddy|papa|grandma|grandpa|granny)\b\s*[,!.?]"
    r"|,\s*(?:mom|mum|mommy|mama|dad|daddy|papa|grandma|grandpa|granny)\s*[.!?]",
    re.IGNORECASE,
)
_VOCATIVE_ZH = re.compile(r"^(?:爸爸?|妈妈?|爹|娘|儿子|闺女|老婆|老公|爷爷|奶奶|外公|外婆)[，,！!。]")
_MY_KIN = re.compile(rf"\bmy\s+(?:{_KIN})\b", re.IGNORECASE)
_KIN_ZH = "|".join(sorted(KIN_WORDS_ZH, key=len, reverse=True))
# 'I'm not your father', 'You are not my son', '我不是你爸', '你不是我亲生的女儿'.
_DENIES = re.compile(
    rf"\b(?:I'?m|I am|you'?re|you are)\s+(?:not|no)\s+(?:really\s+)?(?:your|my)\s+"
    rf"(?:real\s+|biological\s+|own\s+|actual\s+)?(?:{_KIN})\b"
    rf"|(?:我|你)(?:可|也|并|根本|真|又)?不是(?:你|我|您)(?:的)?(?:亲生的?|亲)?(?:{_KIN_ZH})(?!朋友)",
    re.IGNORECASE)


def kin_in_name(name: str, others: set[str]) -> tuple[str, str] | None:
    """The character whose kin `name` is by its very form, and the kin word.

    Example:
        >>> kin_in_name("Ben's Mother", {"Ben", "Ben's Mother"})
        ('Ben', 'Mother')
    """
    if _CJK.search(name):
        for other in sorted(others, key=len, reverse=True):
            if other != name and name.startswith(other):
                rest = name[len(other):].removeprefix("的")
                if rest.startswith(KIN_WORDS_ZH):
                    return other, rest
        return None
    m = re.match(r"^(.+?)['’]s\s+(\S+)$", name, re.IGNORECASE)
    if m and m.group(2).lower() in KIN_WORDS_EN:
        owner = m.group(1).lower()
        found = [o for o in sorted(others) if o != name and owner in o.lower().split()]
        if len(found) == 1:
            return found[0], m.group(2)
    return None


def calls_listener_kin(line: str) -> str | None:
    """The kin word a speech calls its listener by ('Mom, listen.'), or None."""
    text = line.strip()
    m = _VOCATIVE_ZH.match(text) if _CJK.search(text) else _VOCATIVE_EN.search(text)
    return m.group(0) if m else None


def denies_kin(line: str) -> str | None:
    """The words of a speech denying a kin tie between speaker and listener ('I'm not your
    father.', '我不是你爸'), or None.

    Example:
        >>> denies_kin("Look pal, I'm not your father.")
        "I'm not your father"
    """
    m = _DENIES.search(line)
    return m.group(0) if m else None


def apposed_kin(sentence: str, spans: list[tuple[int, int, str]]) -> list[tuple[str, str, str]]:
    """(kin, owner, words) for 'NAME's wife, NAME2', 'NAME2, NAME's wife' and "NAME's wife NAME2".

    Args:
        sentence: An action sentence.
        spans: (start, end, canonical name) of the characters it names.
    """
    out = []
    for s, e, owner in spans:
        m = re.match(rf"['’]s\s+({_KIN})\b", sentence[e:], re.IGNORECASE)
        if not m:
            continue
        after = e + m.end()
        for s2, e2, other in spans:
            if other == owner:
                continue
            follows = s2 >= after and re.fullmatch(r",?\s*", sentence[after:s2]) is not None
            precedes = e2 <= s and re.fullmatch(r"\s*,\s*", sentence[e2:s]) is not None
            if follows or precedes:
                out.append((other, owner, sentence[min(s, s2):max(after, e2)]))
    return out


def speaker_kin(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[str, str]]:
    """(character, words) for 'my wife, NAME', 'my son NAME' or 'NAME, my son.' in a speech
    ('Sarah, my husband is a bore.' calls Sarah and speaks of someone else)."""
    out = []
    for m in _MY_KIN.finditer(text):
        for s, e, name in spans:
            follows = s >= m.end() and re.fullmatch(r",?\s*", text[m.end():s])
            precedes = (e <= m.start() and re.fullmatch(r"\s*,\s*", text[e:m.start()])
                        and re.match(r"\s*(?:[,.!?;]|$)", text[m.end():]))
            if follows or precedes:
                out.append((name, text[min(s, m.start()):max(e, m.end())]))
    return out

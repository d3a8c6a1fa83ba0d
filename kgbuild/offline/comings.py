"""Who is in the room at a given line of a scene: comings and goings read from the action.

A speech can be addressed only to someone there when it is said. The scene's presence (who
speaks, who the action shows) holds for the scene as a whole; within it, the action says when
someone arrives or leaves:

- A character leaves with a verb of leaving whose subject they are ('Anna leaves.', 'Ben walks
  out.', 'She exits through the back door.', '大妈推门走了', '常林点点头出去了'): from that line
  on they are gone, until they come back in. Leaving at one's first sighting in the scene is
  coming in from elsewhere ('Kate walks out of the station' opens an exterior scene), and one
  who is seen again with no arrival between never went ('Max leaves... then turns back to
  Henry'). An intention is no leaving ('turns to leave', '准备离开').
- A character arrives with a verb of coming whose subject they are ('Ben enters.', '老二走进了
  屋子'): when that is their first sighting in the scene, they are not there before it, unless
  they come in right after a speech, before the next one: the speech greets them ('曹警官' then
  '曹斌走进来').

The subject is the name right before the verb in the same clause (a few words between, no
clause break; in Chinese at most `_CJK_GAP` characters, as in '大妈推门走了'), or 'He'/'She'
opening the sentence when the sentence before, in the same paragraph, named one character the
script calls so.
The verbs are a closed class: verbs of coming and going, with the particles that make them so
('walks out', '走进'); not the verbs that take a thing ('leaves a note', 'exits the car').
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgbuild.offline.dialogue import Speech
from kgbuild.offline.scenes import ActionSentence

_CJK = re.compile(r"[\u3400-\u9fff]")
_CJK_GAP = 3
# Between a subject and its verb: a few words, no clause break ('Max and Henry walk out').
_SUBJECT_GAP = re.compile(r"^[^,.;:!?，。；：！？]{0,40}$")
# What may follow 'leaves'/'exits' for it to be leaving the place (not 'leaves a note', 'exits the car').
_OUT_END = (r"(?=\s*(?:[.,;:!—–-]|$)|\s+(?:and|with|without|through|via|quickly|slowly|angrily|silently|"
            r"hurriedly|abruptly|again|too|as well|(?:the\s+)?(?:room|house|building|office|apartment|stage|"
            r"frame|scene)\b))")
_LEAVES = re.compile(
    rf"\b(?:(?:leaves?|exits?|departs?){_OUT_END}|"
    r"(?:walks?|goes|go|storms?|runs?|hurries|hurry|rushes|rush|heads?|slips?|marches|march|stalks?|"
    r"strides?|wanders?|races?|dashes|dash|bolts?)\s+(?:back\s+)?(?:out|off|away)\b"
    r"(?!\s+(?:of\s+(?:the\s+)?(?:car|van|truck|cab|taxi|vehicle|bus|elevator|lift|shower)|to|toward|towards|at)\b)|"
    r"(?:is|are)\s+gone\b|disappears?\b(?!\s+(?:into|under|behind|in)\b))",
    re.IGNORECASE)
_COMES = re.compile(
    r"\b(?:enters?|entering|(?:comes?|walks?|steps?|bursts?|rushes|rush|runs?|hurries|hurry|strides?|"
    r"storms?|wanders?|barges?|slips?|marches|march|hurtles?)\s+(?:back\s+)?in(?:to)?\b|arrives?|"
    r"comes?\s+back\b|returns?(?=\s*(?:[.,;:!—–-]|$)|\s+(?:with|home)\b)|(?:is|are)\s+back\b)",
    re.IGNORECASE)
# Chinese: '走了' ends its clause or goes on out ('走了出去'), not '走了过来' (coming over).
_ZH_LEAVES = re.compile(r"走了(?=[，。！；、]|$|出去)|离开|离去|出去|走出门|跑出门|溜走|走开|跑开|退出")
_ZH_COMES = re.compile(r"走进|走了进来|进来|进门|进屋|跑进|冲进|闯进|回来|赶来|来到")
# An intention or a negation before the verb: not done ('turns to leave', '准备离开', '没走').
_NOT_DONE = re.compile(r"(?:\bto|\babout to|\bready to|\btries to|\bwants to|\bstarts to|\bdoesn't|\bdon't|"
                       r"\bwon't|\bcan't|\bnot)\s+$|(?:要|想|准备|打算|没|没有|不|别|刚要|正要)$", re.IGNORECASE)


@dataclass(frozen=True)
class Move:
    """A character arriving ('comes') or leaving ('goes') at a line of a scene."""

    name: str
    line: int
    kind: str  # 'comes' or 'goes'


def _subjects(sent: ActionSentence, verb_start: int, carried: str | None) -> list[str]:
    """The characters that are the subject of the verb at `verb_start` in an action sentence."""
    text = sent.text
    before = [(s, e, n) for s, e, n in sent.spans if e <= verb_start]
    if not before:
        opens = re.match(r"(?:He|She|They)\b", text)
        return [carried] if carried and opens and opens.group(0) != "They" else []
    s, e, name = before[-1]
    gap = text[e:verb_start]
    if _CJK.search(text):
        if len(gap) > _CJK_GAP or re.search(r"[，。；：！？]", gap):
            return []
    elif not _SUBJECT_GAP.match(gap):
        return []
    out = [name]
    for s2, e2, other in reversed(before[:-1]):  # 'Max and Henry walk out', '老三和静秋走了'
        if re.fullmatch(r"\s*(?:,|and|,\s*and|&|和|与|跟)\s*", text[e2:s]):
            out.append(other)
            s = s2
        else:
            break
    return out


def moves(sents: list[ActionSentence], genders: dict[str, str]) -> list[Move]:
    """Every arrival and departure the action lines of one scene tell, in order.

    Args:
        sents: The scene's action sentences, in order, with the characters they name.
        genders: Per character, the pronoun the script calls them by ('he', 'she').

    Example:
        >>> moves([ActionSentence(element, "Ben leaves.", [(0, 3, "Ben")], [])], {})  # doctest: +SKIP
        [Move(name='Ben', line=12, kind='goes')]
    """
    out: list[Move] = []
    previous: list[str] = []
    paragraph: object = None
    for sent in sents:
        chinese = bool(_CJK.search(sent.text))
        carried = None
        if sent.element is not paragraph:
            previous, paragraph = [], sent.element
        if len(previous) == 1 and not chinese:
            opens = re.match(r"(He|She)\b", sent.text)
            if opens and genders.get(previous[0]) == opens.group(1).lower():
                carried = previous[0]
        shown = set(sent.shown())
        for kind, verbs in (("goes", _ZH_LEAVES if chinese else _LEAVES), ("comes", _ZH_COMES if chinese else _COMES)):
            for m in verbs.finditer(sent.text):
                if _NOT_DONE.search(sent.text[:m.start()]):
                    continue
                for name in _subjects(sent, m.start(), carried):
                    if name in shown or name == carried:
                        out.append(Move(name, sent.element.line_start, kind))
        names = list(dict.fromkeys(n for _, _, n in sent.spans))
        if names:
            previous = names
    return out


def in_room(name: str, line: int, sightings: dict[str, list[int]], comings: list[Move],
            upto: int | None = None) -> bool:
    """Whether a character of the scene is in the room at `line`.

    A departure holds until the character is seen again; one after which they are seen again
    with no arrival between did not take them out ('Max leaves... then turns back to Henry').
    An arrival told right after a speech, before the next one, is the one the speech greets
    ('Officer Cao!' then 'Cao walks in').

    Args:
        name: A character present in the scene.
        line: The line of the speech.
        sightings: Per character, the lines where the scene shows them or they speak (any order).
        comings: The scene's arrivals and departures (`moves`).
        upto: The line of the next speech of the scene, if any.
    """
    seen = sorted(set(sightings.get(name, ())))
    mine = [m for m in comings if m.name == name]
    arrivals = {m.line for m in mine if m.kind == "comes"}
    for m in mine:
        if m.kind != "goes" or m.line >= line or not any(s < m.line for s in seen):
            continue  # leaving at one's first sighting is coming in from elsewhere
        later = [s for s in seen if s > m.line]
        if later and later[0] not in arrivals:
            continue  # seen again with no arrival: never went
        if not later or later[0] > line:
            return False
    first = seen[0] if seen else None
    greeted = upto is None or first is None or first < upto
    return not (first is not None and first > line and first in arrivals and not greeted)


def rooms(present: set[str], speeches: list[Speech], sents: list[ActionSentence],
          genders: dict[str, str]) -> list[set[str]]:
    """Per speech of a scene, who of `present` is in the room when it is said.

    Args:
        present: The characters present in the scene.
        speeches: The scene's speeches in order.
        sents: The scene's action sentences in order.
        genders: Per character, the pronoun the script calls them by.
    """
    sightings: dict[str, list[int]] = {}
    for speech in speeches:
        if not speech.away:
            sightings.setdefault(speech.speaker, []).append(speech.cue.line_start)
    for sent in sents:
        for name in sent.shown():
            sightings.setdefault(name, []).append(sent.element.line_start)
    comings = moves(sents, genders)
    out = []
    for i, speech in enumerate(speeches):
        upto = speeches[i + 1].cue.line_start if i + 1 < len(speeches) else None
        out.append({n for n in present if in_room(n, speech.cue.line_start, sightings, comings, upto)})
    return out

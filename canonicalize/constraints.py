"""Screenplay facts that bind every merge decision, offline or LLM.

- Two characters who speak in the same scene are different people (cannot-link).
- Mentions whose version markers differ (`YOUNG X` / `X`, `THANOS-2014` / `THANOS`, `MAN #2` /
  `MAN #3`) are never merged; a life-stage pair (`YOUNG X` and `X`: a life-stage word, `young`
  `old` `little` `teen` `baby` `adult` `elderly` `年轻` `少年` ..., on one side and the same
  proper name on the other) is linked instead. A common noun (`YOUNG WOMAN` / `OLD WOMAN`) is no
  one's name, and `GOOD` / `BAD` are versions, not life stages: such pairs are not linked.
- Contradicting titles (`Mr. Smith` / `Mrs. Smith`) are never merged.

A Chinese common noun is no one's name either: a name that jieba's dictionary holds as one
common noun (`男子`, `女人`, `老人`, `小女孩`: flag `n`) describes people, so `中年男子` is not
`男子` at another life stage. Names are not dictionary nouns (jieba flags `静秋`, `老三`,
`黄四郎` as names).

The screenplay also says which words are common words rather than names: those it writes in
lower case and never as a speaker ('tiny' makes `TINY SCOTT` a descriptor form of `SCOTT`).

Example:
    >>> speakers = SpeakerIndex.from_screenplay(screenplay)
    >>> cannot_link(a, b)        # 'both speak in scene 12', or None
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from functools import lru_cache

import jieba
import jieba.posseg
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.canonicalize.normalize import (
    LIFE_STAGE_WORDS,
    ROLE_WORDS,
    NormalizedName,
    honorifics_compatible,
    normalize_name,
)
from kgbuild.model import ElementKind, Scope, Screenplay

jieba.setLogLevel(logging.WARNING)

#: A lower-case word of action or dialogue ("tiny", "regular-sized").
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z]+(?:-[a-z]+)*(?![\w'’-])")


class Candidate(BaseModel):
    """One mention (or entity) as the merge stage sees it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    type: str
    description: str = ""
    norm: NormalizedName
    scenes: tuple[int, ...] = ()
    speaking: tuple[int, ...] = Field(default=(), description="Scenes in which this mention speaks.")
    scope: Scope = Field(default=Scope.GLOBAL, description="Local (scene-bound) mentions are not merged.")


class SpeakerIndex:
    """Which normalized names speak in which scenes, from the screenplay's character cues, and
    which words the screenplay writes in lower case (common words, not names)."""

    def __init__(self, scenes_by_key: dict[str, set[int]], common_words: frozenset[str] = frozenset()):
        self._scenes = scenes_by_key
        speaker_words = {w for key in scenes_by_key for w in key.split("|", 1)[0].split()}
        self.common_words = frozenset(common_words - speaker_words)

    @classmethod
    def from_screenplay(cls, screenplay: Screenplay) -> SpeakerIndex:
        """Collect the speakers of every scene (dual dialogue included) and the common words."""
        scenes: dict[str, set[int]] = defaultdict(set)
        lower: set[str] = set()
        for scene in screenplay.scenes:
            for element in scene.elements:
                if element.speaker:
                    norm = normalize_name(element.speaker, person=True)
                    if norm.comparable:
                        scenes[_speaker_key(norm)].add(scene.index)
                if element.kind in (ElementKind.ACTION, ElementKind.DIALOGUE):
                    lower.update(_LOWER_WORD.findall(element.text))
        return cls(dict(scenes), frozenset(lower))

    def speaking_scenes(self, names: list[str]) -> tuple[int, ...]:
        """Scenes in which any of these names speaks (a cue equal to the name once normalized).

        Pass an entity's name and only the aliases no other entity shares: an alias shared with
        another character would make both speak.
        """
        scenes: set[int] = set()
        for name in names:
            norm = normalize_name(name, person=True)
            if norm.comparable:
                scenes |= self._scenes.get(_speaker_key(norm), set())
        return tuple(sorted(scenes))


def _speaker_key(norm: NormalizedName) -> str:
    return f"{norm.key}|{','.join(norm.versions)}"


def cannot_link(a: Candidate, b: Candidate) -> str | None:
    """Why two candidates must stay apart, or None if nothing forbids merging them."""
    shared = sorted(set(a.speaking) & set(b.speaking))
    if shared and a.norm.key != b.norm.key:
        return f"both speak in scene {shared[0]}"
    if a.norm.versions != b.norm.versions:
        return f"different versions or instances ({'/'.join(a.norm.versions) or '-'} vs " \
               f"{'/'.join(b.norm.versions) or '-'})"
    if not honorifics_compatible(a.norm, b.norm):
        return f"different titles ({a.norm.honorific} vs {b.norm.honorific})"
    return None


def _stages(name: NormalizedName) -> tuple[set[str], set[str]]:
    """A name's life-stage words and its other version markers."""
    stages = {v for v in name.versions if v in LIFE_STAGE_WORDS or not v.isascii()}
    return stages, set(name.versions) - stages


_NUMBERED_TOKEN = re.compile(r"^#?\d+[a-z]?$")


@lru_cache(maxsize=4096)
def _common_noun_zh(word: str) -> bool:
    """Whether jieba reads a Chinese word as one common noun of its dictionary ('男子')."""
    cut = [(p.word, p.flag) for p in jieba.posseg.cut(word)]
    return len(cut) == 1 and cut[0][1] == "n"


def proper_name(name: NormalizedName, common_words: frozenset[str] = frozenset()) -> bool:
    """Whether a name is a person's own name, not a common noun: 'Ellie', 'Edward Bloom', not
    'Woman', 'the driver', words the screenplay writes in lower case ('hunter') or a Chinese
    common noun ('男子')."""
    if not name.comparable or name.generic or not name.tokens:
        return False
    if name.cjk and _common_noun_zh(name.key):
        return False
    # A number tells instances of a role apart ('MAN #1'): it names no one.
    return not all(t in ROLE_WORDS or t in common_words or _NUMBERED_TOKEN.match(t) for t in name.tokens)


def life_stage_link(a: Candidate, b: Candidate, common_words: frozenset[str] = frozenset()) -> bool:
    """True for `YOUNG X` and `X` (the same proper name, one side with a life-stage word that the
    other lacks, no other version marker apart): linked, not merged.

    'Young Woman' and 'Old Woman' are two women ('woman' names no one), and 'Good Cop Bob' and
    'Bad Cop Bob' two agents ('good' and 'bad' are no life stage): neither pair is linked.

    Args:
        a: One mention.
        b: The other mention.
        common_words: Words the screenplay writes in lower case: a name made only of them (and
            of `ROLE_WORDS`) is a common noun, not a person's name.
    """
    if a.norm.key != b.norm.key or not proper_name(a.norm, common_words):
        return False
    (stages_a, others_a), (stages_b, others_b) = _stages(a.norm), _stages(b.norm)
    return bool(stages_a ^ stages_b) and others_a == others_b


def split_by_constraints(members: list[Candidate]) -> tuple[list[Candidate], list[tuple[Candidate, str]]]:
    """Keep the members that do not conflict with those kept before them (in the given order).

    Returns:
        The kept members and, for each removed one, the reason.
    """
    kept: list[Candidate] = []
    removed: list[tuple[Candidate, str]] = []
    for cand in members:
        reason = next((r for r in (cannot_link(cand, k) for k in kept) if r), None)
        if reason:
            removed.append((cand, reason))
        else:
            kept.append(cand)
    return kept, removed

"""Chinese words: jieba's cut of a clause, with the characters' names kept whole.

jieba (its bundled dictionary, no download) cuts a clause into words and flags each with a part
of speech. Character names are cut out first, so a name is always one word and jieba's
dictionary is never changed: a build does not depend on the scripts read before it. A name that
is part of a longer dictionary word is not a name there ('警察' in '警察局', '律师' in '律师函').
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache

import jieba
import jieba.posseg

jieba.setLogLevel(logging.WARNING)

#: The flag of a character's name among the words.
NAME = "NAME"


@lru_cache(maxsize=65536)
def cut(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words of `text` with their part-of-speech flags."""
    return tuple((p.word, p.flag) for p in jieba.posseg.cut(text))


def words(clause: str, names: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The clause's words and jieba's part-of-speech flags; each character name is one word
    flagged 'NAME' (longest names first, never split), except inside a longer dictionary word.

    Example:
        >>> [w for w, _ in words("阿明走到了柜台里", ["阿明"])]
        ['阿明', '走到', '了', '柜台', '里']
    """
    spans: list[tuple[int, int]] = []
    for name in sorted((n for n in names if n), key=len, reverse=True):
        start = 0
        while (at := clause.find(name, start)) >= 0:
            start = at + len(name)
            end = at + len(name)
            if all(at >= b or end <= a for a, b in spans) and not inside_word(clause, at, end):
                spans.append((at, end))
    out: list[tuple[str, str]] = []
    pos = 0
    for a, b in sorted(spans):
        out.extend(cut(clause[pos:a]) if a > pos else ())
        out.append((clause[a:b], NAME))
        pos = b
    out.extend(cut(clause[pos:]) if pos < len(clause) else ())
    return out


def load_dictionary() -> None:
    """Read jieba's dictionary now (about 0.5 s) rather than at the first Chinese clause."""
    jieba.dt.check_initialized()


def in_dictionary(word: str) -> bool:
    """Whether jieba's dictionary holds `word`."""
    jieba.dt.check_initialized()
    return jieba.dt.FREQ.get(word, 0) > 0


def inside_word(clause: str, start: int, end: int) -> bool:
    """Whether the name at clause[start:end] is part of a longer dictionary word ('警察' in
    '警察局')."""
    return any(in_dictionary(clause[a:b]) for a, b in
               ((start, end + 1), (start, end + 2), (start - 1, end), (start - 2, end)) if a >= 0 and b <= len(clause))

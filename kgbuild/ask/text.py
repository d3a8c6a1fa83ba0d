"""Words for retrieval: English stemmed and without function words, Chinese cut by jieba, and a
BM25 index over them (bm25s, sparse matrices).

English words are lower-cased, stripped of a closed class of function words (articles, pronouns,
auxiliaries, question words, prepositions) and stemmed with the Snowball English stemmer, so
'demonstrating' meets 'demonstrates'. Chinese text is cut by jieba's search mode (a long word
also gives its parts: 监控室 gives 监控 and 室 too) without punctuation or particles.

Example:
    >>> words("Why did John feel stupid after demonstrating the lamp?", chinese=False)
    ['john', 'feel', 'stupid', 'demonstr', 'lamp']
"""

from __future__ import annotations

import logging
import re
from functools import cache

import numpy as np

#: Function words left out of English queries and documents (a closed grammatical class).
EN_FUNCTION_WORDS = frozenset(str.split("""
    a an the of to in on at and or but nor so is are was were be been being am it its he she his her hers him
    they them their theirs we us our you your i me my mine what why how who whom whose which when where does do
    did done this that these those with for as by from about after before into onto while during than then there
    here has have had will would shall should can could may might must not no s t d ll re ve just very
"""))
#: Chinese particles and question words left out.
ZH_FUNCTION_WORDS = frozenset(str.split("的 了 是 在 和 与 及 他 她 它 我 你 们 什么 怎么 为什么 如何 吗 呢 吧 啊 "
                                        "这 那 个 中 对 被 把 就 也 都 而 哪 哪里 谁 时 时候 后 前 有 没有 会"))
_EN_WORD = re.compile(r"[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_PUNCT = re.compile(r"^[\W_]+$")


@cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def is_chinese(text: str) -> bool:
    """True when CJK characters make up a fair share of the text's letters."""
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk >= 0.2 * len(re.findall(r"\w", text))


def words(text: str, *, chinese: bool) -> list[str]:
    """The retrieval words of a text, in order (repeats kept: they count in BM25)."""
    if chinese:
        return [w for w in _jieba().lcut_for_search(text)
                if w.strip() and not _PUNCT.match(w) and w not in ZH_FUNCTION_WORDS]
    found = [w for w in _EN_WORD.findall(text.lower()) if w not in EN_FUNCTION_WORDS]
    return list(_stemmer().stemWords(found))


class TextIndex:
    """BM25 over a list of documents given as word lists; scores every document for a query."""

    def __init__(self, documents: list[list[str]]):
        import bm25s

        self.size = len(documents)
        self._index = bm25s.BM25()
        # bm25s needs a word in every document; an empty scene gets one no query has.
        self._index.index([d or ["\u2205"] for d in documents], show_progress=False)
        self._vocabulary = set(self._index.vocab_dict)

    def scores(self, query: list[str]) -> np.ndarray:
        """BM25 score of every document (0 for a query with no indexed word)."""
        known = [w for w in query if w in self._vocabulary]
        if not known or not self.size:
            return np.zeros(self.size)
        return np.asarray(self._index.get_scores(known), dtype=float)

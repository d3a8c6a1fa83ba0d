"""Write `kgbuild/offline/lexicon.py`: closed classes of English words read from WordNet 3.0.

The offline rules need to know a few word classes whole, not as lists grown from one script's
mistakes: the parts of a body, clothing, the nouns that name an act or no physical thing, the comparatives. WordNet
(Princeton University, WordNet 3.0 license: free use, copies keep its notice) has them; this
script reads its database files (Debian's `wordnet-base`: /usr/share/wordnet) and writes the
classes as a module, so the build needs no WordNet at run time.

Usage:
    python scripts/wordnet_classes.py [/usr/share/wordnet] > kgbuild/offline/lexicon.py
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

# Lexicographer files (lexnames(5WN)) of physical things: an artifact, an object, food, a
# substance, a plant, an animal, a body, a person, a place, a group, a possession.
_PHYSICAL = {5, 6, 8, 13, 14, 15, 17, 18, 20, 21, 27}
_BODY, _ANIMAL, _ARTIFACT = 8, 5, 6
_CLOTHING = "03051540"  # clothing, article of clothing, wear
# A physical object, matter, a substance: 'book' (a publication, an artifact) is one; a process
# ('energy', a physical phenomenon) is none.
_MATTER = {"00002684", "00020827", "14580597"}
# Communication written or shown on something, which a hand can hold: writing ('letter',
# 'ticket', 'script'), a written record ('note', 'file'), a written agreement ('contract'), a
# list ('menu'), a sign ('poster'), a record ('logbook').
_WRITTEN = {"06349220", "06647206", "06636524", "06771653", "06481320", "06793231"}


def _synsets(folder: Path) -> dict[str, tuple[int, list[tuple[str, str]]]]:
    """offset -> (lexicographer file, pointers (symbol, offset)) of the noun synsets."""
    out = {}
    for line in (folder / "data.noun").open():
        if line.startswith("  "):
            continue
        f = line.split(" ")
        n = int(f[3], 16)
        p = 4 + 2 * n
        ptrs = [(f[p + 1 + 4 * i], f[p + 2 + 4 * i]) for i in range(int(f[p]))]
        out[f[0]] = (int(f[1]), ptrs)
    return out


def _index(folder: Path, pos: str) -> dict[str, tuple[list[str], int]]:
    """lemma -> (its synsets, most frequent first; how many of its senses are tagged)."""
    out = {}
    for line in (folder / f"index.{pos}").open():
        if line.startswith("  "):
            continue
        f = line.split()
        pointers = int(f[3])
        out[f[0]] = (f[4 + pointers + 2:], int(f[4 + pointers + 1]))
    return out


def _counts(folder: Path) -> dict[tuple[str, int], int]:
    """(lemma, lexicographer file) -> how often its noun senses of that file are tagged in
    WordNet's semantic concordance (cntlist.rev)."""
    out: dict[tuple[str, int], int] = {}
    for line in (folder / "cntlist.rev").open():
        key, _, count = line.split()
        m = re.fullmatch(r"(.+)%1:(\d\d):.*", key)
        if m:
            out[(m[1], int(m[2]))] = out.get((m[1], int(m[2])), 0) + int(count)
    return out


def _hypernyms(syn: dict[str, tuple[int, list[tuple[str, str]]]], offset: str) -> set[str]:
    seen: set[str] = set()
    todo = [offset]
    while todo:
        for symbol, target in syn[todo.pop()][1]:
            if symbol in ("@", "@i") and target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _singulars(word: str) -> set[str]:
    """What a word in -s may be the plural of, as `kgbuild.offline.stoplists.in_class` reads it."""
    return {word[:-1]} | ({word[:-2]} if word.endswith("es") else set()) | (
        {word[:-3] + "y"} if word.endswith("ies") else set())


def classes(folder: Path) -> dict[str, set[str]]:
    """The word classes, one-word lemmas only."""
    syn = _synsets(folder)
    nouns = {w: v for w, v in _index(folder, "noun").items() if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", w)}
    verbs = {w for w in _index(folder, "verb") if w.isalpha()}
    adjectives = {w for w in _index(folder, "adj") if w.isalpha()}

    def of_body(offset: str) -> bool:  # a part of a human or an animal body ('tail', 'feather')
        lex = syn[offset][0]
        return lex == _BODY or lex == _ANIMAL and any(syn[h][0] == _BODY for h in _hypernyms(syn, offset))

    counts = _counts(folder)
    body = set()
    for word, (offsets, _) in nouns.items():
        # Most often a body part: its first sense, counted more than twice as often as all its
        # senses of an artifact together ('chest', 'tail'; not 'nail', 'vessel'); where none is
        # counted, a word with no sense of an artifact ('knuckle'; not 'nipple' of a bottle).
        first = syn[offsets[0]][0]
        artifact = any(syn[o][0] == _ARTIFACT for o in offsets)
        if of_body(offsets[0]) and (counts.get((word, first), 0) > 2 * counts.get((word, _ARTIFACT), 0)
                                    if counts.get((word, first)) else not artifact):
            body.add(word)
    body_senses = {w for w, (offsets, _) in nouns.items() if any(syn[o][0] == _BODY for o in offsets)}
    garments = {w for w, (offsets, _) in nouns.items() if any(_CLOTHING in _hypernyms(syn, o) for o in offsets)}

    def physical(offset: str) -> bool:  # a physical thing, or communication written on one
        above = _hypernyms(syn, offset) | {offset}
        return syn[offset][0] in _PHYSICAL or not above.isdisjoint(_MATTER) or not above.isdisjoint(_WRITTEN)

    abstract, handled = set(), set()
    for word, (offsets, _) in nouns.items():
        # Most often no physical thing: its first sense is none, counted more than twice as often
        # as all its senses of a physical thing together ('energy', 'weight'; not 'ring', whose
        # sound is counted 4 times, its band 3); where none is counted, a word with no sense of a
        # physical thing ('conversation'; not 'blank' of a gun).
        first = syn[offsets[0]][0]
        things = {syn[o][0] for o in offsets if physical(o)}
        if not physical(offsets[0]) and (
                counts.get((word, first), 0) > 2 * sum(counts.get((word, lex), 0) for lex in things)
                if counts.get((word, first)) else not things):
            abstract.add(word)
            if things:
                handled.add(word)
    # A plural that names a physical thing where its singular names none ('belongings', 'fatigues')
    plurals = {w for w in nouns
               if w.endswith("s") and w not in abstract and not abstract.isdisjoint(_singulars(w))}
    acts = {w for w in verbs if w in nouns and syn[nouns[w][0][0]][0] not in _PHYSICAL}
    comparatives = set()
    for a in adjectives:  # one syllable ('tight'), or two ending in -y ('happy')
        syllables = len(re.findall(r"[aeiouy]+", a.rstrip("e")))
        if syllables == 1:
            comparatives.add(a + "r" if a.endswith("e") else a + "er")
            if re.fullmatch(r".*[^aeiou][aeiou][bdgklmnprt]", a):
                comparatives.add(a + a[-1] + "er")
        elif syllables == 2 and a.endswith("y"):
            comparatives.add(a[:-1] + "ier")
    for line in (folder / "adj.exc").open():
        form = line.split()[0]
        if form.endswith("er") and form.isalpha():
            comparatives.add(form)
    comparatives -= set(nouns)  # 'cooler', 'better' are nouns too
    return {"BODY": body, "BODY_SENSES": body_senses, "GARMENTS": garments, "ABSTRACT": abstract,
            "ABSTRACT_THINGS": handled, "PLURAL_THINGS": plurals, "ACT_NOUNS": acts, "COMPARATIVES": comparatives}


_DOCS = {
    "BODY": "Parts of a human or an animal body, by their most frequent sense, far more frequent than a sense "
            "of an artifact ('knuckle', 'tail', 'feather'; not 'nail', 'vessel').",
    "BODY_SENSES": "Nouns with any sense of a body part ('heel' of a foot or a shoe, 'temple').",
    "GARMENTS": "Clothing, by any of its senses ('clothes', 'tunic', 'coat').",
    "ABSTRACT": "Nouns that name no physical thing by their most frequent sense, far more frequent than a "
                "sense of one: an act, a state, a feeling, a quality, speech or a show ('vision', 'energy', "
                "'news', 'conversation', 'weight'; not 'letter', written on something, nor 'ring').",
    "ABSTRACT_THINGS": "Nouns of ABSTRACT that have a sense of a physical thing too, less frequent ('case' of "
                       "a guitar, 'channel'): a thing where a hand carries or puts it.",
    "PLURAL_THINGS": "Plurals that name a physical thing where their singular, by its most frequent sense, "
                     "names none ('belongings', 'fatigues', 'leftovers').",
    "ACT_NOUNS": "Verbs whose noun, by its first sense, is no physical thing: an act, a signal, a change "
                 "('boost', 'signal', 'sip'; not 'knife').",
    "COMPARATIVES": "Comparatives of adjectives that are no nouns ('tighter'; not 'cooler').",
}


def render(found: dict[str, set[str]]) -> str:
    """The module's text."""
    head = textwrap.dedent('''\
        """Closed classes of English words, read from WordNet 3.0.

        Generated by scripts/wordnet_classes.py; do not edit by hand. One-word lemmas only.

        The words are WordNet's, used under its license, whose notice, statements and disclaimer
        follow as it asks:

        Permission to use, copy, modify and distribute this software and database and its
        documentation for any purpose and without fee or royalty is hereby granted, provided that
        you agree to comply with the following copyright notice and statements, including the
        disclaimer, and that the same appear on ALL copies of the software, database and
        documentation, including modifications that you make for internal use or for distribution.

        WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.

        THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
        REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED.  BY WAY OF EXAMPLE, BUT NOT LIMITATION,
        PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS
        FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR
        DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER
        RIGHTS.

        The name of Princeton University or Princeton may not be used in advertising or publicity
        pertaining to distribution of the software and/or database.  Title to copyright in this
        software, database and any associated documentation shall at all times remain with
        Princeton University and LICENSEE agrees to preserve same.
        """

        from __future__ import annotations


        def _words(text: str) -> frozenset[str]:
            return frozenset(text.split())

        ''')
    parts = [head]
    for name, words in found.items():
        body = textwrap.fill(" ".join(sorted(words)), width=96, break_long_words=False, break_on_hyphens=False)
        doc = textwrap.fill(_DOCS[name], width=96, initial_indent="#: ", subsequent_indent="#: ")
        parts.append(f"\n{doc}\n{name} = _words(\"\"\"\n{body}\n\"\"\")\n")
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(render(classes(Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet"))))

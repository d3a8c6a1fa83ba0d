"""Which pronoun the action lines use for each character, learned from the script itself."""

from __future__ import annotations

import re
from itertools import pairwise


def learn_genders(scene_sentences: list[list[tuple[str, str | None]]]) -> dict[str, str]:
    """Guess each character's pronoun from sentences that open with He/She after naming them.

    Args:
        scene_sentences: Per scene, (sentence, the first character it names or None) in order.

    Returns:
        canonical name -> 'he' or 'she', where the votes agree at least two to one.

    Example:
        >>> learn_genders([[("Anna sits.", "Anna"), ("She waits.", None)]] * 2)
        {'Anna': 'she'}
    """
    votes: dict[str, dict[str, int]] = {}
    for sentences in scene_sentences:
        for (_, subject), (text, _) in pairwise(sentences):
            m = re.match(r"(He|She)\b", text)
            if subject and m:
                bucket = votes.setdefault(subject, {"he": 0, "she": 0})
                bucket[m.group(1).lower()] += 1
    out = {}
    for name, v in votes.items():
        if v["he"] >= 2 * v["she"] and v["he"]:
            out[name] = "he"
        elif v["she"] >= 2 * v["he"] and v["she"]:
            out[name] = "she"
    return out

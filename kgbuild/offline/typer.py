"""Decide what a noun phrase names (a place, a thing, a person, a group or idea) by comparing
its embedding with short descriptions of each type, using the bundled MiniLM model.
"""

from __future__ import annotations

import numpy as np

from kgbuild.embeddings import Embedder

#: A few everyday examples per type; a phrase takes the type of its nearest examples.
PROTOTYPES: dict[str, list[str]] = {
    "Location": [
        "room", "kitchen", "bedroom", "bathroom", "hallway", "corridor", "street", "road", "house",
        "apartment", "office", "building", "car interior", "forest", "field", "beach", "bar",
        "restaurant", "hospital", "station", "airport", "church", "garden", "yard", "porch",
        "stairs", "roof", "basement", "city", "town", "village", "park", "bridge", "river bank",
        "parking lot", "alley", "lobby", "cell", "warehouse", "shop", "hotel", "school",
        "theatre", "prison", "courtroom", "classroom", "dormitory", "cave", "cemetery",
    ],
    "Object": [
        "knife", "gun", "pistol", "phone", "bag", "suitcase", "glass", "bottle", "letter", "book",
        "key", "ring", "photograph", "cigarette", "money", "envelope", "box", "cup", "coffee",
        "newspaper", "wallet", "badge", "hat", "coat", "jacket", "shoes", "camera", "laptop",
        "computer", "radio", "television", "lamp", "watch", "necklace", "rope", "bullet", "file",
        "folder", "map", "ticket", "passport", "guitar", "flowers", "cake", "food", "plate",
        "blanket", "pillow", "mirror", "candle", "car", "truck", "boat", "bicycle", "van", "taxi",
    ],
    "Character": [
        "man", "woman", "boy", "girl", "child", "kids", "officer", "policeman", "guard", "driver",
        "waitress", "waiter", "doctor", "nurse", "soldier", "stranger", "old man", "young woman",
        "mother", "father", "wife", "husband", "friend", "boss", "priest", "teacher", "students",
        "crowd", "people", "customers", "reporter", "bartender", "detective", "agent",
    ],
    # Abstract and collective names are typed only to keep them out of the other types: rules
    # cannot tell which of them the story treats as entities (precision was 0.12).
    "Concept": [
        "police", "government", "army", "company", "family", "gang", "team", "church community",
        "love", "trust", "fear", "freedom", "justice", "religion", "marriage", "war", "politics",
        "business", "organization", "agency", "band", "club", "party", "union", "kingdom",
    ],
}


class PhraseTyper:
    """Types phrases by nearest prototypes; phrases close to none are left untyped.

    Args:
        embedder: Embeds phrases and prototypes.
        threshold: Mean similarity of the best type's three nearest prototypes a phrase needs.
        margin: How much the best type must beat the second best. A phrase up to 0.08 under
            the threshold is still typed when it leads by 2.5 margins.
        keep: The types returned; phrases nearest another type are dropped.
    """

    def __init__(self, embedder: Embedder, *, threshold: float = 0.40, margin: float = 0.02,
                 keep: tuple[str, ...] = ("Location", "Object", "Character")):
        self._embedder = embedder
        self._threshold = threshold
        self._margin = margin
        self._keep = set(keep)
        self._types = list(PROTOTYPES)
        self._protos = [embedder.encode(PROTOTYPES[t]) for t in self._types]

    def classify(self, phrases: list[str]) -> dict[str, str]:
        """phrase -> entity type, for the phrases that clearly name one."""
        if not phrases:
            return {}
        vectors = self._embedder.encode(phrases)
        scores = np.stack([
            np.sort(vectors @ protos.T, axis=1)[:, -3:].mean(axis=1) for protos in self._protos
        ], axis=1)
        order = np.argsort(-scores, axis=1)
        out = {}
        for i, phrase in enumerate(phrases):
            best, second = scores[i, order[i, 0]], scores[i, order[i, 1]]
            kind = self._types[order[i, 0]]
            confident = best >= self._threshold and best - second >= self._margin
            # Rarer words sit further from every prototype; a clear lead still decides.
            clear_lead = best >= self._threshold - 0.08 and best - second >= 2.5 * self._margin
            if (confident or clear_lead) and kind in self._keep:
                out[phrase] = kind
        return out

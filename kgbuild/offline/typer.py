"""Decide what a noun phrase names (a place, a thing, a person, a group or idea) by comparing
its embedding with short descriptions of each role (`kgbuild.schema.ROLES`), using the bundled
MiniLM model. The extractor turns a role into the schema's type.
"""

from __future__ import annotations

import numpy as np

from kgbuild.embeddings import Embedder
from kgbuild.schema import Role

#: A few everyday examples per role; a phrase takes the role of its nearest examples.
PROTOTYPES: dict[Role, list[str]] = {
    "place": [
        "room", "kitchen", "bedroom", "bathroom", "hallway", "corridor", "street", "road", "house",
        "apartment", "office", "building", "car interior", "forest", "field", "beach", "bar",
        "restaurant", "hospital", "station", "airport", "church", "garden", "yard", "porch",
        "stairs", "roof", "basement", "city", "town", "village", "park", "bridge", "river bank",
        "parking lot", "alley", "lobby", "cell", "warehouse", "shop", "hotel", "school",
        "theatre", "prison", "courtroom", "classroom", "dormitory", "cave", "cemetery",
    ],
    "thing": [
        "knife", "gun", "pistol", "phone", "bag", "suitcase", "glass", "bottle", "letter", "book",
        "key", "ring", "photograph", "cigarette", "money", "envelope", "box", "cup", "coffee",
        "newspaper", "wallet", "badge", "hat", "coat", "jacket", "shoes", "camera", "laptop",
        "computer", "radio", "television", "lamp", "watch", "necklace", "rope", "bullet", "file",
        "folder", "map", "ticket", "passport", "guitar", "flowers", "cake", "food", "plate",
        "blanket", "pillow", "mirror", "candle", "car", "truck", "boat", "bicycle", "van", "taxi",
    ],
    "person": [
        "man", "woman", "boy", "girl", "child", "kids", "officer", "policeman", "guard", "driver",
        "waitress", "waiter", "doctor", "nurse", "soldier", "stranger", "old man", "young woman",
        "mother", "father", "wife", "husband", "friend", "boss", "priest", "teacher", "students",
        "crowd", "people", "customers", "reporter", "bartender", "detective", "agent",
    ],
    # Abstract and collective names are typed only to keep them out of the other roles: rules
    # cannot tell which of them the story treats as entities (precision was 0.12).
    "abstract": [
        "police", "government", "army", "company", "family", "gang", "team", "church community",
        "love", "trust", "fear", "freedom", "justice", "religion", "marriage", "war", "politics",
        "business", "organization", "agency", "band", "club", "party", "union", "kingdom",
    ],
}


class PhraseTyper:
    """Gives phrases the role of their nearest prototypes; phrases close to none are left out.

    Args:
        embedder: Embeds phrases and prototypes.
        threshold: Mean similarity of the best role's three nearest prototypes a phrase needs.
        margin: How much the best role must beat the second best. A phrase up to 0.08 under
            the threshold is still given a role when it leads by 2.5 margins.
        keep: The roles returned; phrases nearest another role are dropped.
    """

    def __init__(self, embedder: Embedder, *, threshold: float = 0.40, margin: float = 0.02,
                 keep: tuple[Role, ...] = ("place", "thing", "person")):
        self._embedder = embedder
        self._threshold = threshold
        self._margin = margin
        self._keep = set(keep)
        self._types = list(PROTOTYPES)
        self._protos = [embedder.encode(PROTOTYPES[t]) for t in self._types]

    def classify(self, phrases: list[str]) -> dict[str, Role]:
        """phrase -> role, for the phrases that clearly name one."""
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

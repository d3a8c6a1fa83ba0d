"""The STAGE-KG protocol (paper sec. 4, app. D.1): match entities, then score entities and relations.

What the paper fixes: event-centric entities (Event, Occasion) and event-centric relations are
left out; only reference entities of degree >= 2 (degree over the whole reference graph, or over
the reference restricted to the scenes scored) are scored; entities are grounded by the rename
map first (accepted directly, whatever the types), then by same-type embedding similarity above
a threshold, one-to-one, greedy; a relation is right when both ends match and the type is equal.

What it leaves open, and our documented defaults (`ScoreOptions`, the `kgbuild` protocol):
- `threshold` 0.80: cosine similarity of MiniLM name embeddings needed for a match.
- `entity_text` 'name': what is embedded for an entity, its name alone; 'name_description'
  embeds its name and description as one text, as the paper words it ("embedded using its
  canonical name and description").
- `description_weight` 0.0: similarity = (1-w)·cos(name) + w·cos(description).
- `pred_min_degree` 0: no degree filter on the predicted side.
- `name_identity` on: between the rename map and the embeddings, names equal after
  normalization (case, spaces, punctuation) to a reference name or alias match too, within the
  same type only (the paper has two steps, rename map then embeddings). When two predictions
  ground to one reference through the rename map, the one of the same type wins.
- With `name_identity` on, a prediction whose name equals a reference entity's name after
  normalization (same type) is grounded to it before any rename: the names the map maps to are
  its own. Without this, a map entry that folds another person into a character ('程勇爸爸' ->
  '程勇', a reference's merge error) took the character's match from the prediction named
  '程勇' itself. The `paper` preset keeps D.1's literal order, the map first.
- `alias_identity` off: with it on, a prediction's aliases count as its names too in the
  normalized-name step (same type, after its own name). The reference's aliases always count;
  a prediction's do not by default, because the defaults were fixed before the LLM path's
  measurements (issue 18) and do not move during them. It shows how much of a score is naming:
  a graph that names the oil shop '王子神油店' after its heading and keeps '精油店' as an alias
  misses a reference that calls it '精油店'.
- `cjk_similarity` 'characters': names with CJK characters are compared by character
  similarity (rapidfuzz's ratio of the entity texts), not by MiniLM. MiniLM's vocabulary holds
  244 CJK characters, so most Chinese names embed as runs of [UNK] and two unrelated names are
  equal ('养老院收银' and '警局审讯室': cosine 1.0). 'embedding' is the reading before this
  rule, kept to reproduce earlier numbers.

`PROTOCOLS` names two presets: `kgbuild` (the defaults above) and `paper`, the paper's reading
of app. D.1 (`entity_text` 'name_description', `name_identity` off; the rest as `kgbuild`).
- A per-type row counts the predictions of that type: a true or false positive in the row of
  the predicted type, a false negative in the row of the reference type, so the totals are the
  sums of the rows. A rename-map match across types is a true positive of the predicted type
  and is listed in `MovieScore.cross_type_matches`.
- A scored reference relation is one whose two ends are scored entities and whose type is
  neither event-centric nor derived (`life_stage_of`, written by kgbuild's merge stage). Symmetric types (kinship_with,
  affinity_with, hostility_with, allied_with) match in either direction.
- A prediction matched to a reference entity outside the scored set is neither right nor wrong;
  so is a predicted relation touching such an entity, or equal to an unscored reference relation.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, utils
from rapidfuzz.process import cdist

from kgbuild.embeddings import Embedder
from kgbuild.evaluation.metrics import PRF, micro
from kgbuild.evaluation.reference import LoadReport
from kgbuild.graph import canonical_key
from kgbuild.model import Entity, KnowledgeGraph
from kgbuild.names import has_cjk
from kgbuild.schema import Schema, load_schema

_CANONICAL, _RENAME, _IDENTITY, _ALIAS = 4.0, 3.0, 2.0, 1.5


class ScoreOptions(BaseModel):
    """Every choice the paper leaves open, with its default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float = Field(default=0.80, ge=0.0, le=1.0,
                             description="Cosine similarity needed for an embedding match.")
    entity_text: Literal["name", "name_description"] = Field(
        default="name", description="What is embedded for an entity: its name, or its name and description "
        "as one text ('Name: description').")
    description_weight: float = Field(default=0.0, ge=0.0, le=1.0,
                                      description="Weight of description similarity.")
    name_identity: bool = Field(
        default=True, description="Match names equal after normalization (same type) before the embeddings.")
    alias_identity: bool = Field(
        default=False, description="With name identity, a prediction's aliases count as its names too.")
    min_degree: int = Field(default=2, ge=0, description="Reference degree needed to be scored.")
    pred_min_degree: int = Field(default=0, ge=0, description="Predicted degree needed to count.")
    near_miss_margin: float = Field(default=0.10, ge=0.0,
                                    description="How far under the threshold a near miss may be.")
    cjk_similarity: Literal["characters", "embedding"] = Field(
        default="characters", description="How texts with CJK characters are compared: rapidfuzz's ratio "
        "of their characters, or MiniLM embeddings (which read most CJK characters as [UNK]).")


#: The named presets of `kgbuild score --protocol`: today's defaults, and the paper's reading of app. D.1.
PROTOCOLS: dict[str, ScoreOptions] = {
    "kgbuild": ScoreOptions(),
    "paper": ScoreOptions(entity_text="name_description", name_identity=False),
}


def protocol_name(options: ScoreOptions) -> str:
    """The preset `options` equal ('kgbuild', 'paper'), or 'custom'."""
    return next((name for name, preset in PROTOCOLS.items() if preset == options), "custom")


def protocol_differences(options: ScoreOptions, protocol: str = "kgbuild") -> dict[str, object]:
    """The options whose values differ from the named preset's (field -> value), for reports."""
    base = PROTOCOLS[protocol]
    return {name: getattr(options, name) for name in ScoreOptions.model_fields
            if getattr(options, name) != getattr(base, name)}


class NearMiss(BaseModel):
    """A predicted entity whose best same-type reference was just under the threshold."""

    model_config = ConfigDict(extra="forbid")

    type: str
    predicted: str
    reference: str
    similarity: float


class CrossTypeMatch(BaseModel):
    """A prediction grounded by the rename map to a reference entity of another type."""

    model_config = ConfigDict(extra="forbid")

    predicted: str
    predicted_type: str
    reference: str
    reference_type: str
    counted: bool = Field(description="The reference entity is scored (else the match is neutral).")


class NamedOtherwise(BaseModel):
    """A scored reference entity no prediction matched, which a prediction names in another way."""

    model_config = ConfigDict(extra="forbid")

    reference: str
    reference_type: str
    predicted: str
    predicted_type: str
    how: Literal["alias", "type"] = Field(
        description="'alias': an alias of a prediction of the same type (see `alias_identity`); 'type': the name "
        "or an alias of a prediction of another type.")


class MissedRelations(BaseModel):
    """The scored reference relations not found, by how many of their ends were matched."""

    model_config = ConfigDict(extra="forbid")

    both_ends_matched: int = Field(default=0, description="The prediction has both entities, not this relation.")
    one_end_matched: int = 0
    no_end_matched: int = 0


class MovieScore(BaseModel):
    """STAGE-KG scores of one predicted graph against one reference graph."""

    model_config = ConfigDict(extra="forbid")

    movie: str = Field(description="The movie id (the STAGE folder name).")
    title: str = Field(default="", description="The movie's title, when known.")
    entities: PRF
    relations: PRF
    entity_types: dict[str, PRF]
    relation_types: dict[str, PRF]
    neutral_entities: int = 0
    neutral_relations: int = 0
    scored_reference_entities: int = 0
    scored_reference_relations: int = 0
    unmatched_reference: dict[str, list[str]] = Field(default_factory=dict)
    false_positives: dict[str, list[str]] = Field(default_factory=dict)
    near_misses: list[NearMiss] = Field(default_factory=list)
    cross_type_matches: list[CrossTypeMatch] = Field(default_factory=list)
    missed_relations: MissedRelations = Field(default_factory=MissedRelations)
    named_otherwise: list[NamedOtherwise] = Field(
        default_factory=list, description="Scored reference entities not found that a prediction names by an "
        "alias or under another type.")
    prediction_report: LoadReport | None = None
    reference_report: LoadReport | None = None
    protocol: str = Field(default="kgbuild", description="The options' preset: kgbuild, paper or custom.")
    scene_ranges: list[tuple[int, int]] = Field(
        default_factory=list, description="The scenes scored (both graphs restricted to them; the degree "
        "rule applied on the restricted reference); empty: every scene.")


def _degrees(graph: KnowledgeGraph) -> Counter[str]:
    degree: Counter[str] = Counter()
    for rel in graph.relations:
        if rel.source != rel.target:
            degree[rel.source] += 1
            degree[rel.target] += 1
    return degree


def _non_event(graph: KnowledgeGraph, schema: Schema) -> list[Entity]:
    return [e for e in graph.entities if not schema.is_event_centric_entity(e.type)]


def _name_candidates(pred: list[Entity], ref: list[Entity], renames: dict[str, str],
                     identity: bool = True, aliases: bool = False) -> list[tuple[float, str, str]]:
    """Canonical-name, rename-map and (with `identity`) normalized-name candidates, scored so that
    they beat any embedding.

    With `identity`, a prediction named as a reference entity of its type grounds to it first;
    the rename map grounds across types (same type first); equal names need the same type. With
    `aliases` too, a prediction's aliases ground it last among the names.
    """
    by_name = {r.name: r for r in ref}
    by_key: dict[str, list[Entity]] = defaultdict(list)
    by_canonical: dict[str, list[Entity]] = defaultdict(list)
    for r in ref:
        by_canonical[canonical_key(r.name)].append(r)
        for form in {r.name, *r.aliases}:
            by_key[canonical_key(form)].append(r)
    out = []
    for p in pred:
        for r in by_canonical.get(canonical_key(p.name), []) if identity else []:
            if r.type == p.type:
                out.append((_CANONICAL, p.id, r.id))
        target = renames.get(p.name)
        if target in by_name:
            r = by_name[target]
            out.append((_RENAME + (0.5 if r.type == p.type else 0.0), p.id, r.id))
        if not identity:
            continue
        for r in by_key.get(canonical_key(p.name), []):
            if r.type == p.type:
                out.append((_IDENTITY, p.id, r.id))
        for alias in p.aliases if aliases else []:
            for r in by_key.get(canonical_key(alias), []):
                if r.type == p.type:
                    out.append((_ALIAS, p.id, r.id))
    return out


def entity_text(entity: Entity, options: ScoreOptions) -> str:
    """The text embedded for an entity: its name, or 'Name: description' (`options.entity_text`)."""
    if options.entity_text == "name_description" and entity.description.strip():
        return f"{entity.name}: {entity.description.strip()}"
    return entity.name


def text_similarity(a: list[str], b: list[str], embedder: Embedder, options: ScoreOptions) -> np.ndarray:
    """Similarity of each text of `a` to each of `b`: MiniLM cosine, or, where either text has CJK
    characters and `options.cjk_similarity` is 'characters', rapidfuzz's ratio / 100."""
    vectors = embedder.encode(a + b)
    sim = vectors[: len(a)] @ vectors[len(a):].T
    if options.cjk_similarity == "characters":
        cjk = np.array([has_cjk(t) for t in a])[:, None] | np.array([has_cjk(t) for t in b])[None, :]
        if cjk.any():
            chars = cdist(a, b, scorer=fuzz.ratio, processor=utils.default_process) / 100.0
            sim = np.where(cjk, chars, sim)
    return sim


def _similarity(pred: list[Entity], ref: list[Entity], embedder: Embedder, options: ScoreOptions) -> np.ndarray:
    w = options.description_weight
    sim = text_similarity([entity_text(e, options) for e in pred], [entity_text(e, options) for e in ref],
                          embedder, options)
    if w > 0:
        descs = text_similarity([e.description or e.name for e in pred], [e.description or e.name for e in ref],
                                embedder, options)
        sim = (1 - w) * sim + w * descs
    return sim


def _embedding_candidates(
    pred: list[Entity], ref: list[Entity], embedder: Embedder, options: ScoreOptions
) -> tuple[list[tuple[float, str, str]], list[NearMiss]]:
    """Same-type similarity candidates above the threshold, and near misses below it."""
    candidates, near = [], []
    for etype in sorted({p.type for p in pred} & {r.type for r in ref}):
        ps = [p for p in pred if p.type == etype]
        rs = [r for r in ref if r.type == etype]
        sim = _similarity(ps, rs, embedder, options)
        for i, j in zip(*np.nonzero(sim >= options.threshold), strict=True):
            candidates.append((float(sim[i, j]), ps[i].id, rs[j].id))
        best = sim.argmax(axis=1)
        for i, j in enumerate(best):
            s = float(sim[i, j])
            if options.threshold - options.near_miss_margin <= s < options.threshold:
                near.append(NearMiss(type=etype, predicted=ps[i].name, reference=rs[j].name,
                                     similarity=round(s, 4)))
    return candidates, near


def _greedy(candidates: list[tuple[float, str, str]]) -> dict[str, str]:
    """One-to-one assignment, best score first; ties broken by ids for determinism."""
    matched: dict[str, str] = {}
    taken: set[str] = set()
    for _, p, r in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if p not in matched and r not in taken:
            matched[p] = r
            taken.add(r)
    return matched


def match_entities(
    pred: list[Entity], ref: list[Entity], renames: dict[str, str], embedder: Embedder,
    options: ScoreOptions,
) -> tuple[dict[str, str], list[NearMiss]]:
    """Match predicted to reference entities: rename map, same-type name identity (unless
    `options.name_identity` is off), then embeddings.

    Only what the name steps leave unmatched is embedded, so scoring a graph against itself
    never loads the model.

    Returns:
        predicted id -> reference id, and the near misses.
    """
    matched = _greedy(_name_candidates(pred, ref, renames, options.name_identity, options.alias_identity))
    rest_p = [p for p in pred if p.id not in matched]
    taken = set(matched.values())
    rest_r = [r for r in ref if r.id not in taken]
    if not rest_p or not rest_r:
        return matched, []
    candidates, near = _embedding_candidates(rest_p, rest_r, embedder, options)
    matched.update(_greedy(candidates))
    unmatched = {p.name for p in rest_p if p.id not in matched}
    return matched, [n for n in near if n.predicted in unmatched]


def relation_key(source: str, rtype: str, target: str, symmetric: set[str]) -> tuple[str, str, str]:
    """The key a relation is compared by: (source, type, target), the ends sorted for symmetric types."""
    if rtype in symmetric and target < source:
        source, target = target, source
    return source, rtype, target


def _named_otherwise(missed: list[Entity], pred: list[Entity]) -> list[NamedOtherwise]:
    """The missed reference entities a prediction names by an alias (same type) or under another type."""
    by_alias: dict[str, list[Entity]] = defaultdict(list)
    by_form: dict[str, list[Entity]] = defaultdict(list)
    for p in pred:
        for alias in p.aliases:
            by_alias[canonical_key(alias)].append(p)
        for form in {p.name, *p.aliases}:
            by_form[canonical_key(form)].append(p)
    out: list[NamedOtherwise] = []
    for r in missed:
        key = canonical_key(r.name)
        same = next((p for p in by_alias.get(key, []) if p.type == r.type), None)
        other = next((p for p in by_form.get(key, []) if p.type != r.type), None)
        found, how = (same, "alias") if same is not None else (other, "type")
        if found is not None:
            out.append(NamedOtherwise(reference=r.name, reference_type=r.type, predicted=found.name,
                                      predicted_type=found.type, how=how))
    return out


@dataclass(frozen=True)
class Grading:
    """What the protocol decided for one pair of graphs: which reference facts are scored, how
    the predictions were matched to them, and which scored relations the prediction found."""

    scored_entities: set[str]
    scored_relations: set[tuple[str, str, str]]
    matched: dict[str, str]
    found: set[tuple[str, str, str]]
    pred_entities: list[Entity]
    near: list[NearMiss]
    relation_types: dict[str, PRF]
    neutral_relations: int


def grade(predicted: KnowledgeGraph, reference: KnowledgeGraph, *, renames: dict[str, str],
          embedder: Embedder, options: ScoreOptions, schema: Schema) -> Grading:
    """Match `predicted` to `reference` and decide every predicted relation (see the module doc).

    Returns:
        The scored reference entities and relation keys, the matching, the relation keys found,
        the predictions counted, the near misses, and per relation type TP/FP/FN.
    """
    ref_degree = _degrees(reference)
    ref_entities = _non_event(reference, schema)
    scored = {e.id for e in ref_entities if ref_degree[e.id] >= options.min_degree}
    pred_degree = _degrees(predicted)
    pred_entities = [e for e in _non_event(predicted, schema) if pred_degree[e.id] >= options.pred_min_degree]
    matched, near = match_entities(pred_entities, ref_entities, renames, embedder, options)

    symmetric = {r.name for r in schema.relation_types if r.symmetric}
    # Derived types (life_stage_of) come from later stages, never from the text or a reference.
    event_rel = {r.name for r in schema.relation_types if r.event_centric or r.derived}
    all_ref = {relation_key(r.source, r.type, r.target, symmetric) for r in reference.relations}
    scored_rel = {
        k for k in all_ref if k[0] in scored and k[2] in scored and k[1] not in event_rel
    }
    pred_ids = {e.id for e in pred_entities}
    relation_types: dict[str, PRF] = defaultdict(PRF)
    found: set[tuple[str, str, str]] = set()
    neutral_relations = 0
    for rel in predicted.relations:
        if rel.type in event_rel or rel.source not in pred_ids or rel.target not in pred_ids:
            continue
        s, o = matched.get(rel.source), matched.get(rel.target)
        if (s is not None and s not in scored) or (o is not None and o not in scored):
            neutral_relations += 1
            continue
        key = relation_key(s, rel.type, o, symmetric) if s and o else None
        if key in scored_rel:
            if key not in found:
                found.add(key)
                relation_types[rel.type] = relation_types[rel.type] + PRF(tp=1)
        elif key in all_ref:
            neutral_relations += 1
        else:
            relation_types[rel.type] = relation_types[rel.type] + PRF(fp=1)
    for key in scored_rel - found:
        relation_types[key[1]] = relation_types[key[1]] + PRF(fn=1)
    return Grading(scored_entities=scored, scored_relations=scored_rel, matched=matched, found=found,
                   pred_entities=pred_entities, near=near, relation_types=relation_types,
                   neutral_relations=neutral_relations)


def score_movie(
    predicted: KnowledgeGraph,
    reference: KnowledgeGraph,
    *,
    renames: dict[str, str] | None = None,
    embedder: Embedder,
    options: ScoreOptions | None = None,
    schema: Schema | None = None,
    movie: str = "",
    title: str = "",
    graded: Grading | None = None,
) -> MovieScore:
    """Score one predicted graph against one reference graph with the STAGE-KG protocol.

    Args:
        predicted: The graph to score (unknown types and dangling relations already removed).
        reference: The reference graph.
        renames: The reference's rename map (alias -> canonical), applied to predicted names.
        embedder: Embeds names for the similarity step.
        options: Protocol choices; defaults documented in `ScoreOptions`.
        schema: The schema; default STAGE-KG.
        movie: The movie id, for reports.
        title: The movie's title, for reports.
        graded: The same pair already graded with these options (`grade`), when the caller needs
            the grading too (`kgbuild.evaluation.missed`); graded here otherwise.

    Returns:
        Entity and relation P/R/F1, per type, and the material for explanations.
    """
    options = options or ScoreOptions()
    schema = schema or load_schema()
    if graded is None:
        graded = grade(predicted, reference, renames=renames or {}, embedder=embedder, options=options,
                       schema=schema)
    matched, scored = graded.matched, graded.scored_entities

    ref_by_id = {e.id: e for e in reference.entities}
    entity_types: dict[str, PRF] = defaultdict(PRF)
    false_pos: dict[str, list[str]] = defaultdict(list)
    neutral_entities = 0
    cross_type: list[CrossTypeMatch] = []
    for p in graded.pred_entities:
        r = matched.get(p.id)
        if r is not None and ref_by_id[r].type != p.type:
            cross_type.append(CrossTypeMatch(
                predicted=p.name, predicted_type=p.type, reference=ref_by_id[r].name,
                reference_type=ref_by_id[r].type, counted=r in scored))
        if r is None:
            entity_types[p.type] = entity_types[p.type] + PRF(fp=1)
            false_pos[p.type].append(p.name)
        elif r in scored:
            entity_types[p.type] = entity_types[p.type] + PRF(tp=1)
        else:
            neutral_entities += 1
    hit = set(matched.values())
    unmatched_ref: dict[str, list[str]] = defaultdict(list)
    for rid in sorted(scored - hit):
        e = ref_by_id[rid]
        entity_types[e.type] = entity_types[e.type] + PRF(fn=1)
        unmatched_ref[e.type].append(e.name)
    relation_types = graded.relation_types
    ends = Counter((source in hit) + (target in hit) for source, _, target in graded.scored_relations - graded.found)
    missed = MissedRelations(both_ends_matched=ends[2], one_end_matched=ends[1], no_end_matched=ends[0])

    return MovieScore(
        movie=movie,
        title=title,
        entities=micro(list(entity_types.values())),
        relations=micro(list(relation_types.values())),
        entity_types=dict(sorted(entity_types.items())),
        relation_types=dict(sorted(relation_types.items())),
        neutral_entities=neutral_entities,
        neutral_relations=graded.neutral_relations,
        scored_reference_entities=len(scored),
        scored_reference_relations=len(graded.scored_relations),
        unmatched_reference={k: sorted(v) for k, v in sorted(unmatched_ref.items())},
        false_positives={k: sorted(v) for k, v in sorted(false_pos.items())},
        near_misses=sorted(graded.near, key=lambda n: -n.similarity),
        cross_type_matches=sorted(cross_type, key=lambda c: (c.predicted_type, c.predicted, c.reference)),
        missed_relations=missed,
        named_otherwise=_named_otherwise([ref_by_id[i] for i in sorted(scored - hit)], graded.pred_entities),
        protocol=protocol_name(options),
        scene_ranges=list(reference.movie.scene_ranges),
    )

"""Entity merging, end to end: normalize, embed, cluster, adjudicate, apply (STAGE app. C.2).

`plan_merges` decides (rule normalization, LLM normalization of what the rules cannot settle
when an LLM is configured, groups of equal normalized names, then per entity type: clusters of
the groups and their adjudication) and `apply_merges`
rewrites the graph: entity ids, names, aliases and every relation endpoint, then relations are
deduplicated again. Life-stage pairs (`YOUNG X` / `X`) are not merged but linked: a
`life_stage_of` relation between the surviving entities. `merge_graph` does both and returns the
merge log, one entry per merge, kept-apart cluster, life-stage link and failed adjudication.

Example:
    >>> graph, log = merge_graph(graph, screenplay, default_embedder(), None, MergeOptions())
    >>> [e.model_dump_json() for e in log]      # what went into what, and why
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from kgbuild.canonicalize.adjudicate import (
    Link,
    NameContext,
    Verdict,
    adjudicate_llm,
    adjudicate_offline,
    canonical_choice,
)
from kgbuild.canonicalize.cluster import (
    ClusterOptions,
    affix_pairs,
    alias_pairs,
    candidate_clusters,
    join_clusters,
    word_affix_pairs,
)
from kgbuild.canonicalize.constraints import Candidate, SpeakerIndex, split_by_constraints
from kgbuild.canonicalize.dual_embed import description_text, embed_dual
from kgbuild.canonicalize.llm_normalize import NormalizationFailure, normalize_with_llm
from kgbuild.canonicalize.normalize import fold, normalize_entities
from kgbuild.canonicalize.repairs import RepairCount, dedupe_relations
from kgbuild.embeddings import Embedder
from kgbuild.graph import (
    canonical_key,
    entity_id,
    merge_entity_records,
    merge_evidence,
    relation_id,
    rewire_relations,
)
from kgbuild.llm.gather import gather_requests
from kgbuild.llm.types import StructuredLLM
from kgbuild.model import Entity, KnowledgeGraph, Persistence, Relation, Scope, Screenplay
from kgbuild.schema import Schema, load_schema

if TYPE_CHECKING:
    from kgbuild.llm.client import LLMClient
    from kgbuild.llm.settings import LLMSettings
    from kgbuild.llm.types import ChatBackend

logger = logging.getLogger(__name__)

#: The relation type of a life-stage link (`YOUNG X` -> `X`), and the producer of its evidence.
LIFE_STAGE_RELATION = "life_stage_of"
LIFE_STAGE_PRODUCER = "rule:life_stage"


class MergeOptions(BaseModel):
    """Settings of the merge stage."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cluster: ClusterOptions = Field(default_factory=ClusterOptions)
    types: list[str] | None = Field(
        default=None, description="Entity types to merge; None means every non-event type of the schema.")
    llm_normalize: bool = Field(
        default=True, description="With an LLM: let it normalize the mentions the rules cannot settle.")
    merge_local: bool = Field(
        default=False, description="Also merge local (scene-bound) entities; by default they only meet "
        "names equal up to case and punctuation.")
    keep_apart: list[frozenset[str]] = Field(
        default_factory=list, description="Entity id sets never merged together (the corrections "
        "file's 'split' lines).")


class MergeLogEntry(BaseModel):
    """One line of merge_log.jsonl.

    A life-stage pair is logged once, as a `link` between surviving ids: the link wins over
    keeping apart, so the life-stage mention leaves its cluster's `keep_apart` line (and so does
    its base when nothing else of the cluster stays apart from it). `error` lines keep every
    mention the failed adjudication was about.
    """

    model_config = ConfigDict(extra="forbid")

    action: Literal["merge", "keep_apart", "link", "error"]
    type: str
    into: str | None = Field(default=None, description="The surviving entity id (merge, link).")
    canonical_name: str | None = None
    members: list[str] = Field(description="Entity ids involved.")
    names: list[str] = Field(description="Their names, same order.")
    adjudicator: str
    evidence: list[str] = Field(default_factory=list)


class PlannedMerge(BaseModel):
    """Entities to merge into one."""

    model_config = ConfigDict(extra="forbid")

    members: list[str] = Field(description="Entity ids merged together.")
    canonical_name: str
    into: str = Field(description="The id of the merged entity.")


class PlannedLink(BaseModel):
    """A life-stage mention and the entity it is a version of (linked, never merged)."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="The life-stage entity id (YOUNG X), after the plan's merges.")
    target: str = Field(description="The base entity id (X), after the plan's merges.")
    reason: str


class MergePlan(BaseModel):
    """The decisions of one merge run, before they are applied."""

    model_config = ConfigDict(extra="forbid")

    groups: list[PlannedMerge] = Field(default_factory=list)
    links: list[PlannedLink] = Field(default_factory=list)
    log: list[MergeLogEntry] = Field(default_factory=list)


def _candidates(entities: list[Entity], speakers: SpeakerIndex | None, schema: Schema) -> list[Candidate]:
    normalized = normalize_entities(entities, schema=schema)
    alias_owners = Counter(fold(a) for e in entities for a in {e.name, *e.aliases})
    person = schema.type_for_role("person")
    out = []
    for item in normalized:
        ent = item.entity
        speaking: tuple[int, ...] = ()
        if speakers is not None and item.type == person:
            names = [ent.name, *(a for a in ent.aliases if alias_owners[fold(a)] == 1)]
            speaking = speakers.speaking_scenes(names)
        out.append(Candidate(id=ent.id, name=ent.name, type=item.type, description=ent.description,
                             norm=item.name, scenes=tuple(ent.scenes), speaking=speaking, scope=item.scope))
    return out


def _normalization_groups(block: list[Candidate], merge_local: bool = False) -> list[list[Candidate]]:
    """Mentions whose normalized names are equal (same key, versions, title and article) form one
    group, split where a hard constraint keeps two of them apart. Local (scene-bound) mentions
    only group with names equal up to case and punctuation."""
    by_key: dict[tuple, list[Candidate]] = {}
    for cand in block:
        norm = cand.norm
        key = (("local", canonical_key(cand.name)) if cand.scope == Scope.LOCAL and not merge_local
               else (norm.key, norm.versions, norm.honorific, norm.article))
        by_key.setdefault(key, []).append(cand)
    return _split_buckets(by_key.values())


def _split_buckets(buckets: Iterable[list[Candidate]]) -> list[list[Candidate]]:
    """Each bucket of look-alike candidates, split where a hard constraint keeps two apart."""
    groups = []
    for members in buckets:
        while members:
            kept, removed = split_by_constraints(members)
            groups.append(kept)
            members = [c for c, _ in removed]
    return groups


def _same_name_groups(block: list[Candidate]) -> list[list[Candidate]]:
    """Mentions that cannot be normalized ('He', 'kid') but whose names are equal up to case and
    punctuation: one entity under kgbuild's identity (`entity_id`), so they form one group."""
    by_key: dict[str, list[Candidate]] = {}
    for cand in block:
        if canonical_key(cand.name):
            by_key.setdefault(canonical_key(cand.name), []).append(cand)
    return [group for group in _split_buckets(by_key.values()) if len(group) > 1]


def _representative(group: list[Candidate]) -> Candidate:
    """One candidate standing for a normalization group: its best name, richest description."""
    best = canonical_choice(group)
    return best.model_copy(update={
        "description": max((c.description for c in group), key=len),
        "scenes": tuple(sorted({s for c in group for s in c.scenes})),
        "speaking": tuple(sorted({s for c in group for s in c.speaking})),
    })


class _Planner:
    """Collects merges (expanded from representatives to all their group's members) and the log."""

    def __init__(self, entities: list[Entity], keep_apart: Sequence[frozenset[str]], schema: Schema):
        self.plan = MergePlan()
        self._taken = {e.id for e in entities}
        self._names = {e.id: e.name for e in entities}
        self._apart = [s for s in keep_apart if len(s) > 1]
        self._canonical: dict[str, str] = {}
        self._links: list[tuple[Link, str, str]] = []
        self._schema = schema

    def _split(self, members: list[str], etype: str) -> list[str]:
        """The members the corrections file lets merge (the first of each kept-apart set stays)."""
        kept: list[str] = []
        for m in members:
            if any(m in s and any(k in s for k in kept) for s in self._apart):
                self.plan.log.append(MergeLogEntry(
                    action="keep_apart", type=etype, members=[m, *kept], names=[self._names[m]],
                    adjudicator="corrections", evidence=["split in the corrections file"]))
            else:
                kept.append(m)
        return kept

    def merge(self, members: list[str], canonical: str, etype: str, adjudicator: str,
              evidence: list[str]) -> None:
        wanted = members
        members = self._split(members, etype)
        if len(members) < 2:
            return
        if members != wanted and any(self._names[m] == canonical for m in wanted if m not in members):
            canonical = self._names[members[0]]
        into = next((m for m in members if self._names[m] == canonical), None)
        if into is None:
            fresh = entity_id(etype, canonical)
            into = fresh if fresh not in self._taken else members[0]
        self._taken.add(into)
        self._canonical[into] = canonical
        self.plan.groups.append(PlannedMerge(members=members, canonical_name=canonical, into=into))
        self.plan.log.append(MergeLogEntry(action="merge", type=etype, into=into, canonical_name=canonical,
                                           members=members, names=[self._names[m] for m in members],
                                           adjudicator=adjudicator, evidence=evidence))

    def verdict(self, verdict: Verdict, cluster: list[Candidate], expand: dict[str, list[str]]) -> set[str]:
        """Record one cluster's verdict; returns the representative ids it merged.

        Life-stage links are kept for `finish_links` (the schema must admit them for the
        cluster's type); the mentions they explain leave the `keep_apart` line.
        """
        etype = cluster[0].type
        merged: set[str] = set()
        for group in verdict.groups:
            members = [m for rep in group.members for m in expand[rep]]
            self.merge(members, group.canonical_name, etype, verdict.adjudicator, group.evidence)
            merged.update(group.members)
        links = verdict.links if self._schema.is_admissible(LIFE_STAGE_RELATION, etype, etype) else []
        self._links += [(link, etype, verdict.adjudicator) for link in links]
        if verdict.error:
            ids = list(verdict.kept_apart)
            self.plan.log.append(MergeLogEntry(
                action="error", type=etype, members=ids, names=[self._names[i] for i in ids],
                adjudicator=verdict.adjudicator, evidence=[verdict.error]))
            return merged
        linked = {link.source for link in links}  # life-stage mentions: their link says why
        others = [c.id for c in cluster if c.id not in linked]
        ids = [i for i in verdict.kept_apart if i not in linked and any(o != i for o in others)]
        if ids:
            self.plan.log.append(MergeLogEntry(
                action="keep_apart", type=etype, members=ids, names=[self._names[i] for i in ids],
                adjudicator=verdict.adjudicator,
                evidence=[f"{self._names[i]}: {verdict.kept_apart[i]}" for i in ids]))
        return merged

    def _name(self, entity: str) -> str:
        return self._canonical.get(entity) or self._names[entity]

    def finish_links(self) -> None:
        """Add the life-stage links, their ends moved to the entities they merged into, to the plan
        and the log (one per pair; a pair merged into one entity is no link)."""
        into = {m: group.into for group in self.plan.groups for m in group.members}
        seen: set[tuple[str, str]] = set()
        for link, etype, adjudicator in self._links:
            source, target = into.get(link.source, link.source), into.get(link.target, link.target)
            if source == target or (source, target) in seen:
                continue
            seen.add((source, target))
            self.plan.links.append(PlannedLink(source=source, target=target, reason=link.reason))
            self.plan.log.append(MergeLogEntry(
                action="link", type=etype, into=target, members=[source, target],
                names=[self._name(source), self._name(target)], adjudicator=adjudicator,
                evidence=[link.reason]))


async def _adjudicate_all(clusters: list[list[Candidate]], contexts: dict[str, NameContext],
                          client: StructuredLLM | None, schema: Schema) -> list[Verdict]:
    if client is None:
        return [adjudicate_offline(c, contexts[c[0].type]) for c in clusters]
    return await gather_requests(adjudicate_llm(c, client, schema=schema) for c in clusters)


async def plan_merges_async(entities: list[Entity], *, speakers: SpeakerIndex | None, embedder: Embedder,
                            client: StructuredLLM | None, options: MergeOptions | None = None,
                            schema: Schema | None = None) -> MergePlan:
    """`plan_merges` inside a running event loop (the LLM client is async)."""
    options = options or MergeOptions()
    schema = schema or load_schema()
    person, place = schema.type_for_role("person"), schema.type_for_role("place")
    types = set(options.types) if options.types is not None else {
        t for t in schema.entity_type_names() if not schema.is_event_centric_entity(t)}
    candidates = [c for c in _candidates(entities, speakers, schema) if c.type in types]
    aliases = {e.id: list(e.aliases) for e in entities}
    failures: list[NormalizationFailure] = []
    if client is not None and options.llm_normalize:
        candidates, failures = await normalize_with_llm(candidates, client, sorted(types), schema=schema)
    blocks: dict[str, list[Candidate]] = {}
    for cand in candidates:
        blocks.setdefault(cand.type, []).append(cand)
    clusters: list[list[Candidate]] = []
    contexts: dict[str, NameContext] = {}
    expand: dict[str, list[str]] = {}
    groups_of: dict[str, list[Candidate]] = {}
    same_name: list[list[Candidate]] = []
    places = frozenset(c.norm.key for c in blocks.get(place or "", ()) if c.norm.cjk and c.norm.comparable)
    for etype, block in sorted(blocks.items()):
        contexts[etype] = NameContext(block, places, speakers.common_words if speakers else frozenset(), schema)
        reps = []
        same_name += _same_name_groups([c for c in block if not c.norm.comparable])
        for group in _normalization_groups([c for c in block if c.norm.comparable], options.merge_local):
            rep = _representative(group)
            expand[rep.id] = [c.id for c in group]
            groups_of[rep.id] = group
            if rep.scope == Scope.GLOBAL or options.merge_local:
                reps.append(rep)
        if len(reps) < 2:
            continue
        emb = embed_dual(embedder, [c.norm.display for c in reps],
                         [description_text(etype, c.name, c.description) for c in reps])
        rows = join_clusters(len(reps), candidate_clusters(emb, options.cluster),
                             affix_pairs([c.norm.key if c.norm.cjk else "" for c in reps])
                             + word_affix_pairs([c.norm.tokens if not c.norm.cjk and etype != person
                                                 else () for c in reps])
                             + alias_pairs([c.name for c in reps],
                                           [[a for m in groups_of[c.id] for a in aliases[m.id]] for c in reps]))
        clusters += [[reps[i] for i in group] for group in rows]
    verdicts = await _adjudicate_all(clusters, contexts, client, schema)
    planner = _Planner(entities, options.keep_apart, schema)
    for failure in failures:
        planner.plan.log.append(MergeLogEntry(action="error", type=failure.type, members=failure.ids,
                                              names=failure.names, adjudicator="llm-normalize",
                                              evidence=[failure.error]))
    merged: set[str] = set()
    for cluster, verdict in zip(clusters, verdicts, strict=True):
        merged |= planner.verdict(verdict, cluster, expand)
    for group in same_name:
        planner.merge([c.id for c in group], canonical_choice(group).name, group[0].type, "normalize",
                      [f"same name up to case and punctuation '{canonical_key(group[0].name)}'"])
    for rep_id, group in groups_of.items():
        if rep_id not in merged and len(group) > 1:
            planner.merge([c.id for c in group], canonical_choice(group).name, group[0].type, "normalize",
                          [f"same normalized name '{group[0].norm.key}'"])
    planner.finish_links()
    logger.info("merge: %d candidates, %d clusters, %d merges", len(candidates), len(clusters),
                len(planner.plan.groups))
    return planner.plan


def plan_merges(entities: list[Entity], *, speakers: SpeakerIndex | None, embedder: Embedder,
                client: StructuredLLM | None = None, options: MergeOptions | None = None,
                schema: Schema | None = None) -> MergePlan:
    """Decide which entities merge: normalize, embed, cluster per type, adjudicate.

    Args:
        entities: The entities (or raw mentions) to consider; ids must be unique.
        speakers: Who speaks in which scene (hard constraints); None without a screenplay.
        embedder: Name and description embedder (a `CachedEmbedder` caches on disk).
        client: LLM adjudicator; None adjudicates offline with rules.
        options: Merge settings; defaults when None.
        schema: The schema (types to merge, person and place types, merge rules, type
            priority); the default STAGE-KG schema when None.

    Returns:
        The groups to merge, their canonical names, life-stage links (between the ids that
        survive the merges) and the merge log (a cluster or batch of mentions whose LLM answer
        could not be used is an `error` entry).

    Raises:
        LLMRequestError, BudgetExceededError, BatchPendingError: from the LLM client; they stop
            the stage (see `merge_graph_llm`).
    """
    return asyncio.run(plan_merges_async(entities, speakers=speakers, embedder=embedder, client=client,
                                         options=options, schema=schema))


def _merged_entity(members: list[Entity], canonical: str, new_id: str, schema: Schema) -> Entity:
    """The members as one entity: the canonical name and id, the members' majority type (ties:
    the schema's type priority), the rest merged by `kgbuild.graph.merge_entity_records` (every
    member's name becomes an alias)."""
    types = Counter(e.type for e in members)
    etype = max(types, key=lambda t: (types[t], -schema.type_rank(t)))
    return merge_entity_records(Entity(id=new_id, name=canonical, type=etype), *members)


def life_stage_relation(younger: Entity, base: Entity, reason: str) -> Relation | None:
    """The `life_stage_of` relation from a life-stage mention to the entity it is a version of.

    Its evidence is the first evidence item of each entity, produced by `LIFE_STAGE_PRODUCER`.

    Args:
        younger: The life-stage entity (YOUNG EDWARD).
        base: The entity it is a version of (EDWARD).
        reason: Why they are linked; the relation's description.

    Returns:
        The relation, or None when neither entity has evidence (a fact without it is not written).

    Example:
        >>> life_stage_relation(young_edward, edward, "'Young Edward' is 'Edward' at another life stage").type
        'life_stage_of'
    """
    evidence = merge_evidence([ev.model_copy(update={"producer": LIFE_STAGE_PRODUCER})
                               for ev in (*younger.evidence[:1], *base.evidence[:1])])
    if not evidence:
        return None
    return Relation(id=relation_id(younger.id, LIFE_STAGE_RELATION, base.id), source=younger.id,
                    target=base.id, type=LIFE_STAGE_RELATION, description=reason,
                    scenes=sorted({ev.scene for ev in evidence}), persistence=Persistence.STABLE,
                    evidence=evidence)


def _link_relations(entities: list[Entity], links: list[PlannedLink], mapping: dict[str, str],
                    schema: Schema) -> list[Relation]:
    """The `life_stage_of` relations of the plan's links, between the entities that survive."""
    by_id = {e.id: e for e in entities}
    out = []
    for link in links:
        younger = by_id.get(mapping.get(link.source, link.source))
        base = by_id.get(mapping.get(link.target, link.target))
        if younger is None or base is None or younger.id == base.id:
            logger.warning("life-stage link %s -> %s skipped: no such entity after the merges", link.source,
                           link.target)
        elif not schema.is_admissible(LIFE_STAGE_RELATION, younger.type, base.type):
            logger.warning("life-stage link %s -> %s skipped: the schema does not admit %s -> %s", younger.id,
                           base.id, younger.type, base.type)
        elif (rel := life_stage_relation(younger, base, link.reason)) is None:
            logger.warning("life-stage link %s -> %s not written: neither entity has evidence", younger.id,
                           base.id)
        else:
            out.append(rel)
    return out


def apply_merges(graph: KnowledgeGraph, plan: MergePlan, *, schema: Schema | None = None
                 ) -> tuple[KnowledgeGraph, RepairCount]:
    """Rewrite entities and relation endpoints by the plan, then deduplicate relations.

    A merged entity keeps the evidence of all its members, and relations that become one keep
    the evidence of both (the one merge policy: `kgbuild.graph.merge_entity_records`,
    `merge_relation_records`). Relations between two merged members
    (now self-relations) are dropped. Each life-stage link becomes a `life_stage_of` relation
    between the surviving entities (`life_stage_relation`); the entity attribute of that name,
    which older kgbuild versions wrote instead, is dropped.

    Args:
        graph: The graph (not changed).
        plan: The merge decisions.
        schema: The schema (type priority, admissible life-stage links); the default STAGE-KG
            schema when None.

    Returns:
        The new graph (the input is not changed) and the relation dedupe count.
    """
    schema = schema or load_schema()
    by_id = {e.id: e for e in graph.entities}
    mapping: dict[str, str] = {}
    replaced: dict[str, Entity] = {}
    for group in plan.groups:
        replaced[group.into] = _merged_entity([by_id[m] for m in group.members], group.canonical_name,
                                              group.into, schema)
        mapping.update({m: group.into for m in group.members})
    entities: list[Entity] = []
    emitted: set[str] = set()
    for ent in graph.entities:
        target = mapping.get(ent.id, ent.id)
        if target in emitted:
            continue
        emitted.add(target)
        entities.append(replaced.get(target, ent))
    entities = [e.model_copy(update={"attributes": {k: v for k, v in e.attributes.items()
                                                    if k != LIFE_STAGE_RELATION}})
                if LIFE_STAGE_RELATION in e.attributes else e for e in entities]
    relations = [r for r in rewire_relations(graph.relations, mapping) if r.source != r.target]
    relations += _link_relations(entities, plan.links, mapping, schema)
    merged = graph.model_copy(update={"entities": entities, "relations": relations})
    return dedupe_relations(merged)


def merge_graph(graph: KnowledgeGraph, screenplay: Screenplay | None, embedder: Embedder,
                client: StructuredLLM | None, options: MergeOptions | None = None, *,
                schema: Schema | None = None) -> tuple[KnowledgeGraph, list[MergeLogEntry]]:
    """Merge a graph's entities and return the new graph and the merge log.

    Args:
        graph: The graph (not changed).
        screenplay: Its screenplay, for the hard constraints (who speaks where); may be None.
        embedder: Name and description embedder.
        client: LLM adjudicator, or None for the offline rules.
        options: Merge settings.
        schema: The graph's schema; the default STAGE-KG schema when None.

    Returns:
        The merged graph (every relation endpoint is an entity) and the log entries.
    """
    speakers = SpeakerIndex.from_screenplay(screenplay) if screenplay is not None else None
    plan = plan_merges(graph.entities, speakers=speakers, embedder=embedder, client=client, options=options,
                       schema=schema)
    merged, _ = apply_merges(graph, plan, schema=schema)
    return merged, plan.log


def merge_graph_llm(graph: KnowledgeGraph, screenplay: Screenplay | None, embedder: Embedder,
                    settings: LLMSettings, *, backend: ChatBackend | None = None,
                    options: MergeOptions | None = None, schema: Schema | None = None
                    ) -> tuple[KnowledgeGraph, list[MergeLogEntry]]:
    """`merge_graph` with the LLM adjudicator of a build's LLM settings.

    The client comes from `kgbuild.llm.factory.open_llm_client`, as extraction's does: same
    endpoint, model, response cache, concurrency, timeouts, retries, budget limits (counting the
    merge requests of this run only) and batch-export mode. A cluster whose answer cannot be
    used is kept apart and logged; a refused request, the budget and batch export stop the stage.

    In batch-export mode the stage runs in up to two rounds, as extraction does: the
    normalization requests the cache does not hold yet, then (their answers imported) the
    adjudication requests; each round writes `settings.batch_export` and raises.

    Args:
        graph: The graph (not changed).
        screenplay: Its screenplay, for the hard constraints; may be None.
        embedder: Name and description embedder.
        settings: The LLM settings of the build.
        backend: Send requests here instead of the settings' endpoint (a scripted backend in tests).
        options: Merge settings.
        schema: The graph's schema; the default STAGE-KG schema when None.

    Returns:
        The merged graph and the merge log.

    Raises:
        BatchPendingError: batch-export mode and requests are pending; they were written to
            `settings.batch_export`.
        BudgetExceededError: the budget stopped the stage; completed answers are cached.
        LLMRequestError: the server refused the requests (key, model, URL).
    """
    from kgbuild.llm.factory import open_llm_client, raise_pending
    from kgbuild.llm.types import BatchPendingError, BudgetExceededError

    speakers = SpeakerIndex.from_screenplay(screenplay) if screenplay is not None else None

    async def run(client: LLMClient) -> MergePlan:
        async with client:
            return await plan_merges_async(graph.entities, speakers=speakers, embedder=embedder,
                                           client=client, options=options, schema=schema)

    with open_llm_client(settings, backend=backend) as client:
        try:
            plan = asyncio.run(run(client))
        except BatchPendingError:
            usage = client.usage().total
            raise_pending(client, settings, f"entity merging needs them ({usage.cache_hits} of its "
                          f"{usage.calls} requests answered from the cache)")
            raise
        except BudgetExceededError as e:
            raise BudgetExceededError(f"the budget stopped entity merging: {e}") from e
    merged, _ = apply_merges(graph, plan, schema=schema)
    return merged, plan.log

"""The six steps of the Retain Job for one observation (docs/retain.md), against the chunk's
in-memory graph: resolve the actors, deduplicate by alias, compute schema_fit, detect
conflicts, write entities, relations and facts, reinforce. Embedding-based deduplication
runs offline afterwards (memory.services.embeddings)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from memory.config import DecayConfig, TaxonomySection
from memory.decay.formulas import (
    EntityState,
    StrengthShape,
    days_between,
    strength_shape,
)
from memory.models import EntityStatus, FactStatus, Namespace, Route
from memory.models.embeddings import DedupState
from memory.retain.extraction import (
    EntitySpec,
    Extraction,
    FactSpec,
    ObservationView,
    scope_widened,
    scopes_meet,
)
from memory.retain.fit import FitParts, actor_credit, pair_prior, route_of, schema_fit
from memory.retain.text import claim_lemmas, content_lemmas, jaccard, normalize
from memory.services.retain_graph import FactRow, GraphCache, Node
from memory.services.retain_writes import (
    MEMORY_CATEGORY,
    ChunkWrites,
    ConflictRow,
    MemoryWrite,
    Outcome,
    ReviewRow,
)
from memory.services.taxonomy import namespace_resolve

DARK = Route.DARK_MATTER
LIVE_FACTS = (FactStatus.ACTIVE, FactStatus.CONTESTED, FactStatus.SCOPED)


@dataclass(frozen=True)
class Replay:
    """Re-applying an observation already retained as dark matter, on a forced route."""

    route: str
    skip_reinforcing: frozenset[str] = frozenset()
    evidenced_facts: frozenset[tuple[str, str, int]] = frozenset()


def matches_any(namespace: str, patterns: Collection[str]) -> bool:
    parts = namespace.split(":")
    for pattern in patterns:
        segments = pattern.split(":")
        if len(parts) >= len(segments) and all(
            s in ("*", p) for s, p in zip(segments, parts, strict=False)
        ):
            return True
    return False


@lru_cache(maxsize=4096)
def path_lemmas(namespace: str) -> frozenset[str]:
    return content_lemmas(namespace.replace(":", " ").replace("-", " ").replace("_", " "))


class _Described:
    """Which paths a taxonomy has a node for (`node_for(path) is not None`), without
    scanning its nodes at each path: the literal patterns by their path, the others (with a
    `*` segment) by their depth."""

    KEPT = 50_000

    def __init__(self, taxonomy: TaxonomySection) -> None:
        self.known: dict[str, bool] = {}
        self.literal: set[str] = set()
        self.wild: dict[int, list[tuple[str, ...]]] = {}
        for pattern in taxonomy.resolved:
            segments = tuple(pattern.split(":"))
            if "*" in segments:
                self.wild.setdefault(len(segments), []).append(segments)
            else:
                self.literal.add(pattern)

    def __call__(self, path: str) -> bool:
        known = self.known.get(path)
        if known is None:
            if len(self.known) >= self.KEPT:
                self.known.clear()
            known = self.known[path] = self._describes(path)
        return known

    def _describes(self, path: str) -> bool:
        if path in self.literal:
            return True
        wild = self.wild.get(path.count(":") + 1)
        if not wild:
            return False
        parts = path.split(":")
        return any(all(p == "*" or p == s for p, s in zip(pattern, parts, strict=True))
                   for pattern in wild)


# id(owner) -> (owner, what was built for it): a config never changes once loaded; tests swap
# a few. The owner is kept alive, so that its id is not reused.
_CONFIGS_KEPT = 8
_Kept = TypeVar("_Kept")


def _kept_for(cache: dict[int, tuple[object, _Kept]], owner: object,
              make: Callable[[], _Kept]) -> _Kept:
    held = cache.get(id(owner))
    if held is None or held[0] is not owner:
        if len(cache) >= _CONFIGS_KEPT:
            cache.clear()
        held = cache[id(owner)] = (owner, make())
    return held[1]


_DESCRIBED: dict[int, tuple[object, _Described]] = {}


def describer_for(config: DecayConfig) -> _Described:
    taxonomy = config.taxonomy
    return _kept_for(_DESCRIBED, taxonomy, lambda: _Described(taxonomy))


def described(config: DecayConfig, path: str) -> bool:
    """Whether the taxonomy has a node for `path`."""
    return describer_for(config)(path)


# The parameters of an unpinned entity's strength shape, in EntityState's order.
ShapeKey = tuple[float, float, str, int, int, int, str]


class _Shapes:
    """Strength shapes by entity parameters, for one config (kept alive: its id is the key)."""

    KEPT = 20_000

    def __init__(self, config: DecayConfig) -> None:
        self.config = config
        self.shapes: dict[ShapeKey, StrengthShape] = {}

    def __call__(self, key: ShapeKey) -> StrengthShape:
        shape = self.shapes.get(key)
        if shape is None:
            if len(self.shapes) >= self.KEPT:
                self.shapes.clear()
            base, half, valence, pos, neg, count, route = key
            state = EntityState(base=base, half_life_days=half, valence=valence, pos=pos,
                                neg=neg, retrieval_count=count, route=route, pinned=False)
            shape = self.shapes[key] = strength_shape(state, config=self.config)
        return shape


_SHAPES: dict[int, tuple[object, _Shapes]] = {}


def shapes_for(config: DecayConfig) -> _Shapes:
    return _kept_for(_SHAPES, config, lambda: _Shapes(config))


class ObservationStep:
    """One observation through the steps; `plan` may fail (nothing changed), `apply` cannot."""

    def __init__(self, view: ObservationView, extraction: Extraction, *, cache: GraphCache,
                 writes: ChunkWrites, config: DecayConfig, replay: Replay | None = None,
                 specific_handler: bool = True):
        self.view, self.extraction, self.cache = view, extraction, cache
        self.specific_handler = specific_handler
        self.writes, self.config, self.replay = writes, config, replay
        self.resolved: dict[str, Node | None] = {}
        self.fit: FitParts | None = None
        self.route = ""
        self.describes, self.shapes = describer_for(config), shapes_for(config)

    # -- steps 1 to 3: resolve, alias dedup, schema_fit ------------------------------------

    def structural(self, spec: EntitySpec) -> bool:
        """A key the taxonomy itself names (self:operator, agent:claude-code): known structure."""
        return self.describes(spec.full_key)

    def plan(self) -> None:
        for spec in self.extraction.entities:
            self.resolved[spec.ref] = self.cache.find(
                key=spec.full_key, namespace=spec.namespace, names=(spec.name, *spec.aliases),
                also_in=spec.also_in)
        actors = [s for s in self.extraction.entities if s.actor] or list(self.extraction.entities)
        credits = [actor_credit(known=self.structural(s) or self._active(self.resolved[s.ref]),
                                described=self.describes(s.namespace),
                                config=self.config) for s in actors]
        target = self.view.target_namespace
        lemmas = content_lemmas(self.view.topic)
        self.fit = schema_fit(
            actor_credits=credits,
            prior=pair_prior(described=self.describes(target),
                             specific_handler=self.specific_handler, config=self.config),
            retained=self.cache.retained_count(self.view.category, target),
            topic_known=sum(1 for lemma in lemmas
                            if lemma in self.cache.vocabulary[target]
                            or lemma in path_lemmas(target)),
            topic_total=len(lemmas), config=self.config,
        )
        self.route = self.replay.route if self.replay else route_of(self.fit.value,
                                                                    config=self.config)
        for spec in self.extraction.entities:
            if self.resolved[spec.ref] is None:
                self._namespace(spec.namespace)  # NamespaceUnknown: the observation fails

    @staticmethod
    def _active(node: Node | None) -> bool:
        return node is not None and node.status == EntityStatus.ACTIVE

    def _namespace(self, path: str) -> Namespace:
        if path not in self.cache.namespaces:
            self.cache.namespaces[path] = namespace_resolve(path=path, config=self.config)
        return self.cache.namespaces[path]

    # -- steps 4 to 6: write, detect conflicts, reinforce ----------------------------------

    def apply(self) -> Outcome:
        assert self.fit is not None
        at = self.view.timestamp
        created: list[Node] = []
        nodes: dict[str, Node] = {}
        for spec in self.extraction.entities:
            node = self.resolved[spec.ref] or self.cache.find(
                key=spec.full_key, namespace=spec.namespace, names=(spec.name, *spec.aliases),
                also_in=spec.also_in)
            if node is None:
                node = self._create(spec)
                created.append(node)
            else:
                self._remember_names(node, spec)
            nodes[spec.ref] = node
        self._mentions(nodes, created)
        if self.view.category == MEMORY_CATEGORY:
            self.writes.memories.append(
                MemoryWrite(self.view, {ref: node.key for ref, node in nodes.items()}))
        dark = self.route == DARK
        if not dark:
            self._relations(nodes)
        for fact in self.extraction.facts:
            self._fact(nodes[fact.entity], fact)
        if not dark:
            target = self.view.target_namespace
            self.cache.add_vocabulary(target, content_lemmas(self.view.topic))
            self.cache.count_retained(self.view.category, target)
        quarantined = [n.key for n in created if n.status == EntityStatus.QUARANTINED]
        if dark:
            self.writes.reviews.append(ReviewRow(self.view.id, self.fit.value, at, quarantined))
        status = "quarantined" if dark else "retained"
        return Outcome(self.view.id, status, self.fit.value, self.route)

    def _create(self, spec: EntitySpec) -> Node:
        namespace = self._namespace(spec.namespace)
        structural = self.structural(spec)
        dark = self.route == DARK and not structural
        valence = self.view.sentiment if spec.principal else namespace.valence
        node = Node(
            key=spec.full_key, namespace=namespace,
            status=EntityStatus.QUARANTINED if dark else EntityStatus.ACTIVE,
            route=self.route if self.route != DARK or dark else Route.NORMAL,
            display_name=spec.name[:300], aliases=[a[:300] for a in spec.aliases if a != spec.name],
            base=namespace.base_strength, half_life_days=namespace.half_life_days,
            valence=valence, pinned=namespace.pinned,
            last_reinforced_at=self.view.timestamp, created_at=self.view.timestamp, new=True,
            dedup=self._dedup_state(namespace.path, structural),
        )
        self.cache.add_node(node)
        self.writes.created.append(node.key)
        for name in (spec.name, *spec.aliases):
            self.cache.add_alias(namespace.path, name, node.key)
        if node.status == EntityStatus.ACTIVE:
            self.cache.add_vocabulary(namespace.path, content_lemmas(spec.name))
            self.writes.regenerate(node.key, "created", at=self.view.timestamp)
        return node

    def _dedup_state(self, namespace: str, structural: bool) -> str:
        if structural or self.route != Route.NORMAL:
            return DedupState.SKIPPED
        if matches_any(namespace, self.config.retain.dedup.alias_only):
            return DedupState.SKIPPED
        return DedupState.PENDING

    def _remember_names(self, node: Node, spec: EntitySpec) -> None:
        """Step 2: a name found by key or alias that the entity did not carry becomes an alias
        (not from dark matter: unconfirmed signal names nothing)."""
        if self.route == DARK:
            return
        if self.cache.take_full_name(node, spec.name):
            self.writes.regenerate(node.key, "renamed", at=self.view.timestamp)
        known = node.known_names()
        for name in (spec.name, *spec.aliases):
            normalized = normalize(name)
            if normalized and normalized not in known:
                known.add(normalized)
                node.aliases_added.append(name[:300])
            self.cache.add_alias(node.namespace.path, name, node.key)

    def _mentions(self, nodes: dict[str, Node], created: list[Node]) -> None:
        at = self.view.timestamp
        skip = {n.key for n in created} | (self.replay.skip_reinforcing if self.replay else set())
        reinforced: set[str] = set()
        for spec in self.extraction.entities:
            node = nodes[spec.ref]
            recall = (self.route != DARK and node.status == EntityStatus.ACTIVE
                      and node.key not in skip and node.key not in reinforced)
            if recall:
                reinforced.add(node.key)
                self._reinforce(node)
            self.writes.mention(node.key, self.view.id, spec.role or "mentioned",
                                reinforced=recall or node.key in reinforced, at=at)

    def _reinforce(self, node: Node) -> None:
        """A recall at the observation's time. Its strength is asked to be regenerated when
        the recall moved it enough: `strength_after` before (at `at`, from the last recall)
        and after (0 days after this one); a pinned entity's never moves."""
        at = self.view.timestamp
        before = 0.0 if node.pinned else self._strength(node).at(
            days_between(since=node.last_reinforced_at, now=at))
        node.retrieval_count += 1
        node.reinforcements += 1
        node.last_reinforced_at = max(node.last_reinforced_at, at)
        node.reinforced_at = at if node.reinforced_at is None else max(node.reinforced_at, at)
        if node.pinned:
            return
        after = self._strength(node).at(0.0)  # last_reinforced_at >= at: 0 days
        moved = before == 0 or abs(after - before) >= self.config.thresholds.regeneration * before
        if moved:
            self.writes.regenerate(node.key, "strength", at=at, strength=after)

    def _strength(self, node: Node) -> StrengthShape:
        """The shape of an unpinned node's strength, shared by the nodes that have the same
        parameters (the same arithmetic, done once)."""
        return self.shapes((node.base, node.half_life_days, node.valence, node.pos, node.neg,
                            node.retrieval_count, node.route))

    def _relations(self, nodes: dict[str, Node]) -> None:
        for relation in self.extraction.relations:
            source, target = nodes[relation.source], nodes[relation.target]
            if source.key != target.key:
                self.writes.edges[(source.key, target.key, relation.type)].add(
                    self.view.timestamp, self.view.id)

    def _fact(self, node: Node, spec: FactSpec) -> None:
        lemmas = claim_lemmas(spec.claim, (node.display_name, *node.aliases, *node.aliases_added))
        lemma_key = " ".join(sorted(lemmas)) or normalize(spec.claim)
        facts = self.cache.facts_of(node)
        held = node.status == EntityStatus.QUARANTINED or self.route == DARK
        fact = facts.get((lemma_key, spec.polarity))
        at = self.view.timestamp
        if fact is None:
            fact = FactRow(
                entity_key=node.key, claim=spec.claim[:500], lemma_key=lemma_key[:500],
                lemmas=frozenset(lemmas), polarity=spec.polarity,
                status=FactStatus.QUARANTINED if held else FactStatus.ACTIVE,
                first_seen_at=at, last_seen_at=at, scope=spec.scope[:300],
                language=spec.language[:16], observation_id=self.view.id,
                event_ids=self.view.event_ids[:100],
            )
            facts[(lemma_key, spec.polarity)] = fact
            self.writes.new_facts.append(fact)
            if not held:
                self._detect_conflicts(node, fact)
        else:
            evidenced = self.replay and (node.key, lemma_key, spec.polarity) in \
                self.replay.evidenced_facts
            if not evidenced:
                fact.evidence_added += 1
                fact.first_seen_at = min(fact.first_seen_at, at)
                fact.last_seen_at = max(fact.last_seen_at, at)
                fact.scope = scope_widened(fact.scope, spec.scope[:300])
            if fact.status == FactStatus.QUARANTINED and not held:
                fact.status, fact.status_changed = FactStatus.ACTIVE, True
                self._detect_conflicts(node, fact)
            if fact.id is not None:
                self.writes.touched_facts[fact.id] = fact
        self.writes.fact_evidence.append((fact, self.view.id))
        if not held:
            self.cache.add_vocabulary(node.namespace.path, lemmas)
            self.writes.regenerate(node.key, "facts", at=at)

    def _detect_conflicts(self, node: Node, new: FactRow) -> None:
        """Step 4: an opposite claim whose lemmas overlap enough contradicts the new one."""
        threshold = self.config.retain.conflict_jaccard
        for other in list(self.cache.facts_of(node).values()):
            if other is new or other.polarity == new.polarity or other.status not in LIVE_FACTS:
                continue
            if not scopes_meet(other.scope, new.scope):  # each holds in its own project
                continue
            overlap = jaccard(new.lemmas, other.lemmas)
            if overlap >= threshold:
                if new.status != FactStatus.CONTESTED:
                    new.status, new.status_changed = FactStatus.CONTESTED, True
                self.writes.conflicts.append(ConflictRow(
                    node.key, other, new, overlap, self.view.id, self.view.timestamp))

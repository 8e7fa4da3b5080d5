"""memory's models, one module per thing; imported from here by the rest of the code."""

from memory.models.agents import Agent, Scope  # noqa: F401
from memory.models.compiled_truth import CompiledTrigger, CompiledTruth  # noqa: F401
from memory.models.context import ContextInjection  # noqa: F401
from memory.models.embeddings import DedupState, EntityEmbedding  # noqa: F401
from memory.models.events import EventIdempotencyKey, MemoryEvent  # noqa: F401
from memory.models.facts import Conflict, ConflictStatus, Fact, FactEvidence, FactStatus  # noqa: F401
from memory.models.familiarity import PairFamiliarity, VocabularyTerm  # noqa: F401
from memory.models.graph import Entity, EntityStatus, Relation, Route  # noqa: F401
from memory.models.memories import Memory, MemoryEmbedding, MemoryMention  # noqa: F401
from memory.models.mentions import EntityAlias, EntityMention, RelationEvidence  # noqa: F401
from memory.models.merges import EntityMerge, MergeReason  # noqa: F401
from memory.models.observations import Observation, ObservationStatus  # noqa: F401
from memory.models.outbox import ObservationOutbox  # noqa: F401
from memory.models.regeneration import RegenerationRequest  # noqa: F401
from memory.models.review import ReviewItem, ReviewStatus  # noqa: F401
from memory.models.sleep_cycle import (  # noqa: F401
    Direction,
    EntityTransition,
    RelationTransition,
    RunStatus,
    SleepCycleRun,
)
from memory.models.taxonomy import MemoryType, Namespace, Referent, Valence  # noqa: F401
from memory.models.working_set import WorkingItem, WorkingSession  # noqa: F401

__all__ = [
    "ContextInjection",
    "Agent",
    "CompiledTrigger",
    "CompiledTruth",
    "Conflict",
    "ConflictStatus",
    "DedupState",
    "Direction",
    "Entity",
    "EntityAlias",
    "EntityEmbedding",
    "EntityMention",
    "EntityMerge",
    "EntityStatus",
    "EntityTransition",
    "EventIdempotencyKey",
    "F401",
    "Fact",
    "FactEvidence",
    "FactStatus",
    "Memory",
    "MemoryEmbedding",
    "MemoryEvent",
    "MemoryMention",
    "MemoryType",
    "MergeReason",
    "Namespace",
    "Observation",
    "ObservationStatus",
    "ObservationOutbox",
    "PairFamiliarity",
    "Referent",
    "RegenerationRequest",
    "Relation",
    "RelationEvidence",
    "RelationTransition",
    "ReviewItem",
    "ReviewStatus",
    "Route",
    "RunStatus",
    "Scope",
    "SleepCycleRun",
    "Valence",
    "VocabularyTerm",
    "WorkingItem",
    "WorkingSession",
]

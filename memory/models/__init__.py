from memory.models.agents import Agent, Scope  # noqa: F401
from memory.models.consolidation import (  # noqa: F401
    ConsolidationRun,
    Direction,
    EntityTransition,
    RelationTransition,
    RunStatus,
)
from memory.models.events import EventIdempotencyKey, MemoryEvent  # noqa: F401
from memory.models.graph import Entity, EntityStatus, Relation, Route  # noqa: F401
from memory.models.observations import Observation, ObservationStatus  # noqa: F401
from memory.models.retain import (  # noqa: F401
    Conflict,
    ConflictStatus,
    DedupState,
    EntityAlias,
    EntityEmbedding,
    EntityMention,
    EntityMerge,
    Fact,
    FactEvidence,
    FactStatus,
    MergeReason,
    PairFamiliarity,
    RegenerationRequest,
    RelationEvidence,
    ReviewItem,
    ReviewStatus,
    VocabularyTerm,
)
from memory.models.taxonomy import MemoryType, Namespace, Referent, Valence  # noqa: F401
from memory.models.working_set import WorkingItem, WorkingSession  # noqa: F401

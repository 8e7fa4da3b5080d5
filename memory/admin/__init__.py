from memory.admin import (  # noqa: F401
    agents,
    consolidation,
    entities,
    events,
    observations,
    relations,
    retain,
    taxonomy,
)

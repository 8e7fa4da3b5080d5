from memory.admin import (  # noqa: F401
    agents,
    entities,
    events,
    observations,
    relations,
    retain,
    sleep_cycle,
    taxonomy,
)

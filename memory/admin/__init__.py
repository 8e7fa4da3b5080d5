from memory.admin import (  # noqa: F401
    agents,
    compiled_truth,
    dashboard,
    entities,
    events,
    memories,
    observations,
    relations,
    retain,
    schedule,
    sleep_cycle,
    taxonomy,
)

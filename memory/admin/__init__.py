from memory.admin import (  # noqa: F401
    agents,
    compiled_truth,
    entities,
    events,
    observations,
    relations,
    retain,
    sleep_cycle,
    taxonomy,
)

from memory.admin import agents, events  # noqa: F401
from memory.admin import consolidation, entities, relations, taxonomy  # noqa: F401

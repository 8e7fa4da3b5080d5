from memory.admin import agents, events  # noqa: F401

"""Retain Job handlers for every category the analyzers emit: each turns one observation
into entities, relations and claims (memory.retain.extraction). Importing this package
registers them with memory's registry (InsightConfig.ready() does)."""

from insight.handlers import (  # noqa: F401
    commits,
    corrections,
    instructions,
    interactions,
    permissions,
    project_activity,
    tool_errors,
)

"""`cortex consolidate`: the documented alias of `cortex sleep` (the sleep cycle)."""

from memory.management.commands.sleep import Command  # noqa: F401

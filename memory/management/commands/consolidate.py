"""`cortex consolidate`: the documented alias of `cortex sleep` (the sleep cycle)."""

from memory.management.commands.sleep import Command as Sleep


class Command(Sleep):
    help = Sleep.help + " (The same as cortex sleep.)"
    examples = ("cortex consolidate", "cortex consolidate --now 2026-06-01T03:00")

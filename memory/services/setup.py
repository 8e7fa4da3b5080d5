"""What every command that runs Cortex needs first: the schema and the taxonomy, up to date."""

from __future__ import annotations

from django.core.management import call_command

from memory.services.schedule import beat_schedule_ensure
from memory.services.taxonomy import SyncReport, taxonomy_sync


def cortex_prepare() -> SyncReport:
    """Apply pending migrations, sync the namespace tree from the config and seed the beat
    schedule's missing entries (all idempotent)."""
    call_command("migrate", interactive=False, verbosity=0)
    report = taxonomy_sync()
    beat_schedule_ensure()
    return report

"""What every command that runs Cortex needs first: the schema and the taxonomy, up to date."""

from __future__ import annotations

from django.core.management import call_command

from memory.services.taxonomy import SyncReport, taxonomy_sync


def cortex_prepare() -> SyncReport:
    """Apply pending migrations, then sync the namespace tree from the config (idempotent)."""
    call_command("migrate", interactive=False, verbosity=0)
    return taxonomy_sync()

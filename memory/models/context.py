"""The injection ledger: what each agent session was already given (docs/context.md)."""

from __future__ import annotations

from django.db import models

from memory import clock
from memory.models.graph import Entity


class ContextInjection(models.Model):
    """Entity `entity` was injected into session `session` of `agent`, as the block whose
    digest is `digest`. A later context for the session skips the entity while the block it
    would inject has the same digest (the entity did not change), and injects it again when
    it differs."""

    agent = models.CharField(max_length=200)
    session = models.CharField(max_length=200)
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+",
                               db_index=False)
    digest = models.CharField(max_length=32)
    count = models.PositiveIntegerField(default=1)
    first_at = models.DateTimeField(default=clock.now)
    last_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["agent", "session", "entity"],
                                    name="context_injection_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.agent}/{self.session}: {self.entity_id}"

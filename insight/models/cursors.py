"""Where each analyzer stands in each source's commit-ordered event stream."""

from __future__ import annotations

from django.db import models


class AnalyzerCursor(models.Model):
    analyzer = models.CharField(max_length=64)
    source = models.CharField(max_length=64)
    # Opaque value from memory.selectors.events.event_batch_after; None = from the start.
    position = models.JSONField(null=True, blank=True)
    events_seen = models.BigIntegerField(default=0)
    observations_created = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["analyzer", "source"], name="analyzer_cursor_unique"),
        ]
        ordering = ["analyzer", "source"]

    def __str__(self) -> str:
        return f"{self.analyzer} @ {self.source}"

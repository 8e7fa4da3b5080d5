"""Per-session working sets: the turn-based engine of docs/working-set.md, stored.

A session belongs to the user behind the request (an agent's user, or the operator).
Time is the session's own turn counter, carried by every request, never the clock.
Evicted items keep their row (`evicted_turn`): a later registration starts them over.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from memory import clock
from memory.limits import MEM_ID_CHARS, SESSION_KEY_CHARS
from memory.working_set.engine import DEFAULT_BASELINE_STABILITY, DEFAULT_EVICTION_THRESHOLD

SESSION_KEY_PATTERN = rf"[A-Za-z0-9][A-Za-z0-9._:-]{{0,{SESSION_KEY_CHARS - 1}}}"


class WorkingSession(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="working_sessions"
    )
    key = models.CharField(max_length=SESSION_KEY_CHARS, help_text="The agent's own session id.")
    turn = models.BigIntegerField(default=0, help_text="The latest turn a request carried.")
    eviction_threshold = models.FloatField(default=DEFAULT_EVICTION_THRESHOLD)
    baseline_stability = models.FloatField(default=DEFAULT_BASELINE_STABILITY)
    created_at = models.DateTimeField(default=clock.now)
    updated_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="working_session_owner_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} (turn {self.turn})"


class WorkingItem(models.Model):
    session = models.ForeignKey(WorkingSession, on_delete=models.CASCADE, related_name="items")
    mem_id = models.CharField(max_length=MEM_ID_CHARS)
    content = models.TextField(blank=True, default="")
    is_foundational = models.BooleanField(default=False)
    stability = models.FloatField()
    recall_count = models.IntegerField(default=1)
    registered_turn = models.BigIntegerField()
    last_touched_turn = models.BigIntegerField()
    evicts_at_turn = models.BigIntegerField(
        help_text="The first turn at which its retention falls below the session's threshold."
    )
    evicted_turn = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "mem_id"], name="working_item_session_mem"),
        ]
        indexes = [
            models.Index(fields=["session", "evicts_at_turn"], name="working_item_due",
                         condition=Q(evicted_turn__isnull=True)),
        ]

    def __str__(self) -> str:
        return self.mem_id

"""Agents: the API's clients. One Django user per agent, a source, scopes and a rate limit."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.validators import RegexValidator
from django.db import models

from memory.limits import SOURCE_CHARS


class Scope(models.TextChoices):
    EVENTS_WRITE = "events:write"
    EVENTS_READ = "events:read"
    OBSERVATIONS_WRITE = "observations:write"
    MEMORIES_WRITE = "memories:write"
    MEMORIES_READ = "memories:read"
    RECALL_READ = "recall:read"
    CONTEXT_READ = "context:read"
    FEEDBACK_WRITE = "feedback:write"
    WORKING_SET = "working-set"
    OPERATOR = "operator"


AGENT_NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,62}$"
RATE_PATTERN = r"^[0-9]+/(s|sec|second|m|min|minute|h|hour|d|day)$"


class Agent(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent"
    )
    name = models.CharField(
        max_length=63, unique=True, validators=[RegexValidator(AGENT_NAME_PATTERN)]
    )
    source = models.CharField(max_length=SOURCE_CHARS,
                              help_text="Events it posts are stored under it.")
    scopes = ArrayField(models.CharField(max_length=32, choices=Scope.choices), default=list)
    rate_limit = models.CharField(
        max_length=32,
        blank=True,
        validators=[RegexValidator(RATE_PATTERN)],
        help_text='Requests per period, e.g. "1200/min"; blank: the default agent rate.',
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

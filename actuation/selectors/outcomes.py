"""What the did-it-help counting reads: a repository's sessions in a period, and the sessions
in which a proposal's pattern recurred."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Max

from actuation.models import Proposal, TargetRepository
from actuation.selectors.repositories import repository_projects
from memory.models import EntityMention, MemoryEvent


def repository_sessions(*, repository: TargetRepository, since: datetime,
                        until: datetime) -> set[str]:
    rows = (MemoryEvent.objects.filter(project__in=repository_projects(repository=repository),
                                       occurred_at__gt=since,
                                       occurred_at__lte=until)
            .exclude(correlation_session="").values_list("correlation_session", flat=True)
            .distinct())
    return set(rows)


def recurrence_sessions(*, proposal: Proposal, since: datetime, until: datetime) -> set[str]:
    """Sessions with an observation of the pattern after `since`, per the detector's rule
    (`evidence.recurrence`: a category, the key of the entity it mentions, or the keys of
    the entities of a grouped proposal, payload values: keys, not row ids, survive
    `cortex rebuild graph`)."""
    rule = (proposal.evidence or {}).get("recurrence") or {}
    keys = [rule["entity"]] if rule.get("entity") else list(rule.get("entities") or [])
    if not rule.get("category") or not keys:
        return set()
    rows = EntityMention.objects.filter(
        entity__key__in=keys, observation__category=rule["category"],
        observation__timestamp__gt=since, observation__timestamp__lte=until)
    for key, value in (rule.get("payload") or {}).items():
        rows = rows.filter(**{f"observation__payload_typed__{key}": value})
    return set(rows.exclude(observation__correlation_session="")
               .values_list("observation__correlation_session", flat=True).distinct())


def sessions_last_prompt(*, repository: TargetRepository) -> datetime | None:
    """When the operator last prompted an agent in this repository (None: never seen).
    Prompts always carry their time (records without one take their file's mtime)."""
    found: datetime | None = MemoryEvent.objects.filter(
        project__in=repository_projects(repository=repository), subtype="user.prompt",
    ).aggregate(last=Max("occurred_at"))["last"]
    return found

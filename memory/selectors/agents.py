"""Agents, as the CLI and the admin list them."""

from __future__ import annotations

from django.db.models import Count, Max, QuerySet

from memory.models.agents import Agent


def agent_list() -> QuerySet[Agent]:
    """Every agent with `token_count` and `last_token_expiry` annotated."""
    return (
        Agent.objects.select_related("user")
        .annotate(
            token_count=Count("user__auth_token_set"),
            last_token_expiry=Max("user__auth_token_set__expiry"),
        )
        .order_by("name")
    )

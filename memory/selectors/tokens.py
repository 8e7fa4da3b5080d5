"""The tokens that share a key prefix, with their user and agent, in one plain query.

Every API request runs it: the ORM's select_related over three models cost more to compile
and build than the query itself, so the SQL is written once from the models' metadata and
the instances are built with Model.from_db, related caches filled.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model
from knox.models import get_token_model

from memory.models.agents import Agent


def _columns(model: type[Model], alias: str) -> list[str]:
    return [f'{alias}."{field.column}"' for field in model._meta.concrete_fields]


@cache
def _sql() -> str:
    token, user = get_token_model(), get_user_model()
    columns = _columns(token, "t") + _columns(user, "u") + _columns(Agent, "a")
    return (
        f"SELECT {', '.join(columns)} FROM {token._meta.db_table} AS t"
        f' JOIN {user._meta.db_table} AS u ON u."{user._meta.pk.column}" = t."user_id"'
        f' LEFT JOIN {Agent._meta.db_table} AS a ON a."user_id" = u."{user._meta.pk.column}"'
        ' WHERE t."token_key" = %s'
    )


def _build(model: type[Model], values: tuple[Any, ...]) -> Any:
    names = [field.attname for field in model._meta.concrete_fields]
    return model.from_db(connection.alias, names, values)


def token_candidates(*, token_key: str) -> list[Any]:
    """AuthTokens with this key prefix; `token.user` and `token.user.agent` need no query."""
    token_model, user_model = get_token_model(), get_user_model()
    sizes = [len(m._meta.concrete_fields) for m in (token_model, user_model)]
    with connection.cursor() as cursor:
        cursor.execute(_sql(), [token_key])
        rows = cursor.fetchall()
    tokens = []
    for row in rows:
        token = _build(token_model, row[: sizes[0]])
        user = _build(user_model, row[sizes[0] : sizes[0] + sizes[1]])
        agent_values = row[sizes[0] + sizes[1] :]
        agent = _build(Agent, agent_values) if agent_values[0] is not None else None
        token_model.user.field.set_cached_value(token, user)
        Agent.user.field.remote_field.set_cached_value(user, agent)
        if agent is not None:
            Agent.user.field.set_cached_value(agent, user)
        tokens.append(token)
    return tokens

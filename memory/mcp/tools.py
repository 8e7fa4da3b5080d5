"""The tools: each checks the scope of its REST endpoint, calls the same service, and answers
the REST body (docs/api.md, docs/recall.md, docs/memories.md, docs/working-set.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from typing import Any

from django.db import close_old_connections
from django.utils import timezone
from mcp_types import CallToolResult

from memory.errors import DomainError, Invalid
from memory.limits import RECALL_QUERY_CHARS
from memory.mcp.auth import agent_with_scope
from memory.mcp.results import error_result, ok_result
from memory.models.agents import Agent
from memory.selectors.entity_views import entity_summary
from memory.selectors.recall import RecallFilters
from memory.services.context import context_assemble
from memory.services.events import event_append_posted
from memory.services.feedback import entity_feedback
from memory.services.memories import memories_remember
from memory.services.recall import recall_run
from memory.services.working_set import (
    WorkingSetChange,
    working_item_recall,
    working_item_register,
)
from memory.services.working_set import working_set_step as working_set_advance

TokenOf = Callable[[], str | None]


def guarded(token_of: TokenOf, scope: str, work: Callable[[Agent], dict[str, Any]]
            ) -> CallToolResult:
    """Authenticate, check the scope, run `work`; a DomainError becomes the error shape."""
    close_old_connections()
    try:
        return ok_result(work(agent_with_scope(token=token_of(), scope=scope)))
    except DomainError as error:
        return error_result(error)


def _either(primary: Any, alias: Any, name: str, *, required: bool = False) -> Any:
    if primary is not None and alias is not None and primary != alias:
        raise Invalid(fields={name: "Given twice, with different values."})
    value = primary if primary is not None else alias
    if required and not value:
        raise Invalid(fields={name: "This field is required."})
    return value


def remember(token_of: TokenOf, *, text: str | None, project: str | None, actor: str | None,
             occurred_at: str | None, source_id: str | None, metadata: dict[str, Any] | None,
             event: dict[str, Any] | None) -> CallToolResult:
    if event is not None:
        def append(agent: Agent) -> dict[str, Any]:
            if text is not None:
                raise Invalid(fields={"event": "Send text or an event, not both."})
            return {"events": [asdict(result) for result in event_append_posted(
                source=agent.source, body=event, idempotency_key=None)]}

        return guarded(token_of, "events:write", append)
    fields = {"text": text, "project": project, "actor": actor, "occurred_at": occurred_at,
              "source_id": source_id, "metadata": metadata}
    memory = {name: value for name, value in fields.items() if value is not None}
    return guarded(token_of, "memories:write", lambda agent: {"memories": [
        asdict(result) for result in memories_remember(
            source=agent.source, memories=[memory], batch=False, default_actor=agent.name)]})


def recall(token_of: TokenOf, *, query: str | None, q: str | None, unit: str,
           namespace: str, memory_type: str, referent: str, project: str, actor: str,
           limit: int | None, top_k: int | None, as_of: datetime | None,
           include_faded: bool) -> CallToolResult:
    def work(agent: Agent) -> dict[str, Any]:
        text = _either(query, q, "query", required=True)
        if len(text) > RECALL_QUERY_CHARS:
            raise Invalid(fields={"query": f"At most {RECALL_QUERY_CHARS} characters."})
        filters = RecallFilters(namespace=namespace, project=project, actor=actor,
                                memory_type=memory_type, referent=referent)
        at = timezone.make_aware(as_of) if as_of and timezone.is_naive(as_of) else as_of
        result = recall_run(query=text, unit=unit, filters=filters,  # type: ignore[arg-type]
                            limit=_either(limit, top_k, "limit"), as_of=at,
                            include_faded=include_faded)
        return {"query": result.query, "unit": result.unit,
                "hits": [hit.as_dict() for hit in result.hits], "reinforced": result.reinforced}

    return guarded(token_of, "recall:read", work)


def context(token_of: TokenOf, *, query: str | None, q: str | None, project: str,
            session: str, budget_tokens: int) -> CallToolResult:
    return guarded(token_of, "context:read", lambda agent: context_assemble(
        query=_either(query, q, "query") or "", agent=agent.name, session=session,
        project=project, budget_tokens=budget_tokens).as_dict())


def feedback(token_of: TokenOf, *, key: str, outcome: str) -> CallToolResult:
    return guarded(token_of, "feedback:write", lambda agent: entity_summary(
        entity_feedback(key=key, outcome=outcome, by=f"api:{agent.name}")))


def _change_body(change: WorkingSetChange, *fields: str) -> dict[str, Any]:
    body: dict[str, Any] = {"turn": change.turn, "evicted": change.evicted,
                            "working_set_size": change.working_set_size}
    for name in fields:
        value = getattr(change, name)
        body[name] = asdict(value) if name == "item" and value is not None else value
    return body


def working_set_register(token_of: TokenOf, *, session: str, mem_id: str, turn: int,
                         content: str, is_foundational: bool) -> CallToolResult:
    return guarded(token_of, "working-set", lambda agent: _change_body(working_item_register(
        owner=agent.user, key=session, mem_id=mem_id, content=content, turn=turn,
        is_foundational=is_foundational), "created", "item"))


def working_set_recall(token_of: TokenOf, *, session: str, mem_id: str,
                       turn: int) -> CallToolResult:
    return guarded(token_of, "working-set", lambda agent: _change_body(working_item_recall(
        owner=agent.user, key=session, mem_id=mem_id, turn=turn), "recalled", "item"))


def working_set_step(token_of: TokenOf, *, session: str, turn: int) -> CallToolResult:
    return guarded(token_of, "working-set", lambda agent: _change_body(working_set_advance(
        owner=agent.user, key=session, turn=turn)))

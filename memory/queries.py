"""The read queries every surface answers the same way (docs/recall.md, docs/nats.md): the
input of a recall and of a context, validated once, and the answer built once, for the REST
views (memory/api/recall.py, memory/api/context.py) and the NATS bus (memory/nats/)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from memory.limits import (
    CONTEXT_QUERY_CHARS,
    FILTER_CHARS,
    NAMESPACE_CHARS,
    RECALL_QUERY_CHARS,
    SESSION_KEY_CHARS,
)
from memory.models import MemoryType, Referent
from memory.selectors.recall import RecallFilters
from memory.services.context import context_assemble
from memory.services.recall import recall_run


class RecallQuerySerializer(serializers.Serializer[Any]):
    q = serializers.CharField(max_length=RECALL_QUERY_CHARS,
                              help_text="What to recall, in any words.")
    unit = serializers.ChoiceField(choices=["entity", "memory"], default="entity")
    namespace = serializers.CharField(max_length=NAMESPACE_CHARS, required=False, default="",
                                      allow_blank=True,
                                      help_text="A namespace prefix, e.g. world:person.")
    memory_type = serializers.ChoiceField(choices=MemoryType.choices, required=False)
    referent = serializers.ChoiceField(choices=Referent.choices, required=False)
    project = serializers.CharField(max_length=FILTER_CHARS, required=False, default="",
                                    allow_blank=True)
    actor = serializers.CharField(max_length=FILTER_CHARS, required=False, default="",
                                  allow_blank=True)
    limit = serializers.IntegerField(min_value=1, max_value=100, required=False)
    as_of = serializers.DateTimeField(required=False,
                                      help_text="Evaluate strengths and weights at this time.")
    include_faded = serializers.BooleanField(default=False)
    reinforce = serializers.BooleanField(default=True)


class ContextRequestSerializer(serializers.Serializer[Any]):
    query = serializers.CharField(max_length=CONTEXT_QUERY_CHARS, allow_blank=True,
                                  help_text="What the prompt is about (may be empty).")
    agent = serializers.CharField(max_length=200, required=False, default="", allow_blank=True,
                                  help_text="Defaults to the token's agent.")
    session = serializers.CharField(max_length=SESSION_KEY_CHARS, required=False, default="",
                                    allow_blank=True,
                                    help_text="The agent session: its injection ledger.")
    project = serializers.CharField(max_length=FILTER_CHARS, required=False, default="",
                                    allow_blank=True)
    budget_tokens = serializers.IntegerField(min_value=1, max_value=1_000_000)


def recall_answer(data: Mapping[str, Any]) -> dict[str, Any]:
    """The recall body for RecallQuerySerializer's validated data."""
    filters = RecallFilters(namespace=data["namespace"], project=data["project"],
                            actor=data["actor"], memory_type=data.get("memory_type", ""),
                            referent=data.get("referent", ""))
    result = recall_run(query=data["q"], unit=data["unit"], filters=filters,
                        limit=data.get("limit"), as_of=data.get("as_of"),
                        include_faded=data["include_faded"], reinforce=data["reinforce"])
    return {"query": result.query, "unit": result.unit,
            "hits": [hit.as_dict() for hit in result.hits], "reinforced": result.reinforced}


def context_answer(data: Mapping[str, Any], *, agent: str) -> dict[str, Any]:
    """The context body for ContextRequestSerializer's validated data; `agent` when the
    request names none."""
    return context_assemble(query=data["query"], agent=data["agent"] or agent,
                            session=data["session"], project=data["project"],
                            budget_tokens=data["budget_tokens"]).as_dict()

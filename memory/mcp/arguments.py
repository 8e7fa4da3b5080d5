"""The tools' argument types: the REST serializers' limits, described for a model."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from memory.limits import (
    CONTEXT_QUERY_CHARS,
    ENTITY_KEY_CHARS,
    EVENT_SOURCE_ID_CHARS,
    EVENT_TEXT_CHARS,
    FILTER_CHARS,
    MEM_ID_CHARS,
    NAMESPACE_CHARS,
    SESSION_KEY_CHARS,
    TURN_MAX,
    WORKING_CONTENT_CHARS,
)
from memory.models.working_set import SESSION_KEY_PATTERN

Query = Annotated[str | None, Field(max_length=CONTEXT_QUERY_CHARS,
                                    description="What to look for, in any words.")]
QAlias = Annotated[str | None, Field(max_length=CONTEXT_QUERY_CHARS,
                                     description="Same as query.")]
Limit = Annotated[int | None, Field(ge=1, le=100, description="How many hits (default 10).")]
TopK = Annotated[int | None, Field(ge=1, le=100, description="Same as limit.")]
Unit = Annotated[Literal["entity", "memory"], Field(
    description="entity: people, projects, tools... with their facts; memory: the stored "
                "texts and facts themselves, with their provenance.")]
Namespace = Annotated[str, Field(max_length=NAMESPACE_CHARS,
                                 description="A namespace prefix, e.g. world:person.")]
MemoryType = Annotated[Literal["", "episodic", "semantic", "procedural"], Field()]
Referent = Annotated[Literal["", "self", "agent", "other", "object", "abstract"], Field()]
Filter = Annotated[str, Field(max_length=FILTER_CHARS)]
Budget = Annotated[int, Field(ge=1, le=1_000_000,
                              description="Tokens the context may take, e.g. 2000.")]
ContextSession = Annotated[str, Field(
    max_length=SESSION_KEY_CHARS,
    description="Your session id: what this session was already given is not repeated.")]
Text = Annotated[str | None, Field(description="The memory, in plain words, kept whole.")]
EventText = Annotated[str | None, Field(max_length=EVENT_TEXT_CHARS)]
SourceId = Annotated[str | None, Field(
    max_length=EVENT_SOURCE_ID_CHARS,
    description="Stored once per id; default: a hash of the content.")]
Metadata = Annotated[dict[str, Any] | None, Field(description="Free-form JSON kept with it.")]
Event = Annotated[dict[str, Any] | None, Field(
    description="Instead of text: one raw event {source_id, type, subtype, occurred_at, actor, "
                "project, correlation, payload} (needs events:write).")]
Key = Annotated[str, Field(min_length=1, max_length=ENTITY_KEY_CHARS,
                           description="The entity's key, as recall returned it.")]
Outcome = Annotated[Literal["positive", "negative"], Field(
    description="positive: it helped; negative: it was wrong or useless.")]
Session = Annotated[str, Field(pattern=f"^{SESSION_KEY_PATTERN}$",
                               description="Your session id (letters, digits, . _ : -).")]
Turn = Annotated[int, Field(ge=0, le=TURN_MAX,
                            description="The session's current turn; never goes backwards.")]
MemId = Annotated[str, Field(min_length=1, max_length=MEM_ID_CHARS,
                             description="Your id for the item.")]
Content = Annotated[str, Field(max_length=WORKING_CONTENT_CHARS)]

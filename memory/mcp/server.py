"""The MCP server: tools and the compiled-truth resource, over either transport (docs/mcp.md).

Over stdio the token is the process's (`cortex mcp --token`); over HTTP each request brings
its own `Authorization` header. Every call authenticates and checks its scope.
"""

from __future__ import annotations

import logging
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedToolError,
)
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from memory.errors import DiskFull, DomainError, NotFound, disk_full
from memory.mcp import arguments as a
from memory.mcp import tools
from memory.mcp.auth import agent_with_scope, header_token
from memory.mcp.results import error_result, invalid_arguments
from memory.mcp.shape import error_text
from memory.selectors.entity_views import entity_detail

logger = logging.getLogger(__name__)
SERVER_ERROR_MESSAGE = "Internal error; nothing was written."
INSTRUCTIONS = (
    "Cortex is your long-term memory, shared with the operator's other agents. Call `context` "
    "at the start of a task for what matters about it, `recall` when you need something you "
    "may have seen before, `remember` when you learn something worth keeping, and `feedback` "
    "when a recalled entity helped or misled you. Errors come back as "
    '{"error": {"code", "message", "fields"}}.'
)


class CortexMCPServer(MCPServer[Any]):
    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None,
                        ) -> CallToolResult | InputRequiredResult:
        """Arguments the tool's schema refuses, and a crash, are answered in the API's error
        shape (a crash as the API's 500 says it)."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as error:
            if disk_full(error.__cause__):
                return error_result(DiskFull())
            logger.exception("MCP tool %r failed", name)
            return error_result(DomainError(SERVER_ERROR_MESSAGE, code="server_error"))
        except ToolError as error:
            if isinstance(error.__cause__, ValidationError):
                return error_result(invalid_arguments(error.__cause__))
            raise


def _token(ctx: Context[Any, Any], stdio_token: str | None) -> tools.TokenOf:
    def token_of() -> str | None:
        headers = ctx.headers
        if headers is None:
            return stdio_token
        return header_token(headers.get("authorization"))

    return token_of


def _compiled_truth(key: str, token_of: tools.TokenOf) -> str:
    try:
        agent_with_scope(token=token_of(), scope="recall:read")
        compiled = entity_detail(key=key)["compiled_truth"]
        if compiled is None:
            raise NotFound("This entity has no compiled truth yet.",
                           fields={"key": "No compiled truth yet."})
    except NotFound as error:
        raise ResourceNotFoundError(error_text(error)) from error
    except DomainError as error:
        raise ResourceError(error_text(error)) from error
    markdown: str = compiled["markdown"]
    return markdown


def package_version() -> str:
    """The installed cortex package's version, which the server reports to its clients."""
    try:
        return version("cortex")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


def mcp_server_build(*, token: str | None = None) -> CortexMCPServer:
    server = CortexMCPServer("cortex", version=package_version(), instructions=INSTRUCTIONS)

    @server.tool(description=(
        "Store something worth remembering: a fact, a decision, a preference, what happened. "
        "Send `text` (a free-text memory: who, what, when, in plain words), or `event` for "
        "a raw event. Storing the same text twice keeps one copy."))
    def remember(ctx: Context[Any, Any], text: a.Text = None, project: a.EventText = None,
                 actor: a.EventText = None, occurred_at: str | None = None,
                 source_id: a.SourceId = None, metadata: a.Metadata = None,
                 event: a.Event = None) -> CallToolResult:
        return tools.remember(_token(ctx, token), text=text, project=project, actor=actor,
                              occurred_at=occurred_at, source_id=source_id,
                              metadata=metadata, event=event)

    @server.tool(description=(
        "Search long-term memory before answering about people, projects, tools, past "
        "decisions or anything you may have been told before. Returns ranked hits with "
        "their strength; every hit returned counts as used (it is reinforced)."))
    def recall(ctx: Context[Any, Any], query: a.Query = None, q: a.QAlias = None,
               unit: a.Unit = "entity", namespace: a.Namespace = "",
               memory_type: a.MemoryType = "", referent: a.Referent = "",
               project: a.Filter = "", actor: a.Filter = "", limit: a.Limit = None,
               top_k: a.TopK = None, as_of: datetime | None = None,
               include_faded: bool = False) -> CallToolResult:
        return tools.recall(_token(ctx, token), query=query, q=q, unit=unit,
                            namespace=namespace, memory_type=memory_type, referent=referent,
                            project=project, actor=actor, limit=limit, top_k=top_k,
                            as_of=as_of, include_faded=include_faded)

    @server.tool(description=(
        "Get a ready-to-read briefing for the task at hand: the pinned entities, then the "
        "strongest relevant ones, within `budget_tokens`. Call it when a task or session "
        "starts; with a `session`, what this session already received is not repeated."))
    def context(ctx: Context[Any, Any], budget_tokens: a.Budget, query: a.Query = None,
                q: a.QAlias = None, project: a.Filter = "",
                session: a.ContextSession = "") -> CallToolResult:
        return tools.context(_token(ctx, token), query=query, q=q, project=project,
                             session=session, budget_tokens=budget_tokens)

    @server.tool(description=(
        "Report whether a recalled entity helped (positive) or misled you (negative); it "
        "makes the entity stronger or weaker in future recalls."))
    def feedback(ctx: Context[Any, Any], key: a.Key, outcome: a.Outcome) -> CallToolResult:
        return tools.feedback(_token(ctx, token), key=key, outcome=outcome)

    @server.tool(description=(
        "Working set (turn-based, one session): hold an item you will need again over the "
        "next turns. Creates the session's working set on first use."))
    def working_set_register(ctx: Context[Any, Any], session: a.Session, mem_id: a.MemId,
                             turn: a.Turn, content: a.Content = "",
                             is_foundational: bool = False) -> CallToolResult:
        return tools.working_set_register(_token(ctx, token), session=session, mem_id=mem_id,
                                          turn=turn, content=content,
                                          is_foundational=is_foundational)

    @server.tool(description=(
        "Working set: use a held item again at this turn (it then lasts longer); "
        "recalled is false when it was already evicted."))
    def working_set_recall(ctx: Context[Any, Any], session: a.Session, mem_id: a.MemId,
                           turn: a.Turn) -> CallToolResult:
        return tools.working_set_recall(_token(ctx, token), session=session, mem_id=mem_id,
                                        turn=turn)

    @server.tool(description=(
        "Working set: advance the session to this turn; returns the items evicted."))
    def working_set_step(ctx: Context[Any, Any], session: a.Session,
                         turn: a.Turn) -> CallToolResult:
        return tools.working_set_step(_token(ctx, token), session=session, turn=turn)

    @server.resource("cortex://entity/{+key}", mime_type="text/markdown", description=(
        "An entity's current compiled truth (markdown), by the key recall returned."))
    def entity(key: str, ctx: Context[Any, Any]) -> str:
        return _compiled_truth(key, _token(ctx, token))

    return server

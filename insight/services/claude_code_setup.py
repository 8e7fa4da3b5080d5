"""`cortex setup claude-code`'s write: the plugin's agent and a fresh token.

One agent, `claude-code`, whose events are the transcripts' own source (`claude-code`, so
that what the hooks post live and what `cortex ingest claude-code` reads later are the same
events), with the scopes the hooks and the MCP tools use and nothing more (no operator
scope). Running setup again issues a new token and revokes the old ones: only the token in
CORTEX_HOME works.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from memory.models.agents import Agent
from memory.services.agents import agent_create, agent_revoke, agent_token_issue

AGENT = "claude-code"
SOURCE = "claude-code"
# The hooks: events:write, context:read. The MCP tools: remember (memories:write), recall,
# context, feedback, the working set.
SCOPES = ("events:write", "context:read", "memories:write", "recall:read", "feedback:write",
          "working-set")


@dataclass(frozen=True)
class PluginAgent:
    name: str
    token: str
    created: bool
    missing_scopes: tuple[str, ...]  # an agent of that name made before with fewer scopes
    source: str


@transaction.atomic
def claude_code_agent_ensure() -> PluginAgent:
    """The agent (created the first time) and a new token, the older ones revoked."""
    agent = Agent.objects.filter(name=AGENT).first()
    if agent is None:
        agent, token = agent_create(name=AGENT, scopes=SCOPES, source=SOURCE)
        return PluginAgent(AGENT, token, True, (), agent.source)
    agent_revoke(name=AGENT)
    token = agent_token_issue(agent=agent)
    missing = tuple(scope for scope in SCOPES if not agent.has_scope(scope))
    return PluginAgent(AGENT, token, False, missing, agent.source)

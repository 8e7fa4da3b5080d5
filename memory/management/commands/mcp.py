"""`cortex mcp [--token T]`: the MCP server over stdio, acting as the token's agent (the
token also from CORTEX_TOKEN). `cortex mcp install [--claude-code | --claude-desktop]
[--project PATH] [--token T] [--yes]`: its entry in the client's config. docs/mcp.md."""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import DomainError
from memory.mcp.auth import agent_authenticate
from memory.mcp.install import install_run
from memory.mcp.server import mcp_server_build


class Command(BaseCommand):
    help = "Serve Cortex to an MCP client over stdio, or install it in a client's config."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", nargs="?", choices=["serve", "install"], default="serve")
        parser.add_argument("--token", help="the agent's token (default: CORTEX_TOKEN)")
        client = parser.add_mutually_exclusive_group()
        client.add_argument("--claude-code", dest="client", action="store_const",
                            const="claude-code", help="install: ~/.claude.json (default)")
        client.add_argument("--claude-desktop", dest="client", action="store_const",
                            const="claude-desktop", help="install: claude_desktop_config.json")
        parser.add_argument("--project", metavar="PATH",
                            help="install: PATH/.mcp.json (Claude Code, shared by the project)")
        parser.add_argument("--yes", action="store_true", help="install without asking")

    def handle(self, *args: Any, **options: Any) -> None:
        token = options["token"] or os.environ.get("CORTEX_TOKEN")
        if options["action"] == "install":
            code = install_run(client=options["client"] or "claude-code",
                               project=options["project"], token=token, yes=options["yes"])
            if code:
                raise SystemExit(code)
            return
        try:
            agent = agent_authenticate(token=token)
        except DomainError as error:
            raise CommandError(f"cortex mcp: {error.message}") from error
        self.stderr.write(f"cortex mcp: serving as agent {agent.name} over stdio.")
        anyio.run(mcp_server_build(token=token).run_stdio_async)

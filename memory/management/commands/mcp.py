"""`cortex mcp [--token T]`: the MCP server over stdio, acting as the token's agent (the
token also from CORTEX_TOKEN). `cortex mcp install [--claude-code | --claude-desktop]
[--project PATH] [--token T] [--yes]`: its entry in the client's config. docs/mcp.md."""

from __future__ import annotations

import argparse
import os
from typing import Any

import anyio
from django.core.management.base import CommandError, CommandParser

from memory.errors import DomainError
from memory.management.base import CortexCommand, subcommand_add
from memory.mcp.auth import agent_authenticate
from memory.mcp.install import install_run
from memory.mcp.server import mcp_server_build

TOKEN_HELP = "the agent's token (default: the CORTEX_TOKEN variable)"


class Command(CortexCommand):
    help = ("Serve Cortex to an MCP client (Claude Code, Claude Desktop) over stdio, acting as "
            "the token's agent; or install that server in a client's config. docs/mcp.md.")
    examples = ("cortex mcp --token $CORTEX_TOKEN",
                "cortex mcp install --claude-code --token $CORTEX_TOKEN",
                "cortex mcp install --project . --token $CORTEX_TOKEN")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--token", help=TOKEN_HELP)
        actions = parser.add_subparsers(dest="action", metavar="ACTION")
        serve = subcommand_add(actions, "serve", help="Serve over stdio (the default action).",
                               examples=("cortex mcp serve --token $CORTEX_TOKEN",))
        # SUPPRESS: a subcommand's absent option leaves the one given before it.
        serve.add_argument("--token", default=argparse.SUPPRESS, help=TOKEN_HELP)
        install = subcommand_add(
            actions, "install",
            help="Write the Cortex MCP server's entry into an MCP client's config; shows the "
                 "diff and asks first (--yes: without asking).",
            examples=("cortex mcp install --claude-code --token $CORTEX_TOKEN",
                      "cortex mcp install --claude-desktop --yes",
                      "cortex mcp install --project ~/src/billing-api"))
        install.add_argument("--token", default=argparse.SUPPRESS,
                             help=TOKEN_HELP + "; without one the server reads CORTEX_TOKEN")
        client = install.add_mutually_exclusive_group()
        client.add_argument("--claude-code", dest="client", action="store_const",
                            const="claude-code", help="Claude Code: ~/.claude.json (default)")
        client.add_argument("--claude-desktop", dest="client", action="store_const",
                            const="claude-desktop", help="Claude Desktop: "
                                                         "claude_desktop_config.json")
        install.add_argument("--project", metavar="PATH",
                             help="Claude Code, shared by a project: PATH/.mcp.json")
        install.add_argument("--yes", action="store_true", help="write without asking")

    def handle(self, *args: Any, **options: Any) -> None:
        token = options["token"] or os.environ.get("CORTEX_TOKEN")
        if options.get("action") == "install":
            code = install_run(client=options.get("client") or "claude-code",
                               project=options.get("project"), token=token,
                               yes=options.get("yes", False))
            if code:
                raise SystemExit(code)
            return
        try:
            agent = agent_authenticate(token=token)
        except DomainError as error:
            raise CommandError(f"cortex mcp: {error.message}") from error
        self.stderr.write(f"cortex mcp: serving as agent {agent.name} over stdio.")
        anyio.run(mcp_server_build(token=token).run_stdio_async)

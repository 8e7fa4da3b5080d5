"""`cortex setup claude-code`: what the Claude Code plugin needs under CORTEX_HOME."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from insight.hooks.config import DEFAULT_SESSION_START_TOKENS, config_load, config_save
from insight.hooks.launch import launcher_link
from insight.hooks.status import probe_line
from insight.services.claude_code_setup import claude_code_agent_ensure
from memory.management.base import CortexCommand
from memory.runtime import runtime_alive, runtime_read

CHECKOUT = Path(__file__).resolve().parents[3]


class Command(CortexCommand):
    help = ("Set up Cortex for the Claude Code plugin: an agent `claude-code` and a token "
            "scoped to what the hooks and the MCP tools use (events:write, context:read, "
            "memories:write, recall:read, feedback:write, working-set), saved under "
            "CORTEX_HOME/hooks/config.json readable by you only, and a link to this `cortex` "
            "under CORTEX_HOME/claude-code/ for the plugin's launcher. Run again, it issues a "
            "new token and revokes the old.")
    examples = ("cortex setup claude-code",
                "cortex setup claude-code --session-start-tokens 1000")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("client", choices=["claude-code"], help="the client to set up")
        parser.add_argument("--session-start-tokens", type=int, metavar="N",
                            help="what SessionStart may inject, in tokens (default "
                                 f"{DEFAULT_SESSION_START_TOKENS}; kept when not given)")
        parser.add_argument("--url", help="Cortex's URL, when the hooks cannot find it "
                            "(default: where the running `cortex up` listens)")

    def handle(self, *args: Any, session_start_tokens: int | None, url: str | None,
               **options: Any) -> None:
        if session_start_tokens is not None and session_start_tokens <= 0:
            raise CommandError("--session-start-tokens must be a positive number of tokens")
        agent = claude_code_agent_ensure()
        saved = config_save(url=url, token=agent.token,
                            session_start_tokens=session_start_tokens)
        link = launcher_link()
        config = config_load()
        made = "created" if agent.created else "kept (its older tokens revoked)"
        self.stdout.write(f"Agent {agent.name} {made}; its token is saved in {saved} "
                          "(readable by you only, never shown).")
        if agent.missing_scopes:
            self.stdout.write(f"  This agent lacks {', '.join(agent.missing_scopes)}: the "
                              "tools that need them will be refused.")
        self.stdout.write(f"The plugin runs {link} -> {link.resolve()}; SessionStart injects at "
                          f"most {config.session_start_tokens} tokens.")
        self.stdout.write(probe_line(config))
        self._next_steps()

    def _next_steps(self) -> None:
        source = (str(CHECKOUT) if (CHECKOUT / ".claude-plugin" / "marketplace.json").exists()
                  else "<owner>/<repo>")
        self.stdout.write("In Claude Code, if the plugin is not installed yet:\n"
                          f"  /plugin marketplace add {source}\n"
                          "  /plugin install cortex@cortex")
        from django.conf import settings

        if not runtime_alive(runtime_read(settings.CORTEX_HOME)):
            self.stdout.write("Cortex is not running: `cortex up`, or `cortex service install` "
                              "to keep it running without a terminal.")

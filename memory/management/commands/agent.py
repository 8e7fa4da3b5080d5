"""`cortex agent create NAME --scopes a,b [--source S] [--expires-days N] [--rate R]`,
`cortex agent revoke NAME`, `cortex agent list`."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from memory.management.base import CortexCommand, subcommand_add
from memory.models.agents import Agent, Scope
from memory.selectors.agents import agent_list
from memory.services.agents import agent_create, agent_revoke


def _messages(error: ValidationError) -> str:
    if hasattr(error, "message_dict"):
        return "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in error.message_dict.items())
    return "; ".join(error.messages)


class Command(CortexCommand):
    help = ("Manage the agents that use Cortex's API and MCP server: create one and print its "
            "token (once), list them, revoke every token of one.")
    examples = ("cortex agent create claude --scopes events:write,context:read",
                "cortex agent list",
                "cortex agent revoke claude")

    def add_arguments(self, parser: ArgumentParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = subcommand_add(
            actions, "create", help="Create an agent; print its token once, alone on the "
                                    "last line.",
            examples=("cortex agent create claude --scopes "
                      "memories:write,recall:read,context:read,feedback:write,working-set",))
        create.add_argument("name", help="the agent's name, unique")
        create.add_argument(
            "--scopes", default="", help=f"Comma-separated, among: {', '.join(Scope.values)}."
        )
        create.add_argument("--source", help="Default: api:<name>.")
        create.add_argument("--expires-days", type=int, help="Default: CORTEX_TOKEN_TTL_DAYS.")
        create.add_argument("--rate", default="", help='e.g. "1200/min"; default: the agent rate.')
        revoke = subcommand_add(actions, "revoke", help="Revoke every token of an agent.",
                                examples=("cortex agent revoke claude",))
        revoke.add_argument("name", help="the agent's name")
        subcommand_add(actions, "list", help="The agents, their source, scopes, rate and "
                                             "tokens.", examples=("cortex agent list",))

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "create":
            self._create(options)
        elif action == "revoke":
            self._revoke(options["name"])
        else:
            self._list()

    def _create(self, options: dict[str, Any]) -> None:
        try:
            agent, token = agent_create(
                name=options["name"],
                scopes=options["scopes"].split(","),
                source=options["source"],
                rate_limit=options["rate"],
                expires_days=options["expires_days"],
            )
        except ValidationError as error:
            raise CommandError(_messages(error)) from error
        self.stdout.write(
            f"Agent {agent.name} created: source {agent.source}, "
            f"scopes {', '.join(agent.scopes) or '(none)'}.\n"
            "Its token follows; it is shown this once only (Authorization: Token <token>):"
        )
        self.stdout.write(token)

    def _revoke(self, name: str) -> None:
        try:
            count = agent_revoke(name=name)
        except Agent.DoesNotExist as error:
            raise CommandError(f"No agent named {name!r}.") from error
        self.stdout.write(f"Revoked {count} token(s) of {name}.")

    def _list(self) -> None:
        for agent in agent_list():
            expiry = agent.last_token_expiry  # type: ignore[attr-defined]
            self.stdout.write(
                f"{agent.name}\tsource={agent.source}\tscopes={','.join(agent.scopes)}\t"
                f"rate={agent.rate_limit or 'default'}\ttokens={agent.token_count}\t"  # type: ignore[attr-defined]
                f"latest_expiry={expiry.isoformat() if expiry else '-'}"
            )

"""Each command's --help says what it does, its options and an example, without Django's
own options; a subcommand has a help of its own. The MCP server reports the package's
version."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import anyio
import pytest
from django.conf import settings
from django.core.management import get_commands, load_command_class
from mcp import Client

from memory.services.agents import agent_create
from memory.services.sql import connection_url

from .mcp.conftest import stdio_parameters

CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
# Django's options on every command: meaningless to an operator of Cortex.
DJANGO = ("--settings", "--pythonpath", "--skip-checks", "--traceback", "--no-color",
          "--force-color", "--verbosity", "--version")
# Not yet on memory.management.base.CortexCommand: `up` and `service` (their owner's files).
NOT_HERE = {"up", "service"}
MEMORYS = sorted(name for name, app in get_commands().items()
                 if app == "memory" and name not in NOT_HERE)


def _parsers(name: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The command's parser, then each subcommand's."""
    parser = load_command_class("memory", name).create_parser("cortex", name)
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield f"{name} {sub}", subparser


def test_every_memory_command_is_checked() -> None:
    assert {"agent", "context", "decay", "mcp", "rebuild", "recall", "remember", "retain",
            "sleep", "taxonomy"} <= set(MEMORYS)


@pytest.mark.parametrize("name", MEMORYS)
def test_help_says_what_options_and_an_example(name: str) -> None:
    for label, parser in _parsers(name):
        text = parser.format_help()
        shown = [o for o in DJANGO if o in text]
        assert shown == [], f"cortex {label} --help shows {shown}"
        assert parser.description and len(parser.description) >= 30, label
        assert "examples:\n" in text, label
        examples = text.split("examples:\n", 1)[1].splitlines()
        assert any(f"cortex {name}" in line for line in examples), label
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                assert all(a.help for a in action._choices_actions), label
                continue
            assert action.help, f"cortex {label}: {action.option_strings or action.dest}"


def test_django_options_are_hidden_but_still_accepted() -> None:
    parser = load_command_class("memory", "taxonomy").create_parser("cortex", "taxonomy")
    assert parser.parse_args(["--verbosity", "0", "show"]).verbosity == 0


def _cortex(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CORTEX_HOME": str(settings.CORTEX_HOME),
           "DATABASE_URL": connection_url(), "REDIS_URL": settings.REDIS_URL}
    return subprocess.run([CORTEX, *args], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.django_db
def test_mcp_install_has_its_own_help_on_the_terminal() -> None:
    install = _cortex("mcp", "install", "--help")
    serve = _cortex("mcp", "--help")
    assert install.returncode == 0 and serve.returncode == 0, install.stderr + serve.stderr
    assert install.stdout.startswith("usage: cortex mcp install")
    assert "--claude-desktop" in install.stdout and "--yes" in install.stdout
    assert "cortex mcp install --claude-code" in install.stdout
    assert "--claude-desktop" not in serve.stdout and "install" in serve.stdout
    for text in (install.stdout, serve.stdout):
        assert not [o for o in DJANGO if o in text], text


def test_mcp_install_still_takes_its_options(tmp_path: Path) -> None:
    parser = load_command_class("memory", "mcp").create_parser("cortex", "mcp")
    options = parser.parse_args(["--token", "outer", "install", "--claude-desktop",
                                 "--project", str(tmp_path), "--yes"])
    assert (options.action, options.client, options.project, options.yes, options.token) == \
        ("install", "claude-desktop", str(tmp_path), True, "outer")
    assert parser.parse_args(["install", "--token", "inner"]).token == "inner"
    assert parser.parse_args(["--token", "t"]).action is None  # serve, the default


@pytest.mark.django_db(transaction=True)
def test_the_mcp_server_reports_the_packages_version() -> None:
    _, token = agent_create(name="versioned", scopes=["recall:read"])

    async def main() -> str | None:
        async with Client(stdio_parameters(token)) as client:
            info = client.server_info
            return info.version if info else None

    assert anyio.run(main) == version("cortex") != ""

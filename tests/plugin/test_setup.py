"""`cortex setup claude-code`: the plugin's agent, a token scoped to the hooks and tools, in a
file only the operator reads, never printed; run again, the old token stops working."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest
from django.core.management import call_command

from insight.services.claude_code_setup import SCOPES
from memory.errors import DomainError
from memory.mcp.auth import agent_authenticate
from memory.models.agents import Agent

pytestmark = pytest.mark.django_db(transaction=True)


def _setup(*args: str) -> str:
    out = io.StringIO()
    call_command("setup", "claude-code", *args, stdout=out)
    return out.getvalue()


def test_setup_saves_a_scoped_token_only_the_operator_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "cortex-home"
    monkeypatch.setenv("CORTEX_HOME", str(home))
    monkeypatch.delenv("CORTEX_URL", raising=False)
    said = _setup("--session-start-tokens", "700")
    config_file = home / "hooks" / "config.json"
    config = json.loads(config_file.read_text())
    assert stat.S_IMODE(config_file.stat().st_mode) == 0o600
    assert config["session_start_tokens"] == 700 and "url" not in config
    assert config["token"] not in said and "never shown" in said
    agent = agent_authenticate(token=config["token"])
    assert agent.name == "claude-code" and agent.source == "claude-code"
    assert sorted(Agent.objects.get(name="claude-code").scopes) == sorted(SCOPES)
    assert "operator" not in SCOPES
    link = home / "claude-code" / "cortex"
    assert link.is_symlink() and os.access(link.resolve(), os.X_OK)
    assert link.resolve().name == "cortex"
    assert "/plugin install cortex@cortex" in said

    first = config["token"]
    _setup()
    second = json.loads(config_file.read_text())
    assert second["token"] != first and second["session_start_tokens"] == 700
    with pytest.raises(DomainError):
        agent_authenticate(token=first)
    assert agent_authenticate(token=second["token"]).name == "claude-code"

"""`cortex mcp install`: the server entry written into the client's config, the diff shown
first, everything else in the file kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from memory.mcp.install import install_run

COMMAND = "/opt/cortex/bin/cortex"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("CORTEX_HOME", "/srv/cortex")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return tmp_path


def test_claude_code_user_config_keeps_the_rest(home: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    config = home / ".claude.json"
    config.write_text(json.dumps({"theme": "dark", "projects": {"/x": {"history": []}},
                                  "mcpServers": {"other": {"command": "other"}}}))
    assert install_run(client="claude-code", project=None, token="tok", yes=True,
                       command=COMMAND) == 0
    written = json.loads(config.read_text())
    assert written["theme"] == "dark" and written["projects"] == {"/x": {"history": []}}
    assert written["mcpServers"]["other"] == {"command": "other"}
    assert written["mcpServers"]["cortex"] == {
        "type": "stdio", "command": COMMAND, "args": ["mcp"],
        "env": {"CORTEX_TOKEN": "tok", "CORTEX_HOME": "/srv/cortex"}}
    out = capsys.readouterr().out
    assert f"--- {config} (current)" in out and '+    "cortex": {' in out

    assert install_run(client="claude-code", project=None, token="tok", yes=True,
                       command=COMMAND) == 0
    assert "already installed" in capsys.readouterr().out


def test_a_project_file_names_the_token_never_writes_it(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    assert install_run(client="claude-code", project=str(project), token="secret", yes=True,
                       command=COMMAND) == 0
    text = (project / ".mcp.json").read_text()
    assert "secret" not in text
    assert json.loads(text)["mcpServers"]["cortex"]["env"] == {
        "CORTEX_TOKEN": "${CORTEX_TOKEN}", "CORTEX_HOME": "${CORTEX_HOME}"}


def test_claude_desktop_on_linux(home: Path) -> None:
    assert install_run(client="claude-desktop", project=None, token="tok", yes=True,
                       command=COMMAND) == 0
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    assert json.loads(path.read_text())["mcpServers"]["cortex"] == {
        "command": COMMAND, "args": ["mcp"],
        "env": {"CORTEX_TOKEN": "tok", "CORTEX_HOME": "/srv/cortex"}}


def test_nothing_is_written_without_confirmation_or_on_bad_json(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = home / ".claude.json"
    assert install_run(client="claude-code", project=None, token="t", yes=False,
                       command=COMMAND) == 1
    assert not config.exists() and "Nothing written" in capsys.readouterr().out
    config.write_text("{not json")
    assert install_run(client="claude-code", project=None, token="t", yes=True,
                       command=COMMAND) == 1
    assert config.read_text() == "{not json"


def test_the_command(home: Path) -> None:
    call_command("mcp", "install", "--claude-desktop", "--token", "tok", "--yes")
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(path.read_text())["mcpServers"]["cortex"]
    assert entry["args"] == ["mcp"] and entry["env"]["CORTEX_TOKEN"] == "tok"

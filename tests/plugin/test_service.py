"""`cortex service install | uninstall | status`: a unit systemd accepts, running `cortex up`
with its environment in a file only the operator reads; uninstall leaves nothing behind."""

from __future__ import annotations

import os
import plistlib
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memory import service_unit

CORTEX = str(Path(sys.executable).parent / "cortex")
SECRET_URL = "postgres://op:s3cret-pw@db.example:5432/cortex"


def _tree(*roots: Path) -> dict[str, bytes]:
    return {str(p): (p.read_bytes() if p.is_file() else b"/") for root in roots
            for p in sorted(root.rglob("*"))}


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    config, home = tmp_path / "config", tmp_path / "cortex-home"
    config.mkdir()
    home.mkdir()
    (home / "kept.txt").write_text("Cortex's own files stay")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("CORTEX_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    return config, home


def _cortex(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CORTEX, "service", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "DATABASE_URL": SECRET_URL})


def test_install_writes_a_unit_systemd_accepts_and_uninstall_leaves_nothing(
        homes: tuple[Path, Path]) -> None:
    config, home = homes
    before = _tree(config, home)
    done = _cortex("install", "--port", "8765", "--no-start")
    assert done.returncode == 0, done.stderr
    unit = config / "systemd" / "user" / "cortex.service"
    text = unit.read_text()
    executable = str(Path(CORTEX).resolve())
    assert f'ExecStart="{executable}" "up" "--host" "127.0.0.1" "--port" "8765"' in text
    assert f'Environment="CORTEX_HOME={home}"' in text
    assert "WantedBy=default.target" in text and "Restart=on-failure" in text
    # The database's password is in a file only the operator reads, never in the unit.
    assert "s3cret" not in text
    env_file = home / "service.env"
    assert f"EnvironmentFile=-{env_file}" in text
    assert f'DATABASE_URL="{SECRET_URL}"' in env_file.read_text()
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    if shutil.which("systemd-analyze"):
        verified = subprocess.run(["systemd-analyze", "verify", str(unit)],
                                  capture_output=True, text=True, timeout=60)
        assert verified.returncode == 0, verified.stderr
        assert str(unit) not in verified.stderr
    assert "Installed:" in _cortex("status").stdout

    removed = _cortex("uninstall")
    assert removed.returncode == 0 and "Removed" in removed.stdout
    assert _tree(config, home) == before
    assert "No Cortex service is installed" in _cortex("status").stdout


def test_a_unit_systemd_refuses_is_reported(homes: tuple[Path, Path]) -> None:
    """The check is real: a unit whose command does not exist fails verify."""
    if not shutil.which("systemd-analyze"):
        pytest.skip("no systemd-analyze on this machine")
    unit = homes[0] / "cortex.service"
    unit.write_text(service_unit.systemd_unit(command=["/nonexistent/cortex", "up"],
                                              home=homes[1], env_file=homes[1] / "x.env"))
    assert service_unit.systemd_verify(unit)


def test_on_macos_a_launchd_agent_runs_cortex_up(homes: tuple[Path, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    config, home = homes
    before = _tree(config.parent)
    assert service_unit.install(host="127.0.0.1", port=8765, start=False,
                                platform="darwin") == 0
    plist = config.parent / "Library" / "LaunchAgents" / "dev.cortex.up.plist"
    agent = plistlib.loads(plist.read_bytes())
    assert agent["ProgramArguments"][1:] == ["up", "--host", "127.0.0.1", "--port", "8765"]
    assert agent["EnvironmentVariables"]["CORTEX_HOME"] == str(home)
    assert agent["RunAtLoad"] is True and agent["KeepAlive"] == {"SuccessfulExit": False}
    assert service_unit.uninstall(platform="darwin") == 0
    assert not plist.exists()
    left = set(_tree(config.parent)) - set(before)
    assert left <= {str(config.parent / "Library"), str(config.parent / "Library" /
                                                         "LaunchAgents")}

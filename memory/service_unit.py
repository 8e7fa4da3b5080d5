"""`cortex service install | uninstall | status`: Cortex kept running without a terminal.

A systemd user unit on Linux, a launchd agent on macOS, each running `cortex up` and
restarting it when it fails; `uninstall` stops it and removes every file `install` wrote.
Django-free: installing a service starts no database.
"""

from __future__ import annotations

import argparse
import os
import plistlib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from memory.runtime import runtime_alive, runtime_read

UNIT = "cortex.service"
LAUNCHD_LABEL = "dev.cortex.up"
# Passed on from the installer's environment when set (into a file only the operator reads:
# a DATABASE_URL may hold a password).
PASSED_ON = ("DATABASE_URL", "REDIS_URL", "NATS_URL", "CORTEX_CONFIG", "CORTEX_TIME_ZONE",
             "CORTEX_SLEEP_CYCLE_AT")
HELP = """\
cortex service: keep Cortex running without a terminal (`cortex up` as a systemd user unit
on Linux, a launchd agent on macOS, restarted when it fails, started at login).

  cortex service install [--host H] [--port P] [--no-start]
                         write the unit and start it (--no-start: write it only)
  cortex service uninstall
                         stop it and remove every file install wrote
  cortex service status  whether it is installed, running, and where Cortex listens

Example:
  cortex service install --port 8765
"""


@dataclass(frozen=True)
class Files:
    unit: Path  # the systemd unit or the launchd plist
    env: Path  # the environment passed on (systemd: its EnvironmentFile)


def cortex_home() -> Path:
    return Path(os.environ.get("CORTEX_HOME", "~/.cortex")).expanduser().resolve()


def service_files(*, platform: str = sys.platform) -> Files:
    env = cortex_home() / "service.env"
    if platform == "darwin":
        return Files(Path("~/Library/LaunchAgents").expanduser() / f"{LAUNCHD_LABEL}.plist",
                     env)
    base = Path(os.environ.get("XDG_CONFIG_HOME") or "~/.config").expanduser()
    return Files(base / "systemd" / "user" / UNIT, env)


def cortex_executable() -> str:
    beside = Path(sys.executable).parent / "cortex"
    found = str(beside) if beside.exists() else shutil.which("cortex")
    if not found:
        raise SystemExit("cortex service: no `cortex` executable beside this Python or on PATH")
    return str(Path(found).resolve())


def _quoted(value: str) -> str:
    """A systemd command-line word: double-quoted, its quotes, backslashes and % escaped."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%") + '"'


def systemd_unit(*, command: list[str], home: Path, env_file: Path) -> str:
    return "\n".join([
        "[Unit]",
        "Description=Cortex (cortex up): memory for one operator and their agents",
        "After=network.target",
        "",
        "[Service]",
        "Type=simple",
        f"ExecStart={' '.join(_quoted(word) for word in command)}",
        f"Environment={_quoted(f'CORTEX_HOME={home}')}",
        f"EnvironmentFile=-{env_file}",
        # `cortex up` stops its web server, workers and beat on SIGTERM, then exits; whatever
        # is left after the timeout is killed with the rest of the unit's processes.
        "KillMode=mixed",
        "TimeoutStopSec=60",
        "Restart=on-failure",
        "RestartSec=5",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ])


def launchd_plist(*, command: list[str], home: Path, env: dict[str, str]) -> bytes:
    return plistlib.dumps({
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": command,
        "EnvironmentVariables": {"CORTEX_HOME": str(home), **env},
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "StandardOutPath": str(home / "service.log"),
        "StandardErrorPath": str(home / "service.log"),
    })


def _passed_on() -> dict[str, str]:
    return {name: os.environ[name] for name in PASSED_ON if os.environ.get(name)}


def _write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return subprocess.CompletedProcess(command, 127, "", str(error))


def _first_line(done: subprocess.CompletedProcess[str]) -> str:
    text = (done.stderr or done.stdout or "").strip()
    return text.splitlines()[0] if text else f"exit {done.returncode}"


def systemd_verify(unit: Path) -> str | None:
    """What `systemd-analyze verify` finds wrong with the unit (None: nothing, or no
    systemd-analyze on this machine)."""
    if not shutil.which("systemd-analyze"):
        return None
    done = _run("systemd-analyze", "verify", str(unit))
    problems = [line for line in (done.stderr + done.stdout).splitlines()
                if str(unit) in line or UNIT in line]
    return "\n".join(problems) if done.returncode or problems else None


def install(*, host: str, port: int, start: bool, platform: str = sys.platform) -> int:
    files = service_files(platform=platform)
    home = cortex_home()
    home.mkdir(parents=True, exist_ok=True)
    command = [cortex_executable(), "up", "--host", host, "--port", str(port)]
    env = _passed_on()
    if platform == "darwin":
        _write_private(files.unit, launchd_plist(command=command, home=home, env=env))
        print(f"Wrote {files.unit}.")
        return _launchd_start(files.unit) if start else 0
    _write_private(files.env, "".join(f"{k}={_env_value(v)}\n" for k, v in env.items())
                   .encode())
    _write_private(files.unit, systemd_unit(command=command, home=home, env_file=files.env)
                   .encode())
    print(f"Wrote {files.unit} (its environment in {files.env}, readable by you only).")
    problems = systemd_verify(files.unit)
    if problems:
        print(f"systemd-analyze verify:\n{problems}", file=sys.stderr)
        return 1
    return _systemd_start() if start else 0


def _env_value(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _systemd_start() -> int:
    for step in (("daemon-reload",), ("enable", "--now", UNIT)):
        done = _run("systemctl", "--user", *step)
        if done.returncode:
            print(f"The unit is written, but `systemctl --user {' '.join(step)}` failed "
                  f"({_first_line(done)}): in your login session run "
                  f"`systemctl --user enable --now {UNIT}`.")
            return 1
    print(f"Cortex runs as the user service {UNIT} (systemctl --user status {UNIT}; "
          f"journalctl --user -u {UNIT}).")
    return 0


def _launchd_start(plist: Path) -> int:
    done = _run("launchctl", "bootstrap", f"gui/{os.getuid()}", str(plist))
    if done.returncode:
        print(f"The agent is written, but launchctl bootstrap failed ({_first_line(done)}).")
        return 1
    print(f"Cortex runs as the launchd agent {LAUNCHD_LABEL}.")
    return 0


def uninstall(*, platform: str = sys.platform) -> int:
    files = service_files(platform=platform)
    if platform == "darwin":
        if files.unit.exists():
            _run("launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCHD_LABEL}")
    elif files.unit.exists() and shutil.which("systemctl"):
        _run("systemctl", "--user", "disable", "--now", UNIT)
    removed = [path for path in (files.unit, files.env) if path.exists()]
    for path in removed:
        path.unlink()
    _remove_empty_parents(files.unit, platform=platform)
    if platform != "darwin" and removed and shutil.which("systemctl"):
        _run("systemctl", "--user", "daemon-reload")
    print(f"Removed {', '.join(map(str, removed))}." if removed
          else "No Cortex service is installed.")
    return 0


def _remove_empty_parents(unit: Path, *, platform: str) -> None:
    """systemd/user/ and systemd/ when install made them and nothing else is in them."""
    if platform == "darwin":
        return
    for directory in (unit.parent, unit.parent.parent):
        try:
            directory.rmdir()
        except OSError:  # not empty, or not there
            return


def status(*, platform: str = sys.platform) -> int:
    files = service_files(platform=platform)
    if not files.unit.exists():
        print(f"No Cortex service is installed ({files.unit} does not exist).")
    elif platform == "darwin":
        done = _run("launchctl", "print", f"gui/{os.getuid()}/{LAUNCHD_LABEL}")
        print(f"Installed: {files.unit}; launchd: "
              f"{'loaded' if done.returncode == 0 else 'not loaded'}.")
    else:
        active = _run("systemctl", "--user", "is-active", UNIT)
        print(f"Installed: {files.unit}; systemd: {active.stdout.strip() or _first_line(active)}.")
    running = runtime_read(cortex_home())
    if running is not None and runtime_alive(running):
        print(f"Cortex is up at {running.get('url')} (pid {running.get('pid')}).")
    else:
        print("Cortex is not running (no live `cortex up` for this CORTEX_HOME).")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(HELP)
        return 0 if argv else 2
    parser = argparse.ArgumentParser(prog="cortex service", description=HELP.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["install", "uninstall", "status"])
    parser.add_argument("--host", default="127.0.0.1", help="install: where cortex up listens")
    parser.add_argument("--port", type=int, default=8000, help="install: its port")
    parser.add_argument("--no-start", action="store_true", help="install: write the unit only")
    args = parser.parse_args(argv)
    if args.action == "install":
        return install(host=args.host, port=args.port, start=not args.no_start)
    if args.action == "uninstall":
        return uninstall()
    return status()

"""`.claude/settings.json` `permissions.allow`: rules in Claude Code's syntax, added to the
existing list (valid JSON kept, existing rules and key order preserved, deny rules never
touched), and never a rule broader than the commands the operator granted."""

from __future__ import annotations

import json
import re
from typing import Any

SETTINGS_PATH = ".claude/settings.json"
# A command that runs whatever follows it: a rule on it grants everything.
RUNS_ANYTHING = frozenset({
    "sh", "bash", "zsh", "dash", "fish", "ksh", "csh", "tcsh", "eval", "exec", "env", "sudo",
    "su", "doas", "xargs", "nohup", "time", "timeout", "watch", "nice", "ionice", "strace",
    "python", "python2", "python3", "node", "deno", "perl", "ruby", "php", "lua", "ssh",
    "find", "awk", "sed", "osascript", "powershell", "pwsh", "cmd", "source", ".", "command",
    "builtin", "script", "parallel", "chroot", "systemd-run", "flock", "unbuffer",
    # An agent runs whatever it is asked to, with permissions of its own.
    "claude", "codex", "gemini", "aider",
})
# Prefixes that run the program named next: allowed only with that program named (not
# itself one that runs anything): `uv run pytest` yes, `uv run` or `uv run bash` never.
RUNNERS = frozenset({
    "npx", "bunx", "pnpx", "uvx", "pipx run", "npm exec", "npm x", "pnpm exec", "pnpm dlx",
    "yarn dlx", "yarn exec", "bun x", "bun run", "uv run", "uv tool", "poetry run",
    "pipenv run", "pdm run", "hatch run", "conda run", "cargo run", "go run", "dotnet run",
})
# Prefixes whose next word is a place (a container, a config), then anything: never.
NEVER = frozenset({
    "docker exec", "docker run", "docker compose", "podman exec", "podman run",
    "kubectl exec", "kubectl run", "git -c", "gh api", "gh extension", "make -f",
    "deno run", "deno eval", "uv pip",
})
# Package managers of every ecosystem, and their subcommands that install, add, upgrade or
# remove packages or environments (`pnpm add`, `conda create`, `uv sync`, `go get`): an
# install runs code fetched from a registry (install scripts, build backends) and changes the
# project's dependencies, which is the reviewer's decision for each package, not a command
# to allow once.
PACKAGE_MANAGERS = frozenset({
    "pip", "pip3", "uv", "pipx", "conda", "mamba", "micromamba", "pixi", "poetry", "pdm",
    "rye", "hatch", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "rustup", "go", "gem",
    "bundle", "composer", "brew", "apt", "apt-get", "aptitude", "dnf", "yum", "apk",
    "pacman", "zypper", "port", "choco", "winget", "scoop", "snap", "flatpak", "nix-env",
    "dotnet", "nuget", "mix", "cabal", "stack", "opam", "luarocks", "cpan", "vcpkg",
    "conan", "helm", "asdf", "mise", "sdk",
})
PACKAGE_CHANGES = frozenset({
    "install", "i", "in", "ci", "add", "create", "get", "require", "sync", "upgrade",
    "update", "up", "uninstall", "remove", "rm", "un", "reinstall", "link",
})
# A manager's groups of subcommands: `uv pip install`, `conda env create`, `uv tool install`.
PACKAGE_GROUPS = frozenset({"pip", "env", "tool", "self", "global", "toolchain", "target",
                            "component", "cask", "plugin"})
# Commands that install whatever they are given, on their own.
INSTALLERS = frozenset({"cpanm", "easy_install", "pip-sync", "npm-install"})
# Commands that only serve the command after them on a line: `sleep` waits for it, `yes`
# answers every question it asks, `true`, `export`, `set` set its stage. A grant of the line
# was the operator's consent to that other command: a rule on these allows nothing they
# meant (and `yes` exists to answer the confirmations a prompt would ask).
SERVES_ANOTHER = frozenset({"sleep", "yes", "true", "false", "wait", "export", "set",
                            "unset", ":"})
# `python -m <module>` names one program, except modules that run or install anything.
PYTHON_RUNNERS = frozenset({"pip", "venv", "http.server", "code", "runpy", "pdb", "idlelib",
                            "ensurepip", "pydoc", "timeit", "trace", "cProfile", "profile"})
_WORD = re.compile(r"-{0,2}[A-Za-z0-9_][A-Za-z0-9_./@=+:,-]*")
_BASH = re.compile(r"^Bash\((?P<body>[^()]*)\)$")
_DOMAIN = re.compile(r"^WebFetch\(domain:(?P<host>[a-z0-9]([a-z0-9-]*[a-z0-9])?"
                     r"(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+)\)$")
_MCP = re.compile(r"^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+$")
MAX_RULE = 200


class SettingsInvalid(ValueError):
    """The settings file is not a JSON object Cortex can add to: it is left alone."""


def _bash_refusal(body: str) -> str | None:
    command = body[:-2] if body.endswith(":*") else body
    if not command.strip():
        return "a bare Bash rule allows every command"
    if "*" in command or any(c in command for c in "&;|<>`$(){}\n\\'\"!"):
        return "a compound command, a wildcard or shell syntax is never allowed"
    words = command.split(" ")
    if any(not _WORD.fullmatch(w) for w in words) or words[0].startswith("-"):
        return "a word of the command is not a plain word"
    head = words[0].rsplit("/", 1)[-1]
    python_module = (head.startswith("python") and len(words) >= 3 and words[1] == "-m"
                     and words[2] not in PYTHON_RUNNERS)
    if (head in RUNS_ANYTHING or head.startswith("python")) and not python_module:
        return f"{head!r} runs whatever follows it"
    two = " ".join([head, *words[1:2]])
    if two in NEVER:
        return f"{two!r} runs whatever follows it"
    if refusal := _install_refusal(head, words):
        return refusal
    if head in SERVES_ANOTHER:
        return f"{head!r} only serves the command after it: the grant was for that one"
    runner = head if head in RUNNERS else two if two in RUNNERS else ""
    if runner:
        rest = words[len(runner.split(" ")):]
        program = rest[0].rsplit("/", 1)[-1] if rest else ""
        if (not program or program.startswith("-") or program in RUNS_ANYTHING
                or program.startswith("python") or program in RUNNERS):
            return f"{runner!r} runs whatever follows it"
        if "@" in program[1:]:  # create-next-app@latest: fetched at a version, then run
            return f"{runner!r} fetches {program!r} from a registry to run it"
    return None


def _install_refusal(head: str, words: list[str]) -> str | None:
    """Why the command installs packages (None: it does not)."""
    if head in INSTALLERS:
        return f"{head!r} installs packages"
    if head not in PACKAGE_MANAGERS:
        return None
    rest = [w for w in words[1:] if not w.startswith("-")]
    if not rest:
        return f"{head!r} alone covers its installs too"
    verb = rest[1] if rest[0] in PACKAGE_GROUPS and len(rest) > 1 else rest[0]
    if verb in PACKAGE_CHANGES:
        return (f"{' '.join(words[:words.index(verb) + 1])!r} changes the installed packages "
                "(it runs code from a registry): a decision per package")
    return None


def allow_rule_refusal(rule: str) -> str | None:
    """Why `rule` may not be proposed, or None when it is a narrow rule Cortex may offer."""
    if len(rule) > MAX_RULE:
        return "the rule is too long"
    if found := _BASH.fullmatch(rule):
        return _bash_refusal(found.group("body"))
    if _DOMAIN.fullmatch(rule) or _MCP.fullmatch(rule):
        return None
    return "only Bash command rules, WebFetch domains and MCP tools are proposed"


def _indent(text: str) -> int | str:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def settings_load(text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsInvalid(f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise SettingsInvalid("not a JSON object")
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict) or not isinstance(permissions.get("allow", []), list):
        raise SettingsInvalid("permissions.allow is not a list")
    return data


def allow_rule_add(text: str | None, *, rule: str) -> str | None:
    """The settings with `rule` appended to `permissions.allow`; None when already there."""
    return allow_rules_add(text, rules=[rule])


def allow_rules_add(text: str | None, *, rules: list[str]) -> str | None:
    """The settings with `rules` appended to `permissions.allow` in this order (those already
    there skipped); None when every one is already there. Each must be a rule Cortex may
    offer (`allow_rule_refusal`), or ValueError."""
    for rule in rules:
        if refusal := allow_rule_refusal(rule):
            raise ValueError(f"refused allow rule {rule!r}: {refusal}")
    data = settings_load(text)
    permissions = data.setdefault("permissions", {})
    allow = permissions.setdefault("allow", [])
    new = [r for r in dict.fromkeys(rules) if r not in allow]
    if not new:
        return None
    allow.extend(new)
    indent = _indent(text or "")
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"

"""Reading shell commands and written code: command prefixes (for permission rules like
`Bash(npm test:*)`), package installs, and the libraries a file imports."""

from __future__ import annotations

import re
import shlex
import sys
from functools import lru_cache
from urllib.parse import urlparse

_SEGMENTS = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")
_ENV = re.compile(r"^[A-Za-z_]\w*=")
_WRAPPERS = {"sudo", "time", "nohup", "exec", "env"}
_SHELL_KEYWORDS = {"for", "while", "until", "if", "case", "select", "function", "{", "(", "[",
                   "[[", "!", "do", "then"}
# Commands whose first argument is a subcommand: the rule covers "git commit", not "git".
_SUBCOMMANDED = {
    "npm", "pnpm", "yarn", "npx", "bun", "bunx", "uv", "uvx", "pip", "pip3", "git", "cargo",
    "go", "docker", "kubectl", "poetry", "gh", "brew", "apt", "apt-get", "conda", "rustup",
    "dotnet", "mvn", "gradle", "terraform", "helm", "systemctl", "make", "just", "deno",
}
# Subcommands that run something else: the rule covers "npm run build", not "npm run".
_RUNNERS = {"run", "exec", "x", "dlx"}
_INSTALLERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pip", ("pip", "install")), ("pip", ("pip3", "install")),
    ("pip", ("python", "-m", "pip", "install")), ("pip", ("python3", "-m", "pip", "install")),
    ("uv", ("uv", "add")), ("uv", ("uv", "pip", "install")), ("poetry", ("poetry", "add")),
    ("npm", ("npm", "install")), ("npm", ("npm", "i")), ("npm", ("npm", "add")),
    ("pnpm", ("pnpm", "add")), ("pnpm", ("pnpm", "install")), ("pnpm", ("pnpm", "i")),
    ("yarn", ("yarn", "add")), ("bun", ("bun", "add")), ("bun", ("bun", "install")),
    ("cargo", ("cargo", "add")), ("go", ("go", "get")), ("gem", ("gem", "install")),
    ("bundle", ("bundle", "add")), ("composer", ("composer", "require")),
    ("conda", ("conda", "install")), ("brew", ("brew", "install")),
    ("apt", ("apt", "install")), ("apt", ("apt-get", "install")),
)
_FLAGS_WITH_VALUE = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url",
                     "--extra-index-url", "-e", "--editable", "--target", "-t", "--prefix",
                     "--registry", "--save-prefix", "-p", "--python", "--group", "--only"}
_VERSION_SPEC = re.compile(r"[<>=!~\[;,\s]")
_PY_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b"
    r"|import[ \t]+([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*))",
    re.M,
)
_JS_IMPORT = re.compile(
    r"""(?:^[ \t]*import[ \t]+(?:[^'"\n;]*?[ \t]+from[ \t]+)?|\brequire\(\s*|\bimport\(\s*)"""
    r"""['"]([^'"\n]+)['"]""",
    re.M,
)
_PY_SUFFIXES = (".py", ".pyi")
_JS_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte", ".astro")
_NODE_BUILTINS = {
    "fs", "path", "os", "http", "https", "url", "util", "crypto", "child_process", "stream",
    "events", "assert", "buffer", "zlib", "readline", "net", "tls", "worker_threads",
    "process", "querystring", "module", "timers", "dns", "cluster", "vm", "perf_hooks",
}
MAX_CODE = 65536


def _words(segment: str) -> list[str]:
    try:
        words = shlex.split(segment, posix=True)
    except ValueError:
        words = segment.split()
    while words and (_ENV.match(words[0]) or words[0] in _WRAPPERS):
        words.pop(0)
    return words


def segments(command: str) -> list[list[str]]:
    """The simple commands of a command line, each as words (cd and env prefixes dropped)."""
    return [list(words) for words in _segments(command[:4000])]


@lru_cache(maxsize=4096)
def _segments(command: str) -> tuple[tuple[str, ...], ...]:
    """Kept per command line: the permissions, project-activity and correction analyzers
    each split the same tool call's command (shlex: a sixth of their time)."""
    out = []
    for part in _SEGMENTS.split(command):
        words = _words(part)
        if words and words[0] not in {"cd", "pushd", "popd", "source", "."}:
            out.append(tuple(words))
    return tuple(out)


def command_prefix(command: str) -> str:
    """`npm test`, `git commit`, `python -m pytest`, `ls`: what a permission rule names
    (nothing for a shell construct: `for`, `if`, `while`)."""
    parts = segments(command)
    if not parts or parts[0][0] in _SHELL_KEYWORDS:
        return ""
    words = parts[0]
    head = words[0].rsplit("/", 1)[-1]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if head.startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
        return f"{head} -m {words[2]}"
    if head in _SUBCOMMANDED and rest:
        if rest[0] in _RUNNERS and len(rest) > 1:
            return f"{head} {rest[0]} {rest[1]}"
        return f"{head} {rest[0]}"
    return head


def permission_pattern(tool: str, tool_input: dict[str, object]) -> str:
    if tool == "Bash":
        prefix = command_prefix(str(tool_input.get("command") or ""))
        return f"Bash({prefix}:*)" if prefix else "Bash"
    if tool == "WebFetch":
        host = urlparse(str(tool_input.get("url") or "")).hostname
        return f"WebFetch(domain:{host})" if host else "WebFetch"
    return tool


def _package_name(manager: str, arg: str) -> str:
    arg = arg.strip("'\"")
    if manager in {"npm", "pnpm", "yarn", "bun"}:
        scoped = arg.startswith("@")
        name = arg[1:].split("@", 1)[0] if scoped else arg.split("@", 1)[0]
        return f"@{name}" if scoped else name
    if manager == "go":
        return arg.split("@", 1)[0]
    return _VERSION_SPEC.split(arg, 1)[0].split("@", 1)[0]


def _is_package_arg(arg: str) -> bool:
    if arg in {".", ".."} or "://" in arg or arg.startswith(("./", "../", "/", "~")):
        return False
    return not (arg.endswith((".txt", ".toml", ".whl", ".tar.gz", ".lock")) and "/" not in arg[:1])


def installs(command: str) -> list[tuple[str, str]]:
    """(manager, package) for each package a command line installs."""
    found: list[tuple[str, str]] = []
    for words in segments(command):
        for manager, prefix in _INSTALLERS:
            if tuple(words[: len(prefix)]) != prefix:
                continue
            args, skip = words[len(prefix):], False
            for arg in args:
                if skip:
                    skip = False
                elif arg.startswith("-"):
                    skip = arg in _FLAGS_WITH_VALUE
                elif _is_package_arg(arg) and (name := _package_name(manager, arg)):
                    found.append((manager, name))
            break
    return found


def _python_imports(code: str, own: str) -> set[str]:
    names = set()
    for from_name, import_names in _PY_IMPORT.findall(code):
        for name in [from_name] if from_name else import_names.split(","):
            top = name.strip().split(".", 1)[0]
            if top and top not in sys.stdlib_module_names and top != own:
                names.add(top)
    return names


def _js_imports(code: str) -> set[str]:
    names = set()
    for spec in _JS_IMPORT.findall(code):
        if spec.startswith((".", "/", "~", "@/", "#")) or spec.startswith("node:"):
            continue
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        if name not in _NODE_BUILTINS:
            names.add(name)
    return names


def imports_in(code: str, path: str, *, project: str = "") -> list[str]:
    """Third-party libraries a source file imports (not the standard library, not itself)."""
    code = code[:MAX_CODE]
    if path.endswith(_PY_SUFFIXES):
        return sorted(_python_imports(code, project.replace("-", "_")))
    if path.endswith(_JS_SUFFIXES):
        return sorted(_js_imports(code))
    return []

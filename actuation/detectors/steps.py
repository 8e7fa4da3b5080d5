"""A tool use as a step of a procedure: `Edit`, or `Bash: pytest`, `Bash: git commit`,
`Bash: uv run pytest` (the program, its subcommand, and what a runner subcommand runs), of
the first command of the line that does the work. Pure."""

from __future__ import annotations

import re
import shlex

from actuation.formats.allowlist import SERVES_ANOTHER

_PLAIN = re.compile(r"^[A-Za-z0-9_.:+-]{1,40}$")
_ENV = re.compile(r"^[A-Za-z_]\w*=")
# `uv run pytest`, `npm run build`: the subcommand runs the program named next.
_RUNNERS = frozenset({"run", "exec", "x", "dlx"})
# What only sets the stage for the command after it on a line (a directory, a pause, answers,
# variables): never the step itself.
_STAGING = SERVES_ANOTHER | {"cd", "pushd", "popd", "source", "."}
# Steps that change the files being worked on: fixing the code is not a way round a pitfall.
EDITS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
# Task bookkeeping: no step of a procedure, no way round a pitfall.
BOOKKEEPING = frozenset({"TodoWrite", "TodoRead", "TaskCreate", "TaskUpdate", "TaskList",
                         "TaskGet", "TaskOutput", "ExitPlanMode", "EnterPlanMode"})


def _working_words(command: str) -> list[str] | None:
    """The words of the first command of a line that does the work: `cd app && npm test`,
    `sleep 2 && curl ...`, `yes | npm init` are `npm test`, `curl`, `npm init` (None: the
    line cannot be read)."""
    for part in re.split(r"&&|\|\||;|\||\n", command):
        try:
            words = [w for w in shlex.split(part) if not _ENV.match(w)]
        except ValueError:
            return None
        if words and words[0].rsplit("/", 1)[-1] not in _STAGING:
            return words
    return []


def step_of(tool: str, command: str) -> str:
    """The step a tool use is ("" when it cannot be named plainly)."""
    if tool != "Bash":
        return tool if _PLAIN.match(tool) else ""
    words = _working_words(command)
    if not words:
        return ""
    words = [w.rsplit("/", 1)[-1] if i == 0 else w for i, w in enumerate(words)]
    width = 3 if len(words) > 2 and words[1] in _RUNNERS else 2
    kept = [w for w in words[:width] if _PLAIN.match(w) and not w.startswith("-")]
    return f"Bash: {' '.join(kept)}" if kept and kept[0] == words[0] else ""


def step_tool(step: str) -> str:
    return step.split(":", 1)[0]

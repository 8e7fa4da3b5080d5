"""The demo corpus generator: Claude Code sessions and a git repository, from a seed.

`corpus_write(out)` writes the small demo corpus (a dozen sessions over five projects,
English and French, with every behaviour the analyzers look for, and a git repository
with several authors, branches and merges). With `size_bytes` the same generator keeps
writing sessions until the corpus reaches that size (the ingestion benchmark), and
`commits` sets the size of the repository. Same seed, same bytes.

The corpus starts on a fixed date (`START`). With `ends_at`, every date of it (transcript
lines, file times, commits) moves by one shift so that its last session ends then: the same
content, dated so that it was just lived (`cortex demo`, read at once, is not months old).
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from insight.demo import texts
from insight.demo.gitrepo import GIT_START, git_repo_write
from insight.demo.transcript import TranscriptWriter

START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
VERSIONS = ["1.0.98", "2.0.42", "2.0.76", "2.1.17", "2.1.114"]


@dataclass
class CorpusInfo:
    projects_root: Path
    repo: Path | None
    sessions: int = 0
    subagent_files: int = 0
    bytes: int = 0
    commits: int = 0
    files: list[Path] = field(default_factory=list)
    ended_at: datetime | None = None  # the time of the sessions' last line


def _last_written(path: Path, at: datetime) -> None:
    """The file's modification time is its last line's, as Claude Code leaves it: a line with
    no timestamp of its own before the first that has one (a `permission-mode` record) is
    dated by it, and a file written now would date it months after its session."""
    os.utime(path, (at.timestamp(), at.timestamp()))


def encode_cwd(cwd: str) -> str:
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


# Called before each session is written, with what is written so far (`info.ended_at`: when
# the last written session ended, None before the first) and when the next one starts.
BeforeSession = Callable[[CorpusInfo, datetime], None]


def corpus_write(
    out: Path, *, seed: int = 7, size_bytes: int = 0, commits: int = 120, git: bool = True,
    ends_at: datetime | None = None, before_session: BeforeSession | None = None,
) -> CorpusInfo:
    """A repository under `out/git/<name>` (its history precedes the sessions), then the
    sessions under `out/claude/projects`, one after the other; with `ends_at`, dated so that
    the last session ends then (only the dates move)."""
    shift = timedelta(0)
    if ends_at is not None:
        shift = ends_at - corpus_end(seed=seed, size_bytes=size_bytes)
    root = out / "claude" / "projects"
    info = CorpusInfo(projects_root=root, repo=None)
    if git:
        info.repo = out / "git" / "billing-api"
        info.commits = git_repo_write(info.repo, seed=seed, commits=commits,
                                      start=GIT_START + shift)
    sessions_write(root, seed=seed, size_bytes=size_bytes, info=info, start=START + shift,
                   before_session=before_session)
    return info


def corpus_end(*, seed: int, size_bytes: int = 0) -> datetime:
    """When the last session of the corpus from `START` ends. The rounds of the generator
    draw no date, so a corpus started later is the same one moved by the difference; this
    writes it once aside to know its length."""
    with tempfile.TemporaryDirectory(prefix="cortex-corpus-") as scratch:
        info = CorpusInfo(projects_root=Path(scratch), repo=None)
        sessions_write(Path(scratch), seed=seed, size_bytes=size_bytes, info=info, start=START)
    assert info.ended_at is not None  # the demo plan has sessions
    return info.ended_at


def sessions_write(root: Path, *, seed: int, size_bytes: int, info: CorpusInfo,
                   start: datetime = START, before_session: BeforeSession | None = None) -> None:
    rng = random.Random(seed)
    plans = list(DEMO_PLAN) if size_bytes <= 0 else []
    index = 0
    while plans or (size_bytes > 0 and info.bytes < size_bytes):
        if plans:
            project_index, version, episodes = plans.pop(0)
        else:
            project_index, version, episodes = _random_plan(rng, index)
        if before_session is not None:
            before_session(info, start)
        builder = SessionBuilder(root, rng=rng, project=texts.PROJECTS[project_index],
                                 version=version, start=start, info=info)
        builder.run(episodes)
        info.ended_at = builder.writer.clock  # each session starts after the one before
        start = builder.writer.clock + timedelta(minutes=rng.randint(20, 600))
        index += 1


def _random_plan(rng: random.Random, index: int) -> tuple[int, str, list[str]]:
    weights = {"task": 30, "error": 14, "instruction": 4, "preference": 3, "correction": 5,
               "interrupt": 3, "expressive": 5, "permission": 5, "install": 4, "subagent": 3,
               "api_error": 1, "meta": 2, "question": 6}
    count = rng.randint(12, 90)
    episodes = rng.choices(list(weights), weights=list(weights.values()), k=count)
    if count > 60:
        episodes.insert(count // 2, "compaction")
    if index % 40 == 39:
        episodes.insert(1, "huge_image")
    return rng.randrange(len(texts.PROJECTS)), rng.choice(VERSIONS), episodes


# Every behaviour at least once, the recurring errors in several sessions and projects.
DEMO_PLAN: list[tuple[int, str, list[str]]] = [
    (0, "2.1.114", ["task", "instruction:0", "violation", "error:module_not_found", "subagent",
                    "positive", "task"]),
    (1, "2.1.17", ["task", "instruction:0", "preference:0", "error:pytest_assert",
                   "correction:1", "interrupt_tool", "task"]),
    (2, "2.0.42", ["task", "error:npm_eresolve", "grant", "preference:0", "subagent",
                   "negative"]),
    (3, "2.1.114", ["task", "error:module_not_found", "instruction:1", "compaction", "task",
                    "correction:0", "big_image"]),
    (4, "1.0.98", ["summary", "task", "refuse", "error:permission_denied", "interrupt"]),
    (0, "2.1.114", ["meta", "task", "error:pg_socket", "error:pg_socket", "api_error",
                    "instruction", "preference", "question"]),
    (1, "2.0.76", ["task", "error:mypy", "correction", "positive", "install", "question"]),
    (2, "2.1.114", ["task", "error:npm_eresolve", "instruction", "grant", "subagent"]),
    (3, "2.1.17", ["task", "error:pytest_assert", "interrupt", "negative", "refuse"]),
    (0, "2.1.114", ["task", "error:file_missing", "violation", "correction:0", "task"]),
    (4, "2.0.76", ["task", "grant", "error:permission_denied", "positive"]),
    (1, "2.1.114", ["question", "install", "error:module_not_found", "instruction", "task"]),
    (0, "2.1.114", ["task", "reversal", "task"]),
    (3, "2.1.114", ["task", "reversal", "task"]),
]


class SessionBuilder:
    """One session: its main transcript, its subagent files, and the episodes in it."""

    def __init__(self, root: Path, *, rng: random.Random, project: tuple[str, str, str],
                 version: str, start: datetime, info: CorpusInfo) -> None:
        self.root, self.rng, self.info = root, rng, info
        self.cwd, self.lang, self.stack = project
        self.version = version
        self.session_id = str(_uuid(rng))
        self.dir = root / encode_cwd(self.cwd)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / f"{self.session_id}.jsonl"
        self.fh = self.path.open("wb")
        self.writer = TranscriptWriter(self.fh, rng=rng, session_id=self.session_id, cwd=self.cwd,
                                       version=version, branch=rng.choice(["main", "main", "dev"]),
                                       start=start)

    def run(self, episodes: list[str]) -> None:
        try:
            self._opening()
            for name in episodes:
                kind, _, arg = name.partition(":")
                self.episodes[kind](self, arg) if arg else self.episodes[kind](self)
        finally:
            self.fh.close()
            _last_written(self.path, self.writer.clock)
        self.info.sessions += 1
        self.info.bytes += self.writer.bytes
        self.info.files.append(self.path)

    # helpers ---------------------------------------------------------------------
    def fill(self, template: str) -> str:
        r = self.rng
        module, function = r.choice(texts.MODULES), r.choice(texts.FUNCTIONS)
        values = {
            "module": module, "function": function, "Name": module.title(),
            "NAME": module.upper(), "a": r.randint(2, 9), "b": r.randint(10, 99),
            "code": r.choice([200, 201, 204]), "line": r.randint(3, 480),
            "passed": r.randint(5, 300), "secs": f"{r.uniform(0.2, 40):.2f}",
            "port": r.choice([5432, 5433, 6543]), "minor": r.randint(0, 3),
            "patch": r.randint(0, 9), "branch": f"feature/{module}-{r.randint(1, 99)}",
            "cwd": self.cwd, "lib": r.choice(["httpx", "structlog", "pydantic"]),
        }
        return template.format_map(values)

    def say(self, bank: dict[str, list[str]], pick: str = "") -> str:
        """One phrase of the bank in the session's language: the `pick`-th, else any."""
        phrases = bank[self.lang]
        return self.fill(phrases[int(pick) % len(phrases)] if pick else self.rng.choice(phrases))

    def code(self, lines: int) -> str:
        body = [self.fill(self.rng.choice(texts.CODE_LINES)) for _ in range(lines)]
        return "\n".join(f"{i + 1:>6}\t{text}" for i, text in enumerate(body))

    def reply(self, text: str) -> None:
        self.writer.assistant([{"type": "text", "text": text}])

    def tool(self, name: str, tool_input: dict[str, Any], result: str, *,
             is_error: bool = False, extra: Any = None, think: bool = False) -> None:
        blocks: list[dict[str, Any]] = []
        if think:
            thought = self.fill(self.rng.choice(texts.THINKING))
            blocks.append({"type": "thinking", "thinking": thought,
                           "signature": self.writer.token("Eq", 40)})
        use = self.writer.tool_use(name, tool_input)
        self.writer.assistant([*blocks, use])
        self.writer.tool_result(use["id"], result, is_error=is_error, result=extra)

    def test_command(self) -> str:
        return {"python": "uv run pytest -x -q", "node": "pnpm test",
                "shell": "shellcheck scripts/*.sh"}[self.stack]

    # episodes --------------------------------------------------------------------
    def _opening(self) -> None:
        w = self.writer
        if self.version.startswith("2.1"):
            w.permission_mode(self.rng.choice(["default", "acceptEdits"]))
        if self.version >= "2.0.55":
            w.snapshot()

    def task(self) -> None:
        module = self.rng.choice(texts.MODULES)
        self.writer.prompt(self.say(texts.TASKS))
        path = f"{self.cwd}/src/{module}.py"
        self.tool("Read", {"file_path": path}, self.code(self.rng.randint(30, 400)), think=True)
        old = self.fill(self.rng.choice(texts.CODE_LINES))
        self.tool("Edit", {"file_path": path, "old_string": old, "new_string": old + "  # fixed"},
                  f"The file {path} has been updated.",
                  extra={"filePath": path, "oldString": old, "newString": old + "  # fixed"})
        self.tool("Bash", {"command": self.test_command(), "description": "Run the tests"},
                  f"{self.rng.randint(5, 300)} passed in {self.rng.uniform(0.5, 30):.2f}s")
        self.reply(self.fill(self.rng.choice(texts.ACKS[self.lang])))

    def question(self) -> None:
        self.writer.prompt(self.say(texts.TASKS).rstrip(".") + " ?")
        self.tool("Grep", {"pattern": self.rng.choice(texts.FUNCTIONS), "path": self.cwd},
                  "\n".join(f"src/{m}.py" for m in self.rng.sample(texts.MODULES, 3)))
        self.reply(self.fill("The {function} helper in src/{module}.py is only called from tests."))

    def instruction(self, pick: str = "") -> None:
        phrases = [text for text, _tool in texts.INSTRUCTIONS[self.lang]]
        self.writer.prompt(self.say({self.lang: phrases}, pick))
        self.reply(texts.ACKS[self.lang][0])

    def preference(self, pick: str = "") -> None:
        self.writer.prompt(self.say(texts.PREFERENCES, pick))
        self.reply(texts.ACKS[self.lang][2])

    def correction(self, pick: str = "") -> None:
        path = f"{self.cwd}/src/{self.rng.choice(texts.MODULES)}.py"
        self.tool("Edit", {"file_path": path, "old_string": "x", "new_string": "y"},
                  f"The file {path} has been updated.")
        self.writer.prompt(self.say(texts.CORRECTIONS, pick))
        self.tool("Edit", {"file_path": path, "old_string": "y", "new_string": "x"},
                  f"The file {path} has been updated.")
        self.reply(texts.ACKS[self.lang][1])

    def violation(self) -> None:
        """The agent reaches for pip; the operator refuses and says so."""
        command = "pip install requests"
        self.tool("Bash", {"command": command, "description": "Install requests"},
                  texts.REJECTED, is_error=True, extra="User rejected tool use")
        text = ("Non, jamais pip ici : utilise toujours uv." if self.lang == "fr"
                else "No, that's wrong: never use pip here, always use uv.")
        self.writer.prompt(text)
        self.tool("Bash", {"command": "uv add httpx", "description": "Add httpx"},
                  "Resolved 14 packages in 312ms\n + httpx==0.28.1")
        self.reply(texts.ACKS[self.lang][1])

    def error(self, kind: str = "") -> None:
        kind = kind or self.rng.choice(list(texts.ERRORS))
        message = self.fill(texts.ERRORS[kind])
        if kind == "file_missing":
            path = self.fill("{cwd}/src/{module}_old.py")
            self.tool("Read", {"file_path": path}, message, is_error=True)
        else:
            command = self.fill({
                "module_not_found": "uv run python -m src.{module}",
                "pytest_assert": "uv run pytest tests/test_{module}.py -x",
                "pg_socket": "psql -d {module}_dev -c 'select 1'",
                "npm_eresolve": "npm install",
                "mypy": "uv run mypy src",
                "permission_denied": "./scripts/deploy_{a}.sh",
            }[kind])
            self.tool("Bash", {"command": command, "description": "Run it"}, message, is_error=True)
        self.reply(self.fill("That failed; looking at src/{module}.py."))

    def interrupt(self) -> None:
        self.reply(self.fill("I'll start by rewriting the whole {module} module."))
        self.writer.interrupt()

    def interrupt_tool(self) -> None:
        use = self.writer.tool_use("Bash", {"command": "rm -rf node_modules && npm install"})
        self.writer.assistant([use])
        self.writer.tool_result(use["id"], texts.REJECTED, is_error=True,
                                result="User rejected tool use")
        self.writer.interrupt(for_tool=True)

    def permission(self, granted: bool) -> None:
        command = self.fill(self.rng.choice(texts.PERMISSION_COMMANDS))
        if granted:
            self.tool("Bash", {"command": command, "description": "Run it"}, "ok")
        else:
            self.tool("Bash", {"command": command, "description": "Run it"}, texts.REJECTED,
                      is_error=True, extra="User rejected tool use")
            self.writer.prompt("Ne lance pas ça." if self.lang == "fr" else "Don't run that.")

    def grant(self) -> None:
        self.permission(True)

    def refuse(self) -> None:
        self.permission(False)

    def random_permission(self) -> None:
        self.permission(self.rng.random() < 0.7)

    def install(self) -> None:
        command, package = self.rng.choice(texts.INSTALLS[self.stack])
        self.tool("Bash", {"command": command, "description": f"Install {package}"},
                  f"Resolved 9 packages in 201ms\n + {package}")
        path = f"{self.cwd}/src/{self.rng.choice(texts.MODULES)}.py"
        content = "\n".join([self.rng.choice(texts.IMPORTS[self.stack]), "", self.code(12)])
        self.tool("Write", {"file_path": path, "content": content},
                  f"File created successfully at: {path}")

    def subagent(self) -> None:
        w = self.writer
        prompt = self.fill("Find every caller of {function} and summarize how they use it.")
        use = w.tool_use("Task", {"description": "Find callers", "prompt": prompt,
                                  "subagent_type": "Explore"})
        w.assistant([use])
        agent_id, tokens = self._subagent_file(prompt)
        w.tool_result(use["id"], "Found 4 callers.", result={
            "status": "completed", "prompt": prompt, "agentId": agent_id,
            "content": [{"type": "text", "text": "Found 4 callers."}],
            "totalDurationMs": self.rng.randint(4000, 90000), "totalTokens": tokens,
            "totalToolUseCount": 3, "usage": {"input_tokens": 12, "output_tokens": 800},
        })

    def _subagent_file(self, prompt: str) -> tuple[str, int]:
        if self.version.startswith("2.1"):
            agent_id = "a" + f"{self.rng.getrandbits(64):016x}"
            path = self.dir / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        else:
            agent_id = f"{self.rng.getrandbits(32):08x}"
            path = self.dir / f"agent-{agent_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            sub = TranscriptWriter(fh, rng=self.rng, session_id=self.session_id, cwd=self.cwd,
                                   version=self.version, branch=self.writer.branch,
                                   start=self.writer.clock, agent_id=agent_id)
            sub.user_text(prompt)
            for _ in range(self.rng.randint(1, 4)):
                use = sub.tool_use("Grep", {"pattern": self.rng.choice(texts.FUNCTIONS)})
                sub.assistant([use])
                sub.tool_result(use["id"], "\n".join(f"src/{m}.py:{self.rng.randint(1, 300)}"
                                                     for m in self.rng.sample(texts.MODULES, 4)))
            sub.assistant([{"type": "text", "text": "Found 4 callers."}])
        _last_written(path, sub.clock)
        self.writer.clock = sub.clock
        self.info.subagent_files += 1
        self.info.bytes += sub.bytes
        self.info.files.append(path)
        return agent_id, self.rng.randint(5000, 60000)

    def expressive(self) -> None:
        self.writer.prompt(self.say(texts.EXPRESSIVE))
        self.reply(texts.ACKS[self.lang][2])

    def positive(self) -> None:
        self.writer.prompt(texts.EXPRESSIVE[self.lang][self.rng.randint(0, 1)])

    def negative(self) -> None:
        self.writer.prompt(texts.EXPRESSIVE[self.lang][self.rng.randint(2, 3)])

    def compaction(self) -> None:
        self.writer.compact(self.fill("We refactored src/{module}.py and fixed the tests. "
                                      "The operator wants uv, never pip."))

    def api_error(self) -> None:
        self.writer.api_error()

    def meta(self) -> None:
        w = self.writer
        w.meta("Caveat: The messages below were generated by the user while running local "
               "commands. DO NOT respond to these messages or otherwise consider them in your "
               "response unless the user explicitly asks you to.")
        w.user_text("<command-name>/model</command-name>\n<command-message>model</command-message>"
                    "\n<command-args></command-args>")
        w.user_text("<local-command-stdout>Set model to sonnet</local-command-stdout>")

    def summary(self) -> None:
        for _ in range(self.rng.randint(1, 3)):
            self.writer.summary(self.fill("Refactor {module} and fix {function} tests"))

    def big_image(self) -> None:
        self.writer.prompt_with_image("Here is the screenshot of the broken page.", 96 * 1024)

    def huge_image(self) -> None:
        size = self.rng.randint(300 * 1024, 1400 * 1024)
        self.writer.prompt_with_image("Voici la capture." if self.lang == "fr"
                                      else "Here is the screenshot.", size)

    def reversal(self) -> None:
        """The operator goes back on an earlier rule: a contradiction for the review queue."""
        self.writer.prompt(texts.REVERSALS[self.lang])
        self.reply(texts.ACKS[self.lang][0])

    episodes: dict[str, Callable[..., None]] = {
        "reversal": reversal, "task": task, "question": question, "instruction": instruction,
        "preference": preference, "correction": correction, "violation": violation,
        "error": error, "interrupt": interrupt, "interrupt_tool": interrupt_tool,
        "grant": grant, "refuse": refuse, "permission": random_permission, "install": install,
        "subagent": subagent, "expressive": expressive, "positive": positive,
        "negative": negative, "compaction": compaction, "api_error": api_error, "meta": meta,
        "summary": summary, "big_image": big_image, "huge_image": huge_image,
    }


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))

"""`cortex ingest claude-code [PATH] | git PATH | gh FILE`: read a source into the event log,
and (unless --raw-only) analyze and retain it as the log fills: when the command returns,
nothing it read is left pending (insight/services/first_import.py)."""

from __future__ import annotations

import io
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

import orjson
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from rich.console import Console

from insight.management.first_import import Stages, raw_read
from insight.management.progress import RichProgress, stages_table, summary_table
from insight.producers.base import Producer
from insight.producers.claude_code import ClaudeCodeProducer, default_roots
from insight.producers.claude_code_readers import READERS, ReaderStopped
from insight.producers.gh import GhProducer
from insight.producers.gh_export import NotAnExport
from insight.producers.git import GitProducer


class Command(BaseCommand):
    help = "Ingest Claude Code transcripts, a git repository's history, or a gh export."
    # The system checks import the URLconf (the API, the MCP server: ~2 s of CPU), which an
    # ingestion never uses; `cortex check` runs them.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="kind", required=True)
        claude = sub.add_parser("claude-code", help="Claude Code JSONL transcripts")
        claude.add_argument("path", nargs="?", help="default: ~/.claude/projects and "
                            "$CLAUDE_CONFIG_DIR/projects")
        git = sub.add_parser("git", help="a git repository's commits and branches")
        git.add_argument("path")
        gh = sub.add_parser("gh", help="the JSON of `gh pr list --json ...` / `gh issue list`")
        gh.add_argument("path")
        gh.add_argument("--repo", default="", help="owner/name when the export has no urls")
        for p in (claude, git, gh):
            p.add_argument("--json", action="store_true", help="print the summary as JSON")
            p.add_argument("--no-progress", action="store_true")
            p.add_argument("--raw-only", action="store_true",
                           help="only the raw log; leave analysis and retain to the workers "
                           "(cortex up) or to `cortex analyze` and `cortex retain`")

    def handle(self, *args: Any, **options: Any) -> None:
        producer = self._producer(options)
        console = Console(stderr=True)
        enabled = console.is_terminal and not options["json"] and not options["no_progress"]
        follower = None if options["raw_only"] else Stages(redis_url=settings.REDIS_URL,
                                                           source=producer.source)
        try:
            with RichProgress(console, enabled=enabled, stages=follower) as progress:
                try:
                    summary = raw_read(lambda: producer.run(progress=progress),
                                       stages=follower)
                except ReaderStopped as stopped:  # what was written stays: a re-run resumes
                    raise CommandError(str(stopped)) from None
                except NotAnExport as refused:  # checked whole before anything is stored
                    raise CommandError(str(refused)) from None
                if follower is not None:
                    progress.raw_done()
                    if follower.finish(progress.tick) != 0:
                        raise CommandError("analysis or retain stopped (see the log above); "
                                           "`cortex analyze` then `cortex retain` resume it")
        finally:
            if follower is not None:
                follower.stop()
        stages = follower.tally() if follower is not None else None
        if options["json"]:
            data = summary.as_dict() | ({"stages": stages.as_dict()} if stages else {})
            self.stdout.write(orjson.dumps(data).decode())
        else:
            buffer = io.StringIO()
            Console(file=buffer, width=80).print(summary_table(summary))
            if stages is not None:
                Console(file=buffer, width=80).print(stages_table(stages))
            self.stdout.write(buffer.getvalue().rstrip("\n"))

    def _producer(self, options: dict[str, Any]) -> Producer:
        kind = options["kind"]
        if kind == "claude-code":
            roots = [Path(options["path"]).expanduser()] if options["path"] else default_roots()
            missing = [str(r) for r in roots if not r.exists()]
            if missing or not roots:
                where = ", ".join(missing) or "~/.claude/projects"
                raise CommandError(f"no transcripts at {where}")
            # Reader processes for the raw log alone: beside the stages the cores are busy.
            return ClaudeCodeProducer(roots=roots, readers=READERS if options["raw_only"] else 1)
        path = Path(options["path"]).expanduser()
        if not path.exists():
            raise CommandError(f"{path} does not exist")
        if kind == "git":
            if not (path / ".git").exists() and not (path / "HEAD").exists():
                raise CommandError(f"{path} is not a git repository")
            return GitProducer(repo=path)
        return GhProducer(path=path, repo=options["repo"])

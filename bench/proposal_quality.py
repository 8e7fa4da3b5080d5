"""What detection proposes, read as a reviewer would: the drafts per detector and repository,
their titles, and for each the rule that let it through.

    python bench/proposal_quality.py                      # the three corpora
    python bench/proposal_quality.py --corpus spread      # one of demo, fixtures, spread
    python bench/proposal_quality.py --projects 6 --months 10 --per-month 3

Three corpora, each on a throwaway database `cortex_bench_proposals` of the embedded server:

- `demo`: the self-generated demo corpus (`cortex demo`'s sessions and git repository);
- `fixtures`: the public Claude Code transcripts of `/work/shared/fixtures/claude-code/` as
  they are (a few dozen sessions: nothing should be proposed);
- `spread`: a large history built from those transcripts, as one operator's work looks:
  each transcript copied `--per-month` times a month into each of `--projects` projects over
  `--months` months (new session and record ids, its times moved to a day of that month, its
  working directory the project's), in a temporary directory, never committed. The first
  `--targets` projects are registered target repositories (git repositories with a CLAUDE.md).

Each corpus is ingested, analyzed, retained, then detected as of an hour after its last
session; the proposals are submitted (so the budget applies: `proposed` or `waiting`).
A copy in another project or month is a session of its own, as work an operator does again
is (only one session imported twice, the same project and times, counts once).
Prints the machine, the figures, the drafts, and per repository what enters the queue.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_recreate, database_urls  # noqa: E402
from bench.machine import machine_describe  # noqa: E402

BENCH_DB = "cortex_bench_proposals"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "claude-code"
CORPORA = ("demo", "fixtures", "spread")
SPREAD_END = datetime(2026, 3, 1, tzinfo=UTC)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# The fixtures' projects, as their transcripts name them (registered as targets).
FIXTURE_PROJECTS = ("JSSoundRecorder", "claude-code-log-sample", "Demo", "ai-music")


# ---- the spread corpus: the fixture transcripts as months of one operator's work ----------

def _records(path: Path) -> Iterator[tuple[dict[str, Any] | None, bytes]]:
    for raw in path.read_bytes().splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        yield (record if isinstance(record, dict) else None), raw


def _first_time(path: Path) -> datetime | None:
    for record, _ in _records(path):
        stamp = record.get("timestamp") if record else None
        if isinstance(stamp, str):
            try:
                return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
    return None


def _first_cwd(path: Path) -> str:
    for record, _ in _records(path):
        cwd = record.get("cwd") if record else None
        if isinstance(cwd, str) and cwd:
            return cwd
    return ""


class _Copy:
    """One transcript moved to another project and day: ids, times and paths rewritten."""

    def __init__(self, *, tag: str, shift: timedelta, old_cwd: str, new_cwd: str) -> None:
        self.tag, self.shift, self.old_cwd, self.new_cwd = tag, shift, old_cwd, new_cwd

    def uuid_of(self, old: str) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.tag}:{old}"))

    def text(self, value: str) -> str:
        value = _UUID.sub(lambda m: self.uuid_of(m.group(0)), value)
        if self.old_cwd and self.old_cwd in value:
            value = value.replace(self.old_cwd, self.new_cwd)
        return value

    def value(self, key: str, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.value(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(key, v) for v in value]
        if not isinstance(value, str):
            return value
        if key == "timestamp":
            try:
                moved = datetime.fromisoformat(value.replace("Z", "+00:00")) + self.shift
            except ValueError:
                return value
            return moved.isoformat().replace("+00:00", "Z")
        return self.text(value)


def _spread_file(source: Path, target_dir: Path, copy: _Copy) -> Path:
    name = copy.text(source.name)
    relative = source.parent.name if source.parent.name == "subagents" else ""
    folder = target_dir
    if relative:  # <session>/subagents/agent-*.jsonl: its session folder moves too
        folder = target_dir / copy.text(source.parent.parent.name) / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / name
    last = None
    with out.open("wb") as fh:
        for record, raw in _records(source):
            moved = None if record is None else copy.value("", record)
            fh.write(raw if moved is None else json.dumps(moved).encode())
            fh.write(b"\n")
            if moved and isinstance(moved.get("timestamp"), str):
                last = moved["timestamp"]
    if last:  # written when its last record was, as Claude Code leaves a transcript
        when = datetime.fromisoformat(last.replace("Z", "+00:00")).timestamp()
        os.utime(out, (when, when))
    return out


def _git_repo(path: Path, *, claude_md: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "op", "GIT_AUTHOR_EMAIL": "op@example.com",
           "GIT_COMMITTER_NAME": "op", "GIT_COMMITTER_EMAIL": "op@example.com"}
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    (path / "CLAUDE.md").write_text(claude_md)
    subprocess.run(["git", "-C", str(path), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(path), "commit", "-q", "-m", "init"], check=True, env=env)


def spread_write(root: Path, repos: Path, *, projects: int, months: int, per_month: int,
                 seed: int) -> tuple[list[str], int]:
    """The spread corpus under `root`; (the project names, the bytes written)."""
    rng = random.Random(seed)
    sources = sorted(p for p in FIXTURES.rglob("*.jsonl") if p.stat().st_size)
    names = [f"project-{chr(ord('a') + i)}" for i in range(projects)]
    written = 0
    for name in names:
        cwd = str(repos / name)
        (repos / name).mkdir(parents=True, exist_ok=True)
        for month in range(months):
            for n in range(per_month):
                for source in sources:
                    started = _first_time(source)
                    if started is None:
                        continue
                    day = SPREAD_END - timedelta(days=30 * (months - month))
                    day += timedelta(days=rng.uniform(0, 29), hours=rng.uniform(0, 10))
                    copy = _Copy(tag=f"{name}:{month}:{n}", shift=day - started,
                                 old_cwd=_first_cwd(source), new_cwd=cwd)
                    folder = root / re.sub(r"[^a-zA-Z0-9]", "-", cwd)
                    written += _spread_file(source, folder, copy).stat().st_size
    return names, written


# ---- one corpus through the loop ------------------------------------------------------------

def _pipeline(roots: list[Path]) -> dict[str, float]:
    from insight.producers.base import NoProgress
    from insight.producers.claude_code import ClaudeCodeProducer
    from insight.services.analysis import analysis_drain
    from memory.services.retain import retain_drain

    times = {}
    begun = time.perf_counter()
    ClaudeCodeProducer(roots=roots).run(progress=NoProgress())
    times["ingest"] = time.perf_counter() - begun
    begun = time.perf_counter()
    analysis_drain()
    times["analysis"] = time.perf_counter() - begun
    begun = time.perf_counter()
    retain_drain(embed=False)
    times["retain"] = time.perf_counter() - begun
    return times


def _last_prompt() -> datetime:
    from django.db.models import Max

    from memory.models import MemoryEvent

    last: datetime = MemoryEvent.objects.filter(subtype="user.prompt").aggregate(
        m=Max("occurred_at"))["m"]
    return last


def _register(names: list[str], repos: Path) -> None:
    from actuation.services.repositories import repository_add

    for name in names:
        path = repos / name
        if not (path / ".git").exists():
            _git_repo(path, claude_md=f"# {name}\n\nThe operator's notes.\n")
        repository_add(name=name, path=str(path), branch="main", pr_mode="branch")


def _corpus(kind: str, tmp: Path, args: argparse.Namespace) -> tuple[str, datetime]:
    """Ingest, analyze and retain one corpus; (what it was, the time to detect at)."""
    repos = tmp / "repos"
    if kind == "demo":
        from insight.demo.ingest import demo_corpus_ingest
        from insight.services.analysis import analysis_drain
        from memory.services.retain import retain_drain

        ingest = demo_corpus_ingest(out=tmp / "demo", seed=args.seed)
        analysis_drain()
        retain_drain(embed=False)
        repo = ingest.corpus.repo
        assert repo is not None
        from actuation.services.repositories import repository_add

        repository_add(name=repo.name, path=str(repo), branch="main", pr_mode="branch")
        return f"demo corpus ({ingest.sessions.files} files)", _last_prompt()
    if kind == "fixtures":
        times = _pipeline([FIXTURES])
        _register(list(FIXTURE_PROJECTS), repos)
        size = sum(p.stat().st_size for p in FIXTURES.rglob("*.jsonl"))
        return (f"fixture transcripts ({size / 1e6:.1f} MB; "
                + ", ".join(f"{k} {v:.0f} s" for k, v in times.items()) + ")"), _last_prompt()
    root = tmp / "projects"
    names, size = spread_write(root, repos, projects=args.projects, months=args.months,
                               per_month=args.per_month, seed=args.seed)
    times = _pipeline([root])
    _register(names[:args.targets], repos)
    return (f"spread history: {size / 1e6:.0f} MB over {args.projects} projects and "
            f"{args.months} months, {args.targets} registered ("
            + ", ".join(f"{k} {v:.0f} s" for k, v in times.items()) + ")"), _last_prompt()


def _detect(now: datetime) -> None:
    from actuation.formats.diff import unified_diff
    from actuation.models import Proposal
    from actuation.services.detection import detection_run
    from actuation.services.proposals import draft_content_hash

    begun = time.perf_counter()
    report = detection_run(now=now)
    elapsed = time.perf_counter() - begun
    states = {(p.repository_id, p.pattern_key, p.content_hash): p.state
              for p in Proposal.objects.all()}
    # A draft whose change another open proposal already makes (an instruction also said as
    # a correction) has no proposal of its own.
    changes = {(p.repository_id, p.content_hash) for p in Proposal.objects.all()}
    by_place: dict[tuple[str, str], list[str]] = defaultdict(list)
    for draft in report.drafts:
        diff = unified_diff(path=draft.file_path, before=draft.before, after=draft.after)
        content = draft_content_hash(draft, diff)
        state = states.get((draft.repository.pk, draft.pattern_key, content),
                           "the same change as another proposal"
                           if (draft.repository.pk, content) in changes else "-")
        lines = [f"    [{state}] {draft.title}", f"      let through by: {draft.admitted_by}"]
        if draft.diff_type == "allowlist":
            lines.append("      + " + ", ".join(f"{i.key} ({i.evidence['sessions']})"
                                                for i in draft.items))
        else:
            lines += [f"      + {item.line}" for item in draft.items]
        if draft.diff_type == "skill":
            lines += [f"      | {line}" for line in draft.after.splitlines()[2:14]]
        by_place[(draft.detector, draft.repository.name)].append("\n".join(lines))
    print(f"  detection as of {now:%Y-%m-%d %H:%M}: {len(report.drafts)} drafts, "
          f"{dict(report.outcomes)}, in {elapsed:.1f} s")
    for (detector, repository), lines in sorted(by_place.items()):
        print(f"  {detector} / {repository}: {len(lines)}")
        for line in lines:
            print(line)
    per_repo: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    queued: dict[str, list[str]] = defaultdict(list)
    for proposal in Proposal.objects.select_related("repository").order_by("pk"):
        per_repo[proposal.repository.name][proposal.state] += 1
        if proposal.state == "proposed":
            queued[proposal.repository.name].append(proposal.title)
    for name, counts in sorted(per_repo.items()):
        print(f"  queue of {name}: {dict(counts)}")
        for title in queued[name]:
            print(f"    proposed: {title}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", choices=CORPORA, action="append")
    parser.add_argument("--projects", type=int, default=8)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--per-month", type=int, default=2)
    parser.add_argument("--targets", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path,
                        help="build the corpus here and keep it (default: a temporary "
                             "directory, removed)")
    parser.add_argument("--detect-only", action="store_true",
                        help="with --workdir and one --corpus: keep the database and the "
                             "corpus of the previous run, forget its proposals, detect again")
    args = parser.parse_args()
    print(machine_describe(), flush=True)
    if not FIXTURES.is_dir():
        sys.exit(f"{FIXTURES} is absent: the fixture and spread corpora need it")
    admin, database_url = database_urls(BENCH_DB)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    os.environ.setdefault("CORTEX_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.db import connection

    from memory.services.setup import cortex_prepare

    if args.detect_only:
        from actuation.models import Proposal

        cortex_prepare()
        Proposal.objects.all().delete()
        print(f"\n== {(args.corpus or ['?'])[0]}: the previous run's corpus", flush=True)
        _detect(_last_prompt() + timedelta(hours=1))
        return
    for kind in args.corpus or CORPORA:
        connection.close()
        database_recreate(admin, BENCH_DB)
        cortex_prepare()
        with tempfile.TemporaryDirectory(prefix="cortex-proposals-") as tmp:
            where = args.workdir / kind if args.workdir else Path(tmp)
            where.mkdir(parents=True, exist_ok=True)
            what, last = _corpus(kind, where, args)
            print(f"\n== {kind}: {what}", flush=True)
            _detect(last + timedelta(hours=1))
    if not args.workdir:
        connection.close()
        database_recreate(admin, BENCH_DB)


if __name__ == "__main__":
    main()

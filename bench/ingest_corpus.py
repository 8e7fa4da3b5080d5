"""Ingestion throughput on a generated corpus: Claude Code transcripts and a git history.

    python bench/ingest_corpus.py                       # 256 MB and 1.1 GB corpora, 50,000 commits
    python bench/ingest_corpus.py --sizes 64M --commits 5000     # a quick look

Creates a throwaway database `cortex_bench_ingest` on the embedded server (the log is
append-only: bench events must not land in the operator's), generates the corpora with
the project's own generator (insight.demo.corpus, cached under --work), and runs each
ingestion in a fresh process so its peak memory is its own. Targets on a 2-core machine:
>= 30 MB/s raw ingestion, peak memory < 400 MB and flat across corpus sizes, git >= 5,000
commits/s. Prints the figures and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402

BENCH_DB = "cortex_bench_ingest"
UNITS = {"K": 10**3, "M": 10**6, "G": 10**9}


def _size(text: str) -> int:
    text = text.strip().upper()
    return int(float(text[:-1]) * UNITS[text[-1]]) if text[-1] in UNITS else int(text)


def _database() -> tuple[str, str]:
    import psycopg

    from cortex_site import embedded

    parts = urlsplit(embedded.postgres_url())  # keeps the embedded server up while we run
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}")), admin


def _drop(admin: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


def _corpus(work: Path, size: int, seed: int) -> tuple[Path, int]:
    from insight.demo.corpus import corpus_write

    out = work / f"corpus-{size}-{seed}"
    marker = out / "DONE"
    if not marker.exists():
        started = time.monotonic()
        info = corpus_write(out, seed=seed, size_bytes=size, git=False)
        marker.write_text(str(info.bytes))
        print(f"  generated {info.bytes / 1e6:,.0f} MB ({info.sessions:,} sessions, "
              f"{info.subagent_files:,} subagent files) in {time.monotonic() - started:.0f} s",
              flush=True)
    return out / "claude" / "projects", int(marker.read_text())


def _repo(work: Path, commits: int) -> Path:
    from insight.demo.gitrepo import git_repo_write

    path = work / f"git-{commits}"
    marker = work / f"git-{commits}.DONE"
    if not marker.exists():
        started = time.monotonic()
        git_repo_write(path, seed=5, commits=commits)
        marker.write_text("ok")
        print(f"  generated a {commits:,}-commit repository in "
              f"{time.monotonic() - started:.0f} s (git fast-import)", flush=True)
    return path


def _child(kind: str, path: str) -> None:
    """Runs in its own process: one ingestion, its summary and its peak memory."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    django.setup()
    from insight.producers.base import NoProgress
    from insight.producers.claude_code import ClaudeCodeProducer
    from insight.producers.git import GitProducer

    producer: Any = (ClaudeCodeProducer(roots=[Path(path)]) if kind == "claude-code"
                     else GitProducer(repo=Path(path)))
    summary = producer.run(progress=NoProgress()).as_dict()
    summary["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(summary))


def _run_child(env: dict[str, str], kind: str, path: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--child", kind, str(path)], env=env,
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="256M,1.1G")
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--work", default="/tmp/cortex_bench_ingest")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    print(machine_describe(), flush=True)
    print("load average (1, 5, 15 min) at the start: "
          + ", ".join(f"{value:.2f}" for value in os.getloadavg()), flush=True)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    database_url, admin = _database()
    env = {**os.environ, "DATABASE_URL": database_url, "CORTEX_LOG_LEVEL": "WARNING"}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env,
                   cwd=ROOT, check=True)
    try:
        _bench(env, work, [_size(s) for s in args.sizes.split(",")], args.commits)
    finally:
        if not args.keep_db:
            _drop(admin)


def _bench(env: dict[str, str], work: Path, sizes: list[int], commits: int) -> None:
    rows = []
    for index, size in enumerate(sorted(sizes)):
        print(f"corpus of {size / 1e6:,.0f} MB:", flush=True)
        root, written = _corpus(work, size, seed=101 + index)
        result = _run_child(env, "claude-code", root)
        mb = result["bytes"] / 1e6
        rows.append((written, result))
        print(f"  ingested {result['files']:,} files, {result['lines']:,} lines, "
              f"{result['events_stored']:,} events, {mb:,.0f} MB in {result['seconds']:.1f} s: "
              f"{mb / result['seconds']:,.1f} MB/s, "
              f"{result['events_stored'] / result['seconds']:,.0f} events/s, "
              f"peak RSS {result['peak_rss_mb']:,.0f} MB; malformed {result['malformed']}",
              flush=True)
    print(f"git, {commits:,} commits:", flush=True)
    repo = _repo(work, commits)
    git = _run_child(env, "git", repo)
    print(f"  ingested {git['records']:,} commits ({git['events_stored']:,} events) in "
          f"{git['seconds']:.1f} s: {git['records'] / git['seconds']:,.0f} commits/s, "
          f"peak RSS {git['peak_rss_mb']:,.0f} MB", flush=True)
    _verdict(rows, git)


def _verdict(rows: list[tuple[int, dict[str, Any]]], git: dict[str, Any]) -> None:
    largest = rows[-1][1]
    rate = largest["bytes"] / 1e6 / largest["seconds"]
    peaks = [r["peak_rss_mb"] for _, r in rows]
    commits_rate = git["records"] / git["seconds"]
    print("targets:")
    print(f"  corpus >= 1 GB: {rows[-1][0] / 1e9:.2f} GB "
          f"[{'ok' if rows[-1][0] >= 1e9 else 'MISSED'}]")
    print(f"  raw ingestion >= 30 MB/s: {rate:.1f} MB/s [{'ok' if rate >= 30 else 'MISSED'}]")
    print(f"  peak memory < 400 MB: {max(peaks):.0f} MB "
          f"[{'ok' if max(peaks) < 400 else 'MISSED'}]; across sizes: "
          + ", ".join(f"{w / 1e6:,.0f} MB -> {r['peak_rss_mb']:.0f} MB" for w, r in rows))
    print(f"  git >= 5,000 commits/s: {commits_rate:,.0f} "
          f"[{'ok' if commits_rate >= 5000 else 'MISSED'}]")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average (1, 5, 15 min) at the end: {load}; other work on the machine skews it")


if __name__ == "__main__":
    main()

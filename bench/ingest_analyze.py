"""Ingestion + analysis throughput: the generated corpus through `cortex ingest claude-code`
and every analyzer (what `cortex analyze` and the Celery chain do), end to end.

    python bench/ingest_analyze.py                          # a 1.1 GB corpus, 20,000 commits
    python bench/ingest_analyze.py --sizes 64M --commits 2000   # a quick look

Two ways, each on a fresh database:
- sequential: ingest everything, then analyze everything (`cortex ingest` then
  `cortex analyze`); the figure is bytes / (ingest time + analysis time);
- pipelined: the analysis runs beside the ingestion in its own process, as a Celery worker
  does while `cortex ingest` runs; the figure is bytes / (time until the last event is
  analyzed).

Creates a throwaway database `cortex_bench_analyze` on the embedded server (the log is
append-only: bench events must not land in the operator's), generates the corpus with the
project's own generator (insight.demo.corpus; cached under --work), and runs each size
in fresh processes and a fresh database, so that its peak memory is its own. Target on
a 2-core machine: ingestion + analysis >= 10 MB/s. Prints the figures and the machine.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_drop, database_recreate, database_urls  # noqa: E402
from bench.machine import machine_describe  # noqa: E402

BENCH_DB = "cortex_bench_analyze"
UNITS = {"K": 10**3, "M": 10**6, "G": 10**9}


def _size(text: str) -> int:
    text = text.strip().upper()
    return int(float(text[:-1]) * UNITS[text[-1]]) if text[-1] in UNITS else int(text)


def _corpus(work: Path, size: int, seed: int) -> Path:
    """The generated sessions of about `size` bytes (cached: same seed, same bytes)."""
    from insight.demo.corpus import corpus_write

    out = work / f"corpus-{size}-{seed}"
    if not (out / "DONE").exists():
        started = time.monotonic()
        info = corpus_write(out, seed=seed, size_bytes=size, git=False)
        (out / "DONE").write_text(str(info.bytes))
        print(f"  generated {info.bytes / 1e6:,.0f} MB ({info.sessions:,} sessions) in "
              f"{time.monotonic() - started:.0f} s", flush=True)
    return out / "claude" / "projects"


def _repo(work: Path, commits: int) -> Path:
    from insight.demo.gitrepo import git_repo_write

    path = work / f"git-{commits}"
    if not (work / f"git-{commits}.DONE").exists():
        git_repo_write(path, seed=5, commits=commits)
        (work / f"git-{commits}.DONE").write_text("ok")
    return path


def _admin_url() -> tuple[str, str]:
    return database_urls(BENCH_DB)  # starts (and keeps up) the embedded server


def _recreate(admin: str, *, drop_only: bool = False) -> None:
    if drop_only:
        database_drop(admin, BENCH_DB)
    else:
        database_recreate(admin, BENCH_DB)


def _analyze_all(source: str) -> dict[str, Any]:
    from insight.services.analysis import analysis_batch_run

    started, events, created = time.monotonic(), 0, 0
    while True:
        report = analysis_batch_run(source=source)
        events += report.events
        created += sum(report.created.values())
        if not report.more:
            break
    return {"seconds": time.monotonic() - started, "events": events, "observations": created}


def _setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    django.setup()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _ingest(kind: str, path: str) -> dict[str, Any]:
    from insight.producers.base import NoProgress
    from insight.producers.claude_code import ClaudeCodeProducer
    from insight.producers.git import GitProducer

    producer: Any = (ClaudeCodeProducer(roots=[Path(path)]) if kind == "claude-code"
                     else GitProducer(repo=Path(path)))
    started = time.time()
    summary = dict(producer.run(progress=NoProgress()).as_dict())
    return summary | {"started": started, "ended": time.time()}


def _categories() -> dict[str, int]:
    from django.db.models import Count

    from memory.models.observations import Observation

    rows = Observation.objects.values("category").annotate(n=Count("id"))
    return {row["category"]: row["n"] for row in rows}


def _child(mode: str, kind: str, path: str, done_flag: str) -> None:
    """Runs in its own process. `sequential`: ingest, then analyze. `ingest`: ingest only,
    then raise the flag. `analyze`: analyze as events arrive until the flag is up and
    nothing is left (a worker beside the ingestion)."""
    _setup()
    out: dict[str, Any] = {}
    if mode in {"sequential", "ingest"}:
        out["ingest"] = _ingest(kind, path)
        Path(done_flag).touch()
    if mode in {"sequential", "analyze"}:
        out["analysis"] = _analyze_until_done(kind, Path(done_flag))
        out["categories"] = _categories()
    print(json.dumps(out | {"peak_rss_mb": _peak_mb()}))


def _analyze_until_done(source: str, done_flag: Path) -> dict[str, Any]:
    started, events, created = time.time(), 0, 0
    while True:
        finished = done_flag.exists()  # read before the batch: no event can follow it
        report = _analyze_all(source)
        events += report["events"]
        created += report["observations"]
        if finished:
            break
        if not report["events"]:
            time.sleep(0.05)
    return {"seconds": time.time() - started, "events": events, "observations": created,
            "started": started, "ended": time.time()}


def _spawn(env: dict[str, str], mode: str, kind: str, path: Path,
           flag: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, __file__, "--child", mode, kind, str(path),
                             str(flag)], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _result(process: subprocess.Popen[str]) -> dict[str, Any]:
    stdout, stderr = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(stderr[-3000:])
    return dict(json.loads(stdout.strip().splitlines()[-1]))


def _run(admin: str, env: dict[str, str], kind: str, path: Path, *,
         pipelined: bool) -> dict[str, Any]:
    _recreate(admin)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env,
                   cwd=ROOT, check=True)
    flag = Path(f"/tmp/{BENCH_DB}.ingested")
    flag.unlink(missing_ok=True)
    if not pipelined:
        return _result(_spawn(env, "sequential", kind, path, flag))
    worker = _spawn(env, "analyze", kind, path, flag)
    ingest = _result(_spawn(env, "ingest", kind, path, flag))
    analysis = _result(worker)
    return analysis | {"ingest": ingest["ingest"],
                       "peak_rss_mb": max(ingest["peak_rss_mb"], analysis["peak_rss_mb"])}


def _report(label: str, size_mb: float, result: dict[str, Any], *, pipelined: bool) -> float:
    ingest, analysis = result["ingest"], result["analysis"]
    if pipelined:
        total = analysis["ended"] - ingest["started"]
        print(f"  pipelined: ingestion done in {ingest['seconds']:.1f} s, the last event "
              f"analyzed {total:.1f} s after the start: {size_mb / total:,.1f} MB/s; "
              f"{analysis['observations']:,} observations; peak RSS "
              f"{result['peak_rss_mb']:,.0f} MB", flush=True)
        return size_mb / total
    total = ingest["seconds"] + analysis["seconds"]
    print(f"  {label}: ingested {ingest['events_stored']:,} events in {ingest['seconds']:.1f} s "
          f"({size_mb / ingest['seconds']:,.1f} MB/s); analyzed {analysis['events']:,} events "
          f"into {analysis['observations']:,} observations in {analysis['seconds']:.1f} s "
          f"({analysis['events'] / max(analysis['seconds'], 1e-9):,.0f} events/s, "
          f"{size_mb / max(analysis['seconds'], 1e-9):,.1f} MB/s)", flush=True)
    print(f"  sequential ingestion + analysis: {size_mb:,.0f} MB in {total:.1f} s = "
          f"{size_mb / total:,.1f} MB/s; peak RSS {result['peak_rss_mb']:,.0f} MB", flush=True)
    print(f"  observations by category: {json.dumps(result['categories'], sort_keys=True)}",
          flush=True)
    return size_mb / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1.1G")
    parser.add_argument("--commits", type=int, default=20_000)
    parser.add_argument("--work", default="/tmp/cortex_bench_analyze")
    parser.add_argument("--modes", default="sequential,pipelined")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    print(machine_describe(), flush=True)
    print("load average (1, 5, 15 min) at the start: "
          + ", ".join(f"{value:.2f}" for value in os.getloadavg()), flush=True)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    admin, database_url = _admin_url()
    env = {**os.environ, "DATABASE_URL": database_url, "CORTEX_LOG_LEVEL": "WARNING"}
    rates: dict[str, list[float]] = {}
    modes = args.modes.split(",")
    try:
        for index, size in enumerate(sorted(_size(s) for s in args.sizes.split(","))):
            print(f"corpus of {size / 1e6:,.0f} MB:", flush=True)
            root = _corpus(work, size, seed=101 + index)
            for mode in modes:
                pipelined = mode == "pipelined"
                result = _run(admin, env, "claude-code", root, pipelined=pipelined)
                rate = _report("claude-code", result["ingest"]["bytes"] / 1e6, result,
                               pipelined=pipelined)
                rates.setdefault(mode, []).append(rate)
        if args.commits:
            print(f"git, {args.commits:,} commits:", flush=True)
            git = _run(admin, env, "git", _repo(work, args.commits), pipelined=False)
            seconds = git["ingest"]["seconds"] + git["analysis"]["seconds"]
            print(f"  ingested + analyzed {git['ingest']['records']:,} commits into "
                  f"{git['analysis']['observations']:,} observations in {seconds:.1f} s: "
                  f"{git['ingest']['records'] / seconds:,.0f} commits/s "
                  f"(analysis alone {git['analysis']['events'] / git['analysis']['seconds']:,.0f}"
                  f" events/s)", flush=True)
    finally:
        _recreate(admin, drop_only=True)
    print("target: ingestion + analysis >= 10 MB/s")
    for mode, figures in rates.items():
        print(f"  {mode}: {min(figures):.1f} MB/s [{'ok' if min(figures) >= 10 else 'MISSED'}]")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average (1, 5, 15 min) at the end: {load}; other work on the machine skews it")


if __name__ == "__main__":
    main()

"""The detectors over a large graph (target: under 30 s for 100,000 entities).

    python bench/actuation.py                   # 100,000 entities
    python bench/actuation.py --entities 10000  # a quick look

On a throwaway database `cortex_bench_actuation` of the embedded server: `--entities`
entities over the namespaces the detectors read (root causes, permission rules,
instructions, failure modes, relationships, tools), three observations mentioning each
(tool errors, grants, instructions, corrections, interactions), spread over `--sessions`
sessions of twenty projects, one of which is a registered target repository (a git
repository in a temporary directory); plus the raw tool uses of that project's sessions.
Then every detector, timed on its own, and one whole detection (drafts submitted as
proposals). Prints the figures and the machine.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.databases import database_recreate, database_urls  # noqa: E402
from bench.machine import machine_describe  # noqa: E402

BENCH_DB = "cortex_bench_actuation"
NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
PROJECTS = [f"project-{i}" for i in range(19)] + ["shop"]
SHARES = {  # namespace -> (share of the graph, observation category)
    "agent:claude-code:rc": (0.35, "tool_error"),
    "agent:claude-code:skill": (0.15, "permission_request"),
    "agent:claude-code:instruction": (0.15, "instruction"),
    "agent:claude-code:failure-mode": (0.05, "correction"),
    "agent:claude-code:relationship": (0.05, "interaction"),
    "world:artifact": (0.25, ""),
}
MENTIONS = 3
RECURRING = 0.01  # the share of entities whose mentions all fall in the target's sessions
STEPS = [("Read", ""), ("Edit", ""), ("Bash", "pytest -q"), ("Bash", "git add -A"),
         ("Bash", "git commit -m x"), ("Grep", ""), ("Bash", "ruff check .")]






def _payload(category: str, i: int, rng: random.Random) -> dict[str, Any]:
    if category == "tool_error":
        return {"tool": "Bash", "signature": f"{i:016x}", "normalized": f"error {i}",
                "message": f"error {i}"}
    if category == "permission_request":
        return {"tool": "Bash", "pattern": f"Bash(tool{i} check:*)", "decision": "granted"}
    if category == "instruction":
        return {"claim": f"use library{i}", "subject": f"library{i}", "polarity": "positive",
                "text": f"Always use library{i}."}
    if category == "correction":
        return {"kind": "rejection", "text": f"use tool{i % 50} instead"}
    return {"act": rng.choice(["directive", "directive", "expressive", "assertive"]),
            "speaker": "operator", "counterpart": "claude-code"}


def _session_events(sessions: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """One raw event per session: (event id, session, project)."""
    from memory.models import MemoryEvent

    rows, out = [], []
    for s in range(sessions):
        project = PROJECTS[s % len(PROJECTS)]
        session = f"session-{s:05d}"
        at = NOW - timedelta(days=rng.uniform(0.5, 50))
        event = MemoryEvent(source="bench", source_id=session, occurred_at=at, type="bench",
                            subtype="user.tool_result", project=project,
                            correlation_session=session, payload={"cwd": f"/w/{project}"})
        rows.append(event)
        out.append((event.id, session, project))
    MemoryEvent.objects.bulk_create(rows, batch_size=5000)
    return out


def _tool_uses(sessions: list[tuple[str, str, str]], rng: random.Random) -> int:
    from memory.models import MemoryEvent

    rows = []
    for _, session, project in sessions:
        if project != "shop":
            continue
        start = NOW - timedelta(days=rng.uniform(0.5, 50))
        for j in range(10):
            tool, command = STEPS[(j + rng.randint(0, 1)) % len(STEPS)]
            block = {"type": "tool_use", "id": f"t{j}", "name": tool,
                     "input": {"command": command} if command else {}}
            rows.append(MemoryEvent(
                source="bench", source_id=f"{session}:use:{j}",
                occurred_at=start + timedelta(minutes=j), type="bench",
                subtype="assistant.tool_use", project=project, correlation_session=session,
                payload={"message": {"content": [block]}}))
    MemoryEvent.objects.bulk_create(rows, batch_size=5000)
    return len(rows)


def _graph(entities: int, sessions: int, rng: random.Random) -> tuple[int, int]:
    from memory.models import Entity, EntityMention, Observation
    from memory.services.taxonomy import namespace_resolve, taxonomy_sync

    taxonomy_sync()
    places = _session_events(sessions, rng)
    observations = 0
    for path, (share, category) in SHARES.items():
        namespace = namespace_resolve(path=path)
        made = Entity.objects.bulk_create([Entity(
            namespace=namespace, slug=f"e{i}", key=f"{path}:e{i}",
            display_name="operator" if category == "interaction" else f"entity {i}",
            memory_type=namespace.memory_type, referent=namespace.referent,
            base=namespace.base_strength, half_life_days=namespace.half_life_days,
            valence=namespace.valence, retrieval_count=rng.randint(0, 10),
            last_reinforced_at=NOW - timedelta(days=rng.uniform(0, 20)), strength=0.5,
            strength_evaluated_at=NOW - timedelta(days=20))
            for i in range(max(1, int(entities * share)))], batch_size=5000)
        if path == "world:artifact":
            for tool, entity in zip(("Read", "Edit", "Bash", "Grep"), made, strict=False):
                entity.display_name = tool
                entity.save(update_fields=["display_name"])
        if not category:
            continue
        obs, mentions = [], []
        target = [p for p in places if p[2] == "shop"]
        for n, entity in enumerate(made):
            recurring = n < len(made) * RECURRING
            for k in range(MENTIONS):
                eid, session, _project = (target[(n + k) % len(target)] if recurring
                                          else rng.choice(places))
                o = Observation(dedup_key=f"{path}:{entity.pk}:{len(obs)}", source="bench",
                                timestamp=NOW - timedelta(days=rng.uniform(0.5, 50)),
                                category=category, target_namespace=path,
                                payload_typed=_payload(category, entity.pk, rng),
                                correlation_session=session, event_ids=[eid],
                                status="retained")
                obs.append(o)
                mentions.append(EntityMention(entity=entity, observation=o, role="principal",
                                              at=o.timestamp))
        Observation.objects.bulk_create(obs, batch_size=5000)
        EntityMention.objects.bulk_create(mentions, batch_size=5000)
        observations += len(obs)
    return observations, _tool_uses(places, rng)


def _repository(tmp: Path) -> None:
    from actuation.services.repositories import repository_add

    clone = tmp / "shop"
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(clone)], check=True)
    (clone / "CLAUDE.md").write_text("# shop\n")
    subprocess.run(["git", "-C", str(clone), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(clone), "commit", "-q", "-m", "init"], check=True, env=env)
    repository_add(name="shop", path=str(clone), branch="main", pr_mode="branch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=4_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", help="write a cProfile of the whole detection here")
    args = parser.parse_args()
    print(machine_describe(), flush=True)
    admin, database_url = database_urls(BENCH_DB)
    database_recreate(admin, BENCH_DB)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    os.environ.setdefault("CORTEX_LOG_LEVEL", "WARNING")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from django.db import connection

    from actuation.detectors.base import detectors
    from actuation.selectors.graph import Graph
    from actuation.services.detection import detection_run
    from memory.config import config_get

    rng = random.Random(args.seed)
    started = time.perf_counter()
    observations, uses = _graph(args.entities, args.sessions, rng)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"graph: {args.entities:,} entities, {observations:,} observations and mentions, "
          f"{args.sessions:,} sessions over {len(PROJECTS)} projects, {uses:,} tool uses; "
          f"built in {time.perf_counter() - started:.0f} s", flush=True)
    config = config_get()
    with tempfile.TemporaryDirectory() as tmp:
        _repository(Path(tmp))
        for detector in detectors():
            begun = time.perf_counter()
            drafts = detector.detect(Graph(now=NOW, config=config), NOW, config)
            print(f"  {detector.name:<18} {len(drafts):>5} drafts  "
                  f"{time.perf_counter() - begun:6.2f} s", flush=True)
        begun = time.perf_counter()
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            report = profiler.runcall(detection_run, now=NOW, config=config)
            profiler.dump_stats(args.profile)
        else:
            report = detection_run(now=NOW, config=config)
        elapsed = time.perf_counter() - begun
    print(f"whole detection: {len(report.drafts)} drafts, {len(report.proposals)} proposals "
          f"created, in {elapsed:.2f} s (target < 30 s)")
    database_recreate(admin, BENCH_DB)


if __name__ == "__main__":
    main()

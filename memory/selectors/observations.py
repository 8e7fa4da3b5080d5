"""Reads of Observations: the interaction profile (docs/recall.md), what is hot in a
repository, and an observation's evidence."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from memory.models.events import MemoryEvent
from memory.models.observations import Observation
from memory.observation_schemas import ACTS


@dataclass(frozen=True)
class InteractionProfile:
    counterpart: str
    speaker: str | None
    total: int
    acts: dict[str, int]
    shares: dict[str, float]
    dominant: str | None
    sentiments: dict[str, int]


# An interaction observation is a tally of a pair's messages in a session (`messages` a
# number; `act_counts` and `sentiments` count them), or one message (its `act`, its row's
# sentiment: what an agent posts, and observations recorded before the tallies).
_PROFILE = """
WITH i AS (
    SELECT payload_typed AS p, sentiment,
           jsonb_typeof(payload_typed->'messages') = 'number' AS tally
    FROM memory_observation
    WHERE category = 'interaction' AND payload_typed->>'counterpart' = %(counterpart)s
      AND (%(speaker)s::text IS NULL OR payload_typed->>'speaker' = %(speaker)s)
)
SELECT 'act', p->>'act', count(*) FROM i WHERE tally IS NOT TRUE GROUP BY 2
UNION ALL
SELECT 'sentiment', sentiment, count(*) FROM i WHERE tally IS NOT TRUE GROUP BY 2
UNION ALL
SELECT kind, c.key, sum((c.value)::numeric)
FROM i CROSS JOIN LATERAL (VALUES ('act', p->'act_counts'), ('sentiment', p->'sentiments'))
     AS t(kind, counts)
CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(counts) = 'object' THEN counts
                                   ELSE '{}'::jsonb END) AS c
WHERE tally AND jsonb_typeof(c.value) = 'number'
GROUP BY 1, 2
"""


def interaction_profile(*, counterpart: str, speaker: str | None = None) -> InteractionProfile:
    """How the messages addressed to `counterpart` (from `speaker`, or anyone) distribute over
    the five illocutionary acts: "mostly directive with agent X, expressive with person Y"."""
    by_act: Counter[str] = Counter()
    sentiments: Counter[str] = Counter()
    with connection.cursor() as cursor:
        cursor.execute(_PROFILE, {"counterpart": counterpart, "speaker": speaker})
        for kind, name, n in cursor.fetchall():
            (by_act if kind == "act" else sentiments)[str(name)] += int(n)
    acts = {act: by_act.get(act, 0) for act in ACTS}
    total = sum(acts.values())
    return InteractionProfile(
        counterpart=counterpart, speaker=speaker, total=total, acts=acts,
        shares={act: round(n / total, 4) if total else 0.0 for act, n in acts.items()},
        dominant=max(ACTS, key=lambda act: acts[act]) if total else None,
        sentiments={name: n for name, n in sentiments.items() if n},
    )


@dataclass(frozen=True)
class HotFile:
    path: str
    commits: int
    added: int
    removed: int
    last: datetime


_HOT_FILES = """
SELECT f.value->>'path' AS path, count(*) AS commits,
       coalesce(sum((f.value->>'added')::bigint), 0) AS added,
       coalesce(sum((f.value->>'removed')::bigint), 0) AS removed,
       max(o.timestamp) AS last
FROM memory_observation AS o,
     jsonb_array_elements(o.payload_typed->'files') AS f(value)
WHERE o.category = 'commit' AND o.payload_typed->>'repo' = %s
  AND o.timestamp >= %s AND o.timestamp < %s
  AND jsonb_typeof(o.payload_typed->'files') = 'array'
GROUP BY 1 ORDER BY commits DESC, path LIMIT %s
"""


def commit_hot_files(*, repo: str, since: datetime, until: datetime,
                     limit: int = 20) -> list[HotFile]:
    """The files of `repo` changed by the most commits in [since, until)."""
    with connection.cursor() as cursor:
        cursor.execute(_HOT_FILES, [repo, since, until, limit])
        return [HotFile(path, int(n), int(a), int(r), last)
                for path, n, a, r, last in cursor.fetchall()]


def observation_evidence(*, observation: Observation) -> list[MemoryEvent]:
    """The raw events an observation was derived from, oldest first."""
    return list(MemoryEvent.objects.filter(id__in=observation.event_ids)
                .order_by("occurred_at", "id"))


_RETAIN_WAITING = """
SELECT EXISTS (SELECT 1 FROM memory_observation WHERE status = 'pending')
    OR EXISTS (SELECT 1 FROM memory_retainattempt)
"""


def retain_waiting() -> bool:
    """Whether the Retain Job has anything to do: a pending observation, or the attempt row
    of a chunk a worker left behind (it died trying it). One statement on the pending rows'
    partial index, no lock: what an unchanged re-run asks before taking the retain lock."""
    with connection.cursor() as cursor:
        cursor.execute(_RETAIN_WAITING)
        row = cursor.fetchone()
    return bool(row and row[0])

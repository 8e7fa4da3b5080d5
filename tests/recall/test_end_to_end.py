"""The read path end to end: an operator says "never use leftpad" in a Claude Code session;
a later session's context holds the instruction; with no further mention and time past the
threshold it drops out; a new mention brings it back."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from insight.services.analysis import analysis_drain
from memory.config import config_get
from memory.models import Entity, Fact
from memory.services.context import context_assemble
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync
from tests.insight.producers.helpers import ingest, record, write

pytestmark = pytest.mark.django_db

SAID_AT = datetime(2026, 4, 1, 10, 0, tzinfo=UTC)


def _session(root: Path, session: str, day: datetime, text: str) -> None:
    stamp = day.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    write(root / "-home-op-code-shop-api" / f"{session}.jsonl",
          record(f"{session[-12:]}-u1", text=text, sessionId=session, timestamp=stamp),
          record(f"{session[-12:]}-a1", kind="assistant", text="Understood.", sessionId=session,
                 timestamp=stamp))
    ingest("claude-code", str(root))
    analysis_drain()
    retain_drain(embed=False)


def _injected(query: str, now: datetime) -> str:
    result = context_assemble(query=query, agent="claude-code", project="shop-api",
                              budget_tokens=3000, now=now)
    return result.context


def test_a_spoken_rule_is_given_back_fades_and_returns(tmp_path: Path) -> None:
    taxonomy_sync()
    root = tmp_path / "projects"
    _session(root, "aaaaaaaa-0000-4000-8000-000000000001", SAID_AT,
             "Never use leftpad in this project, write the padding yourself.")
    fact = Fact.objects.get(claim__icontains="leftpad")
    rule: Entity = fact.entity
    assert fact.polarity == -1

    later = SAID_AT + timedelta(days=2)
    context = _injected("how should I pad these strings? maybe leftpad", later)
    assert rule.key in context and "leftpad" in context

    # No further mention: strength falls below the injection threshold, by the config.
    rule.refresh_from_db()
    config = config_get()
    threshold = config.thresholds.entity_strength
    amplitude = rule.base * config.emotional(rule.valence) * (
        1 + config.entity.retrieval_weight * math.log2(rule.retrieval_count + 1))
    half_life = rule.half_life_days * config.route_factor(rule.route)
    days_to_fade = half_life * math.log2(amplitude / threshold) + 1
    faded_at = rule.last_reinforced_at + timedelta(days=days_to_fade)
    assert rule.key not in _injected("how should I pad these strings? maybe leftpad", faded_at)

    # A new mention (the operator says it again) brings it back.
    _session(root, "aaaaaaaa-0000-4000-8000-000000000002", faded_at,
             "I said it before: never use leftpad in this project.")
    assert rule.key in _injected("how should I pad these strings? maybe leftpad",
                                 faded_at + timedelta(hours=1))


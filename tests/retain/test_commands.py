"""`cortex retain` and `cortex rebuild graph`."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command

from memory.models import Entity, Observation
from memory.observation_schemas import PayloadField, observation_schema_register
from memory.retain.extraction import Extraction, ObservationView
from memory.retain.registry import handler_register, handler_unregister
from memory.selectors.graph import graph_digest, graph_summary
from tests.retain.factories import T0, commit, obs, submit

pytestmark = pytest.mark.usefixtures("synced")


def run(*args: str, **options: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


def test_cortex_retain_reports_the_routes() -> None:
    submit(*[commit("Alice Martin", "cortex", "feat", at=T0 + timedelta(hours=i))
             for i in range(3)])
    out = run("retain", "--no-embed")
    assert "retained 3 observation(s): retained 3" in out
    assert "dark_matter 0, normal" in out and "entities 2" in out


def test_retry_gives_unhandled_observations_a_new_chance() -> None:
    observation_schema_register("probe2", {"text": PayloadField(str, required=False)})
    (observation,) = submit(obs("probe2", "world:concept", payload={"text": "x"}))
    run("retain", "--no-embed")
    assert Observation.objects.get(pk=observation).status == "unhandled"

    def handle(view: ObservationView) -> Extraction:
        return Extraction()

    handler_register("probe2", "world:concept")(handle)
    try:
        out = run("retain", "--no-embed", "--retry")
    finally:
        handler_unregister("probe2", "world:concept")
    assert "retrying 1 observation(s)" in out
    # Handled now (an empty extraction about nothing known: dark matter).
    assert Observation.objects.get(pk=observation).status == "quarantined"


def test_rebuild_graph_digest_and_replay() -> None:
    submit(*[commit("Alice Martin", "cortex", f"feat {i}", at=T0 + timedelta(hours=i))
             for i in range(3)])
    run("retain", "--no-embed")
    digest = run("rebuild", "graph", "--digest").strip()
    assert digest == graph_digest() and len(digest) == 64
    out = run("rebuild", "graph", "--yes")
    # Posted directly (not derived from the log): kept, and retained again the same way.
    assert "3 posted directly kept" in out and f"digest {digest}" in out
    assert Entity.objects.count() == 2 and graph_summary().routes["normal"] >= 1

"""A rebuild clears what other apps derived from the graph with it and ties it back to the
rebuilt graph: a proposal keeps its grounding entities (by key) across `rebuild graph`."""

from __future__ import annotations

import pytest

from actuation.models import Proposal, TargetRepository
from memory.models import Entity
from memory.services.rebuild import graph_rebuild
from memory.services.retain import retain_drain
from memory.services.taxonomy import taxonomy_sync
from tests.retain.factories import instruction, submit

pytestmark = pytest.mark.django_db


def test_a_proposal_keeps_its_entities_across_a_rebuild() -> None:
    taxonomy_sync()
    submit(instruction("use pnpm"))
    retain_drain(embed=False)
    rule = Entity.objects.get(key__endswith=":use-pnpm")
    repository = TargetRepository.objects.create(name="shop", path="/tmp/shop")
    proposal = Proposal.objects.create(
        diff_type="claude_md", detector="instructions", repository=repository,
        file_path="CLAUDE.md", pattern_key="use-pnpm", short_name="use-pnpm", title="t",
        rationale="r", diff="d", diff_sha256="0" * 64, content_hash="1" * 64,
        evidence={"entities": [{"key": rule.key}]})
    proposal.entities.set([rule.pk])
    graph_rebuild()
    rebuilt = Entity.objects.get(key=rule.key)
    assert list(proposal.entities.values_list("key", flat=True)) == [rule.key]
    assert list(proposal.entities.values_list("pk", flat=True)) == [rebuilt.pk]

"""The dark-matter queue: accept into the graph as normal, keep quarantined, merge into an
existing entity. Each action calls a service; the observation's effects follow."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.models import Entity, Observation, PairFamiliarity, ReviewItem, Route
from memory.services.review import ReviewRefused, review_accept, review_keep, review_merge
from tests.retain.conftest import retain
from tests.retain.factories import OPERATOR, T0, fact, submit

pytestmark = pytest.mark.usefixtures("synced")


def _dark(subject: str = "Zorblax", text: str = "Zorblax glows in the dark",
          target: str = "world:concept") -> ReviewItem:
    (observation,) = submit(fact(subject, text, target=target, at=T0))
    retain()
    return ReviewItem.objects.get(observation_id=observation)


def test_accepting_dark_matter_applies_it_as_normal() -> None:
    item = _dark()
    review_accept(item_id=item.pk, by="op")
    entity = Entity.objects.get(key="world:concept:zorblax")
    assert (entity.status, entity.route) == ("active", Route.NORMAL)
    assert entity.retrieval_count == 0  # its creation, not a recall
    assert entity.facts.get().status == "active"
    assert Observation.objects.get(pk=item.observation_id).status == "retained"
    assert PairFamiliarity.objects.get(category="fact", namespace="world:concept").retained == 1
    item.refresh_from_db()
    assert item.status == "accepted" and item.resolved_by == "op"
    with pytest.raises(ReviewRefused):
        review_accept(item_id=item.pk)


def test_keeping_it_quarantined_changes_nothing_else() -> None:
    item = _dark()
    review_keep(item_id=item.pk, by="op")
    item.refresh_from_db()
    assert item.status == "kept_quarantined"
    assert Entity.objects.get(key="world:concept:zorblax").status == "quarantined"


def test_merging_dark_matter_into_an_existing_entity() -> None:
    submit(fact("Zorb Lamp", "Zorb Lamp is a product", target="world:artifact",
                actors=({**OPERATOR, "role": "source"},), at=T0 - timedelta(days=1)))
    retain()
    known = Entity.objects.get(key="world:artifact:zorb-lamp")
    item = _dark()
    review_merge(item_id=item.pk, into_key=known.key, by="op")
    dark = Entity.objects.get(key="world:concept:zorblax")
    known.refresh_from_db()
    assert (dark.status, dark.merged_into_id) == ("merged", known.pk)
    assert "Zorblax" in known.aliases
    assert sorted(known.facts.values_list("status", flat=True)) == ["active", "active"]
    item.refresh_from_db()
    assert item.status == "merged" and item.merged_into == known
    with pytest.raises(ReviewRefused):
        review_merge(item_id=_dark("Quux", "Quux sings", "world:place").pk,
                     into_key="world:concept:nope")

"""Conflicts: an opposite claim whose lemmas overlap a held one creates one Conflict, in
English and in French; the newer claim is contested until the operator resolves it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.models import Conflict, Entity, Fact
from memory.services.review import ReviewRefused, conflict_resolve
from tests.retain.conftest import retain
from tests.retain.factories import OPERATOR, T0, fact, instruction, submit

pytestmark = pytest.mark.usefixtures("synced")
SOURCE = {**OPERATOR, "role": "source"}


def _statuses(entity: Entity) -> dict[int, str]:
    return dict(Fact.objects.filter(entity=entity).values_list("polarity", "status"))


def test_a_french_contradiction_of_an_english_instruction_is_one_conflict() -> None:
    submit(instruction("use uv", text="Always use uv.", at=T0),
           instruction("use uv", "negative", text="N'utilise jamais uv.", language="fr",
                       at=T0 + timedelta(days=1)))
    retain()
    rule = Entity.objects.get(key="agent:claude-code:instruction:use-uv")
    conflict = Conflict.objects.get()
    assert conflict.entity == rule and conflict.jaccard == 1.0
    assert (conflict.existing.polarity, conflict.new.polarity) == (1, -1)
    assert conflict.status == "open" and conflict.created_at == T0 + timedelta(days=1)
    assert _statuses(rule) == {1: "active", -1: "contested"}


def test_x_is_reliable_against_x_nest_pas_fiable() -> None:
    submit(fact("Postgres", "Postgres is reliable", actors=(SOURCE,), at=T0),
           fact("Postgres", "Postgres n'est pas fiable", actors=(SOURCE,),
                at=T0 + timedelta(hours=2)))
    retain()
    postgres = Entity.objects.get(key="world:artifact:postgres")
    assert Conflict.objects.filter(entity=postgres).count() == 1
    assert _statuses(postgres) == {1: "active", -1: "contested"}


def test_restating_a_claim_adds_evidence_not_a_conflict() -> None:
    submit(instruction("use uv", at=T0),
           instruction("use uv", text="utilise toujours uv", language="fr",
                       at=T0 + timedelta(hours=1)))
    retain()
    (held,) = Fact.objects.all()
    assert held.evidence_count == 2 and held.last_seen_at == T0 + timedelta(hours=1)
    assert not Conflict.objects.exists()


def test_an_opposite_claim_on_another_subject_is_no_conflict() -> None:
    submit(fact("Postgres", "Postgres is reliable", actors=(SOURCE,), at=T0),
           fact("Postgres", "Postgres is not slow", actors=(SOURCE,), at=T0 + timedelta(1)))
    retain()
    assert not Conflict.objects.exists()


@pytest.mark.parametrize(("decision", "existing", "new"), [
    ("kept_existing", "active", "rejected"),
    ("kept_new", "rejected", "active"),
    ("kept_both", "scoped", "scoped"),
    ("rejected_new", "active", "rejected"),
])
def test_the_operator_resolves_a_conflict(decision: str, existing: str, new: str) -> None:
    submit(instruction("use uv", at=T0), instruction("use uv", "negative", at=T0 + timedelta(1)))
    retain()
    conflict = Conflict.objects.get()
    conflict_resolve(conflict_id=conflict.pk, decision=decision, by="op", note="checked")
    conflict.refresh_from_db()
    assert conflict.status == decision and conflict.resolved_by == "op"
    conflict.existing.refresh_from_db()
    conflict.new.refresh_from_db()
    assert (conflict.existing.status, conflict.new.status) == (existing, new)
    with pytest.raises(ReviewRefused):
        conflict_resolve(conflict_id=conflict.pk, decision=decision)

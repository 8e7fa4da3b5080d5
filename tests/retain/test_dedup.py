"""Deduplication: a normalized alias is the same entity (inline); an alias variant found by
its embedding merges into the older entity (offline pass), a different person with a similar
name does not; a merge keeps the survivor's history and can be split."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.config import config_get
from memory.models import (
    DedupState,
    Entity,
    EntityAlias,
    EntityEmbedding,
    EntityMerge,
    Fact,
    Relation,
)
from memory.retain.embedders import embedder_get
from memory.services.embeddings import embedding_passes_run, embedding_waiting
from memory.services.merges import entity_merge_split
from memory.services.retain import retain_drain
from tests.retain.conftest import retain, retain_config
from tests.retain.factories import OPERATOR, T0, commit, fact, obs, submit

pytestmark = pytest.mark.usefixtures("synced")


def test_a_normalized_alias_is_the_same_entity() -> None:
    submit(fact("Anya Petrova", "Anya Petrova leads the billing team", target="world:person",
                actors=({**OPERATOR, "role": "source"},), at=T0),
           fact("ANYA PETROVÁ", "Anya Petrová speaks French", target="world:person",
                actors=({**OPERATOR, "role": "source"},), at=T0 + timedelta(hours=1)))
    retain()
    (anya,) = Entity.objects.filter(namespace__path="world:person")
    # The variant differs only by case and accents: nothing to add to the aliases.
    assert anya.display_name == "Anya Petrova" and anya.aliases == []
    assert anya.retrieval_count == 1 and anya.facts.count() == 2


TOPICS = ["feat: search", "fix: ranking bug", "docs: usage notes", "chore: bump deps"]


def _people(*names: str) -> None:
    """Commits on the normal path (new words each time: not yet familiar enough to fast-track)."""
    submit(*[commit(name, "cortex", TOPICS[i], at=T0 + timedelta(hours=i))
             for i, name in enumerate(names)])
    retain(embed=True)


def test_an_alias_variant_merges_into_the_older_entity() -> None:
    _people("Anya Petrova", "Petrova, Anya", "Petrova, Anya")
    anya = Entity.objects.get(key="world:person:anya-petrova")
    variant = Entity.objects.get(key="world:person:petrova-anya")
    assert (variant.status, variant.merged_into_id) == ("merged", anya.pk)
    assert "Petrova, Anya" in anya.aliases
    # The variant's own recall (its second commit) now counts for Anya, as do its edges.
    assert anya.retrieval_count == 1
    edge = Relation.objects.get(source=anya, relation_type="works_on")
    assert edge.evidence_count == 3
    merge = EntityMerge.objects.get()
    assert merge.reason == "embedding" and (merge.similarity or 0) > 0.9
    # The variant's name now leads to Anya: a later commit under it reinforces her.
    submit(commit("Petrova, Anya", "cortex", "fix: search", at=T0 + timedelta(days=1)))
    retain()
    anya.refresh_from_db()
    assert anya.retrieval_count == 2


def test_a_different_person_with_a_similar_name_does_not_merge() -> None:
    _people("Anya Petrova", "Anna Petrov")
    anna = Entity.objects.get(key="world:person:anna-petrov")
    assert anna.status == "active" and anna.merged_into_id is None
    assert not EntityMerge.objects.exists()


def _files_edited(*paths: str) -> None:
    """An edit of each file of project cortex, a minute apart."""
    submit(*[obs("project_activity", "world:artifact", topic=f"edited {p}",
                 actors=({"name": "cortex", "key": "world:project:cortex", "role": "project"},
                         {"name": p, "role": "file"}),
                 payload={"project": "cortex", "kind": "file", "name": p, "action": "edited"},
                 at=T0 + timedelta(minutes=i))
             for i, p in enumerate(paths)])


def test_identifiers_never_merge_by_embedding() -> None:
    submit(*[commit("Anya Petrova", "cortex", "feat", at=T0)])
    _files_edited("src/invoice.py", "src/invoices.py")
    retain(embed=True)
    assert Entity.objects.filter(namespace__path="world:artifact", status="active").count() == 2
    # A path's name is read and not embedded (config retain.path_names), also for a row the
    # Retain Job did not write; the row says what was embedded, and nothing waits after it.
    rows = {row.entity.display_name: row for row in EntityEmbedding.objects.select_related(
        "entity")}
    model = embedder_get(config_get().retain.embedder).model_id
    assert (rows["cortex/src/invoice.py"].vector, rows["cortex/src/invoice.py"].text) == (
        None, "")
    assert rows["cortex/src/invoice.py"].model == model
    assert rows["Anya Petrova"].vector is not None and rows["Anya Petrova"].text == "Anya Petrova"
    EntityEmbedding.objects.filter(entity__display_name="cortex/src/invoices.py").delete()
    assert embedding_waiting()
    assert embedding_passes_run().embedded == 1
    again = EntityEmbedding.objects.get(entity__display_name="cortex/src/invoices.py")
    assert (again.vector, again.model) == (None, model)
    assert not embedding_waiting()


def test_a_file_path_where_names_are_deduplicated_is_compared_with_none() -> None:
    """With file paths in a namespace that is deduplicated (not alias-only), a path's row
    holds no vector: the dedup pass marks it done without comparing it, and compares the
    names beside it with the vectors only."""
    config = retain_config(dedup={"alias_only": ()})
    _files_edited("src/invoice.py", "src/invoices.py")
    retain_drain(config=config, embed=False)
    EntityEmbedding.objects.update(dedup=DedupState.PENDING)
    embedding_passes_run(config=config)
    assert Entity.objects.filter(namespace__path="world:artifact", status="active").count() == 2
    assert not EntityEmbedding.objects.filter(dedup=DedupState.PENDING).exists()
    assert not embedding_waiting(config=config)


def test_a_wrong_merge_is_split_back() -> None:
    _people("Anya Petrova", "Petrova, Anya", "Petrova, Anya")
    merge = EntityMerge.objects.get()
    anya = Entity.objects.get(key="world:person:anya-petrova")
    before_aliases = set(anya.aliases) - {"Petrova, Anya"}
    variant = entity_merge_split(merge_id=merge.pk, by="operator")
    anya.refresh_from_db()
    assert variant.status == "active" and variant.merged_into_id is None
    assert set(anya.aliases) == before_aliases and anya.retrieval_count == 0
    assert Relation.objects.get(source=variant, relation_type="works_on").evidence_count == 2
    assert Relation.objects.get(source=anya, relation_type="works_on").evidence_count == 1
    assert EntityMerge.objects.get().split_by == "operator"
    # Its name still finds it (alias rows never moved).
    assert EntityAlias.objects.get(normalized="petrova anya").entity_id == variant.pk
    embedding_passes_run()
    variant.refresh_from_db()
    assert variant.status == "active"  # the dedup pass does not merge it again


def test_merged_facts_meet_the_survivors_claims() -> None:
    source = {**OPERATOR, "role": "source"}
    submit(fact("PostgreSQL", "PostgreSQL is reliable", actors=(source,), at=T0,
                target="world:topic"),
           fact("Postgres", "Postgres n'est pas fiable", actors=(source,), target="world:topic",
                at=T0 + timedelta(hours=1)))
    retain(embed=True)
    survivor = Entity.objects.get(key="world:topic:postgresql")
    assert Entity.objects.get(key="world:topic:postgres").merged_into_id == survivor.pk
    statuses = dict(Fact.objects.filter(entity=survivor).values_list("polarity", "status"))
    assert statuses == {1: "active", -1: "contested"}
    assert survivor.conflicts.count() == 1

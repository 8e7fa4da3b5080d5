"""Memories consolidated: one Memory row each, kept whole, linked to the entities it names
(EN and FR), claims that restate a fact attach as evidence, contradicting ones open a
conflict; text search finds them as soon as they are consolidated."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from memory.models import Conflict, Entity, Fact, FactEvidence, Memory, MemoryMention
from memory.selectors.memories import memories_of_entity, memory_search_text
from memory.services.observations import observation_submit_many
from tests.memories.conftest import T0, consolidate, post

pytestmark = pytest.mark.usefixtures("synced")

EN = "Anya moved the Cortex demo to Lyon on March 3"
FR = "Réunion avec Anya chez Acme à Paris le 3 mars"


def _links(memory: Memory) -> set[tuple[str, str]]:
    return set(MemoryMention.objects.filter(memory=memory)
               .values_list("entity__key", "role"))


def _fact_observation(subject: str, text: str) -> dict[str, object]:
    return {"source": "api:lyra", "category": "fact", "timestamp": T0.isoformat(),
            "target_namespace": "world:artifact", "topic": text,
            "actors": [{"name": "operator", "key": "self:operator", "role": "source"}],
            "payload_typed": {"subject": subject, "text": text}}


def test_an_english_and_a_french_memory_name_the_same_entities(lyra: APIClient) -> None:
    post(lyra, {"text": EN, "occurred_at": T0.isoformat()})
    post(lyra, {"text": FR, "occurred_at": (T0 + timedelta(days=1)).isoformat(),
                "project": "cortex"})
    consolidate()
    english, french = Memory.objects.order_by("occurred_at")
    assert english.text == EN and french.text == FR and french.project == "cortex"
    assert _links(english) == {("world:person:anya", "person"),
                               ("world:project:cortex", "project"),
                               ("world:place:lyon", "place"),
                               ("world:date:2026-03-03", "date")}
    assert _links(french) == {("world:person:anya", "person"),
                              ("world:organization:acme", "organization"),
                              ("world:place:paris", "place"),
                              ("world:date:2026-03-03", "date"),
                              ("world:project:cortex", "project")}
    assert Entity.objects.filter(key="world:person:anya").count() == 1
    anya = Entity.objects.get(key="world:person:anya")
    assert [hit.text for hit in memories_of_entity(entity_id=anya.pk)] == [FR, EN]


def test_a_memory_is_kept_whole_with_its_provenance_and_grid_cell(lyra: APIClient) -> None:
    (result,) = post(lyra, {"text": EN, "occurred_at": T0.isoformat(),
                            "source_id": "note-1"}).json()["memories"]
    consolidate()
    memory = Memory.objects.get()
    assert (memory.event_id, memory.source, memory.source_id) == (result["id"], "api:lyra",
                                                                   "note-1")
    assert memory.namespace.path == "self:memory" and memory.memory_type == "episodic"
    assert memory.half_life_days == memory.namespace.half_life_days
    assert memory.last_reinforced_at == T0 and memory.retrieval_count == 0
    assert memory.embedded is False and memory.observation_id is not None


def test_a_name_known_elsewhere_is_linked_not_created_again(lyra: APIClient) -> None:
    observation_submit_many(observations=[{
        **_fact_observation("Nimbus", "Nimbus is reliable"),
        "target_namespace": "world:organization"}])
    consolidate()
    post(lyra, {"text": "Nimbus shipped the release; Zorglub did not"})
    consolidate()
    (memory,) = Memory.objects.all()
    # A name of no known kind: found among the kinds it may be, else a new person.
    assert _links(memory) == {("world:organization:nimbus", "organization"),
                              ("world:person:zorglub", "person")}
    assert not Entity.objects.filter(key="world:person:nimbus").exists()


def test_a_memory_restating_a_fact_attaches_as_evidence(lyra: APIClient) -> None:
    observation_submit_many(observations=[_fact_observation("Postgres", "Postgres is reliable")])
    consolidate()
    post(lyra, {"text": "Postgres is reliable.", "occurred_at": (T0 + timedelta(1)).isoformat()})
    consolidate()
    (fact,) = Fact.objects.filter(entity__key="world:artifact:postgres")
    memory = Memory.objects.get()
    assert fact.evidence_count == 2
    assert FactEvidence.objects.filter(fact=fact, observation_id=memory.observation_id).exists()
    assert not Conflict.objects.exists()


def test_a_contradicting_memory_opens_a_conflict(lyra: APIClient) -> None:
    observation_submit_many(observations=[_fact_observation("Postgres", "Postgres is reliable")])
    consolidate()
    post(lyra, {"text": "Postgres n'est pas fiable.",
                "occurred_at": (T0 + timedelta(1)).isoformat()})
    consolidate()
    conflict = Conflict.objects.get()
    assert conflict.entity.key == "world:artifact:postgres"
    assert (conflict.existing.polarity, conflict.new.polarity) == (1, -1)
    assert conflict.new.status == "contested"
    assert conflict.observation_id == Memory.objects.get().observation_id


def test_consolidating_twice_changes_nothing(lyra: APIClient) -> None:
    post(lyra, {"text": EN})
    consolidate()
    before = (Memory.objects.count(), MemoryMention.objects.count(), Entity.objects.count())
    post(lyra, {"text": EN})
    consolidate()
    assert (Memory.objects.count(), MemoryMention.objects.count(),
            Entity.objects.count()) == before == (1, 4, before[2])


def test_text_search_finds_memories_in_both_languages_accents_folded(lyra: APIClient) -> None:
    post(lyra, {"memories": [{"text": EN}, {"text": FR}, {"text": "Buy oat milk"}]})
    assert memory_search_text(query="lyon") == []  # not consolidated yet
    consolidate()
    assert [hit.text for hit in memory_search_text(query="moving Lyon")] == [EN]
    assert [hit.text for hit in memory_search_text(query="reunion")] == [FR]
    assert [hit.text for hit in memory_search_text(query="Réunions")] == [FR]
    assert {hit.text for hit in memory_search_text(query="Anya")} == {EN, FR}


def test_the_memories_of_an_entity_include_those_of_entities_merged_into_it(
        lyra: APIClient) -> None:
    from memory.services.merges import entity_merge

    post(lyra, {"memories": [{"text": "Réunion avec Anya Petrova"},
                             {"text": "Déjeuner avec Petrova Anya"}]})
    consolidate()
    survivor = Entity.objects.get(key="world:person:anya-petrova")
    merged = Entity.objects.get(key="world:person:petrova-anya")
    entity_merge(merged_id=merged.pk, survivor_id=survivor.pk)
    texts = {hit.text for hit in memories_of_entity(entity_id=survivor.pk)}
    assert texts == {"Réunion avec Anya Petrova", "Déjeuner avec Petrova Anya"}


def _snapshot() -> set[tuple[str, str, frozenset[tuple[str, str]]]]:
    return {(m.event_id, m.text, frozenset(_links(m))) for m in Memory.objects.all()}


def test_a_rebuild_from_the_raw_log_makes_the_same_memories(lyra: APIClient) -> None:
    from memory.services.rebuild import graph_rebuild

    post(lyra, {"memories": [{"text": EN, "occurred_at": T0.isoformat()},
                             {"text": FR, "project": "cortex"}]})
    consolidate()
    before = _snapshot()
    graph_rebuild()
    assert _snapshot() == before and len(before) == 2


def test_a_recalled_memory_is_reinforced_and_comes_first(lyra: APIClient) -> None:
    from memory.services.memories import memories_reinforce

    post(lyra, {"memories": [{"text": "Anya likes Lyon", "occurred_at": T0.isoformat()},
                             {"text": "Anya likes Paris", "occurred_at": T0.isoformat()}]})
    consolidate()
    anya = Entity.objects.get(key="world:person:anya")
    later = T0 + timedelta(days=20)
    paris = Memory.objects.get(text="Anya likes Paris")
    assert memories_reinforce(memory_ids=[paris.pk], now=later) == 1
    paris.refresh_from_db()
    assert (paris.retrieval_count, paris.last_reinforced_at) == (1, later)
    hits = memories_of_entity(entity_id=anya.pk, now=later)
    assert [hit.text for hit in hits] == ["Anya likes Paris", "Anya likes Lyon"]
    assert hits[0].strength > hits[1].strength

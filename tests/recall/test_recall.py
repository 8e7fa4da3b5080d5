"""Recall over a small hand-built graph: each strategy finds what only it can find, the
thresholds and `as_of` hold, and every returned hit is reinforced exactly once."""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from insight.services.analysis import analysis_drain
from memory.config import config_get
from memory.errors import Invalid
from memory.models import (
    Entity,
    EntityAlias,
    EntityEmbedding,
    Fact,
    Memory,
    MemoryEvent,
    Relation,
)
from memory.retain.text import claim_lemmas, normalize
from memory.services.embeddings import entity_embed_pending
from memory.services.entities import entity_create
from memory.services.memories import memories_remember
from memory.services.recall import recall_run
from memory.services.retain import retain_drain
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _entity(path: str, slug: str, name: str, *, aliases: tuple[str, ...] = (),
            at: datetime = NOW) -> Entity:
    """An entity with its alias rows, as the Retain Job writes them."""
    namespace = namespace_resolve(path=path)
    entity = entity_create(namespace=namespace, slug=slug, display_name=name, aliases=aliases,
                           now=at)
    for alias in {normalize(name), *map(normalize, aliases)}:
        EntityAlias.objects.create(namespace=namespace, normalized=alias, entity=entity)
    return entity


def _fact(entity: Entity, claim: str, *, polarity: int = 1, at: datetime = NOW) -> Fact:
    lemmas = sorted(claim_lemmas(claim))
    return Fact.objects.create(entity=entity, claim=claim, lemma_key=" ".join(lemmas),
                               lemmas=lemmas, polarity=polarity, first_seen_at=at,
                               last_seen_at=at)


def _relate(source: Entity, target: Entity, relation_type: str, *, at: datetime) -> Relation:
    config = config_get()
    return Relation.objects.create(
        source=source, target=target, relation_type=relation_type,
        relation_class=config.graph.class_of(relation_type), last_reinforced_at=at,
        created_at=at)


@pytest.fixture
def graph() -> dict[str, Entity]:
    taxonomy_sync()
    pnpm = _entity("agent:claude-code:instruction", "use-pnpm", "use pnpm, never npm")
    _fact(pnpm, "always use pnpm to install packages")
    _fact(pnpm, "utilise toujours pnpm pour installer les dépendances")
    anya = _entity("world:person", "anya-kowalski", "Anya Kowalski", aliases=("anya",))
    cortex = _entity("world:project", "cortex", "Cortex")
    lyon = _entity("world:place", "lyon", "Lyon")
    _relate(anya, cortex, "works_on", at=NOW - timedelta(days=1))
    _relate(cortex, lyon, "located_in", at=NOW - timedelta(days=1))
    return {"pnpm": pnpm, "anya": anya, "cortex": cortex, "lyon": lyon}


def _keys(query: str, **kwargs: Any) -> list[str]:
    kwargs.setdefault("strategies_on", ("fulltext", "trigram", "graph"))
    kwargs.setdefault("reinforce", False)
    return [hit.ref for hit in recall_run(query=query, now=NOW, **kwargs).hits]


def test_an_english_and_a_french_query_find_the_same_instruction(graph: dict[str, Entity]) -> None:
    key = graph["pnpm"].key
    assert _keys("which package manager installs packages?")[0] == key
    assert _keys("comment installer les dépendances ?")[0] == key
    # accents do not matter either way
    assert _keys("dependances installer")[0] == key


def test_a_misspelled_name_is_found_by_trigrams(graph: dict[str, Entity]) -> None:
    assert _keys("what does Anya Kowalzki work on", strategies_on=("trigram",))[0] == \
        graph["anya"].key
    assert graph["anya"].key not in _keys("Kowalzki", strategies_on=("fulltext",))


def test_a_neighbour_is_found_through_a_visible_relation(graph: dict[str, Entity]) -> None:
    result = recall_run(query="Anya Kowalski", now=NOW, reinforce=False,
                        strategies_on=("fulltext", "graph"))
    by_key = {hit.ref: hit for hit in result.hits}
    assert graph["cortex"].key in by_key
    assert by_key[graph["cortex"].key].relations == ["Anya Kowalski -works_on-> Cortex"]
    # two hops: Lyon through Cortex
    assert graph["lyon"].key in by_key
    assert graph["lyon"].key not in _keys("Anya Kowalski", strategies_on=("fulltext",))


def test_a_hub_tied_to_a_weaker_hit_does_not_outrank_the_direct_ones(
        graph: dict[str, Entity]) -> None:
    """Every tool and project is tied to the agent: its tie to the weakest of the direct hits
    is worth a share of that hit's relevance, not the graph strategy's whole weight (which
    put it second, above three people the query names)."""
    hub = _entity("agent", "claude-code-hub", "the coding agent")
    named = [_entity("world:person", f"kowalski-{i}", name) for i, name in enumerate(
        ["Kowalski", "Kowalski Nowak of Kowalski Street", "Kowalski-Wisniewska and family"])]
    _relate(hub, graph["anya"], "works_with", at=NOW - timedelta(days=1))
    keys = _keys("Kowalski", strategies_on=("fulltext", "graph"))
    assert set(keys[:4]) == {graph["anya"].key, *(entity.key for entity in named)}, keys
    assert hub.key in keys[4:] and graph["cortex"].key in keys[4:]


def test_a_faded_relation_is_followed_only_with_include_faded(graph: dict[str, Entity]) -> None:
    config = config_get()
    sigma = config.graph.classes[config.graph.class_of("works_on")]
    threshold = config.thresholds.relation_weight
    faded_days = sigma * math.log(1 / threshold) + 1  # exp(-dt/sigma) < threshold
    Relation.objects.filter(relation_type="works_on").update(
        last_reinforced_at=NOW - timedelta(days=faded_days))
    assert graph["cortex"].key not in _keys("Anya Kowalski", strategies_on=("fulltext", "graph"))
    assert graph["cortex"].key in _keys("Anya Kowalski", strategies_on=("fulltext", "graph"),
                                        include_faded=True)


def test_as_of_returns_the_strength_of_that_time(graph: dict[str, Entity]) -> None:
    anya = graph["anya"]
    created = NOW - timedelta(days=40)
    Entity.objects.filter(pk=anya.pk).update(last_reinforced_at=created, created_at=created)
    as_of = NOW - timedelta(days=10)
    (hit,) = [h for h in recall_run(query="Anya Kowalski", now=NOW, as_of=as_of,
                                    reinforce=False, strategies_on=("fulltext",)).hits
              if h.ref == anya.key]
    # neutral, never recalled, no feedback, normal route: base x 0.5 ^ (30 / half-life)
    expected = anya.base * 0.5 ** (30 / anya.half_life_days)
    assert hit.strength == pytest.approx(expected, rel=1e-9)
    before_it_existed = created - timedelta(days=1)
    assert anya.key not in _keys("Anya Kowalski", as_of=before_it_existed)


def test_each_returned_hit_is_reinforced_exactly_once(graph: dict[str, Entity]) -> None:
    before = dict(Entity.objects.values_list("key", "retrieval_count"))
    result = recall_run(query="Anya Kowalski Cortex", now=NOW,
                        strategies_on=("fulltext", "trigram", "graph"))
    returned = {hit.ref for hit in result.hits}
    after = dict(Entity.objects.values_list("key", "retrieval_count"))
    assert returned and result.reinforced == len(returned)
    for key, count in after.items():
        assert count == before[key] + (1 if key in returned else 0)
    assert Entity.objects.get(key=graph["anya"].key).last_reinforced_at == NOW
    recall_run(query="Anya Kowalski Cortex", now=NOW, reinforce=False)
    assert dict(Entity.objects.values_list("key", "retrieval_count")) == after


def test_a_recall_keeps_the_stored_strength_as_a_bound(graph: dict[str, Entity]) -> None:
    """The stored strength bounds the strength from above (memory.models.graph): a recall
    that rises above it stores the strength after strength_bound_recalls more recalls; the
    next ones under it leave it (and its time) as it is, a HOT update."""
    from memory.decay.formulas import strength_after
    from memory.services.entities import entity_state

    anya = graph["anya"]
    config = config_get()
    recall_run(query="Anya Kowalski", now=NOW, strategies_on=("fulltext",))
    first = Entity.objects.get(pk=anya.pk)
    state = entity_state(first)
    exact = strength_after(state, dt_days=0.0, config=config)
    ahead = strength_after(dataclasses.replace(
        state, retrieval_count=1 + config.retain.strength_bound_recalls), dt_days=0.0,
        config=config)
    assert first.retrieval_count == 1 and first.strength_evaluated_at == NOW
    assert first.strength == pytest.approx(ahead, rel=1e-12) and ahead > exact
    later = NOW + timedelta(hours=1)
    recall_run(query="Anya Kowalski", now=later, strategies_on=("fulltext",))
    second = Entity.objects.get(pk=anya.pk)
    assert second.retrieval_count == 2 and second.last_reinforced_at == later
    assert (second.strength, second.strength_evaluated_at) == (first.strength, NOW)
    assert second.strength is not None
    assert second.strength >= strength_after(entity_state(second), dt_days=0.0, config=config)


def test_an_entity_is_found_by_meaning_alone(graph: dict[str, Entity]) -> None:
    database = _entity("world:artifact", "postgresql", "PostgreSQL relational database")
    _entity("world:artifact", "banana-bread", "banana bread recipe")
    entity_embed_pending()
    query = "which SQL server stores our tables"
    assert database.key not in _keys(query)  # no word in common
    assert _keys(query, strategies_on=("vector",))[0] == database.key


def test_a_file_is_found_by_its_base_name_and_its_words(graph: dict[str, Entity]) -> None:
    """PostgreSQL's parser reads "/src/auth.py" as one token: the name's parts are matched
    too, without a vector."""
    auth = _entity("world:artifact", "billing-api-src-auth.py", "billing-api/src/auth.py")
    _entity("world:artifact", "billing-api-src-users.py", "billing-api/src/users.py")
    _entity("world:artifact", "data-pipeline-src-sync.py", "data-pipeline/src/sync.py")
    for query in ("auth.py", "the auth module of billing-api", "billing-api/src/auth.py"):
        assert _keys(query, strategies_on=("fulltext",))[0] == auth.key, query


def test_a_file_without_a_vector_outranks_its_project(graph: dict[str, Entity]) -> None:
    """A file path's name is not embedded; asked by its project and its name, or in words,
    every strategy on, the file still comes before the project (whose name the vector finds
    nearest): it is given the vector's share its words earn."""
    billing = _entity("world:project", "billing-api", "billing-api")
    auth = _entity("world:artifact", "billing-api-src-auth.py", "billing-api/src/auth.py")
    _entity("world:artifact", "billing-api-src-users.py", "billing-api/src/users.py")
    entity_embed_pending()
    assert EntityEmbedding.objects.get(entity=auth).vector is None
    assert EntityEmbedding.objects.get(entity=billing).vector is not None
    weights = config_get().recall.weights  # type: ignore[union-attr]
    for query in ("billing-api auth.py", "the auth module of billing-api"):
        hits = recall_run(query=query, now=NOW, reinforce=False, limit=3).hits
        assert [hit.ref for hit in hits[:2]] == [auth.key, billing.key], query
        parts = hits[0].strategies
        assert parts["vector"] == pytest.approx(weights["vector"] * max(
            parts["fulltext"] / weights["fulltext"],
            parts.get("trigram", 0.0) / weights["trigram"]), abs=1e-5)


def test_strength_is_a_bounded_boost_not_a_burial(graph: dict[str, Entity]) -> None:
    """A faded entity that matches the query clearly better still ranks first."""
    weak = _entity("world:person", "marguerite-duras", "Marguerite Duras")
    strong = _entity("world:person", "marguerite", "Marguerite")
    Entity.objects.filter(pk=weak.pk).update(last_reinforced_at=NOW - timedelta(days=900))
    Entity.objects.filter(pk=strong.pk).update(retrieval_count=50)
    hits = recall_run(query="Marguerite Duras", now=NOW, reinforce=False,
                      strategies_on=("fulltext",)).hits
    assert hits[0].ref == weak.key
    assert hits[0].strength is not None and hits[0].strength < 0.35


def test_the_api_needs_the_scope_and_checks_its_input(graph: dict[str, Entity]) -> None:
    client = APIClient()
    assert client.get("/api/recall/", {"q": "Anya"}).status_code == 401
    operator = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    client.force_login(operator)
    response = client.get("/api/recall/", {"q": "Anya Kowalski", "reinforce": "false"})
    assert response.status_code == 200, response.content
    assert response.json()["hits"][0]["key"] == graph["anya"].key
    bad = client.get("/api/recall/", {"q": "Anya", "limit": "0"})
    assert bad.status_code == 400 and "limit" in bad.json()["error"]["fields"]
    missing = client.get("/api/recall/")
    assert missing.status_code == 400 and "q" in missing.json()["error"]["fields"]


def test_a_limit_of_zero_is_refused_not_read_as_the_default(graph: dict[str, Entity]) -> None:
    """As the API refuses it; `cortex recall --limit 0` and MCP call the service directly."""
    with pytest.raises(Invalid) as refused:
        recall_run(query="Anya Kowalski", limit=0, reinforce=False)
    assert refused.value.fields == {"limit": "range"}
    assert len(recall_run(query="Anya Kowalski", limit=1, reinforce=False).hits) == 1


def _remember(*texts: tuple[str, str]) -> None:
    memories_remember(source="api:lyra", memories=[
        {"text": text, "source_id": source_id, "occurred_at": NOW.isoformat()}
        for source_id, text in texts])
    analysis_drain()
    retain_drain(embed=False)


def test_unit_memory_returns_memories_with_their_source_ids(graph: dict[str, Entity]) -> None:
    _remember(("turn-17", "Anya moved the Cortex demo to Lyon on March 3."),
              ("turn-18", "The coffee machine on the third floor is broken again."))
    result = recall_run(query="where did the demo move?", unit="memory", now=NOW,
                        strategies_on=("fulltext",))
    top = result.hits[0]
    assert top.kind == "memory" and "Lyon" in top.name
    assert top.provenance[0]["source_id"] == "turn-17"
    assert top.provenance[0]["source"] == "api:lyra"
    assert MemoryEvent.objects.get(pk=top.provenance[0]["event_id"]).source_id == "turn-17"
    assert Memory.objects.get(pk=int(top.ref)).retrieval_count == 1
    # and as entities: the memory's names bring Anya, Cortex and Lyon
    entity_keys = _keys("where did the demo move?", strategies_on=("fulltext",))
    assert any("lyon" in key for key in entity_keys)


def test_unit_memory_returns_a_fact_no_memory_says(graph: dict[str, Entity]) -> None:
    # a fact observed elsewhere (a transcript, a commit), with a negated one beside it
    _fact(graph["pnpm"], "npm installs packages into node_modules", polarity=-1)
    _remember(("turn-3", "Anya asked which tool installs the packages of Cortex."))
    result = recall_run(query="which tool installs packages?", unit="memory", now=NOW,
                        strategies_on=("fulltext",), reinforce=False)
    facts = {hit.name: hit for hit in result.hits if hit.kind == "fact"}
    assert {"always use pnpm to install packages",
            "not: npm installs packages into node_modules"} <= set(facts)
    hit = facts["always use pnpm to install packages"]
    assert hit.matched == [graph["pnpm"].key] and hit.entity_id == graph["pnpm"].pk
    assert hit.as_dict()["kind"] == "fact"
    assert any(h.kind == "memory" and h.provenance[0]["source_id"] == "turn-3"
               for h in result.hits)

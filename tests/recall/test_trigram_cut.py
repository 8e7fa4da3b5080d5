"""Trigram's ranking over the kept matches first reads only the rows of the best alias
entities (memory/selectors/recall.py, trigram_cut): whether that is enough (the best are
distinct, active entities) or not (they merged into one, or were set aside), the answer is
the ranking of every match, as trigram_names reads it in a statement of its own."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection

from memory.config import config_get
from memory.models import Entity, EntityAlias, EntityStatus
from memory.recall.fusion import Candidate
from memory.retain.text import normalize
from memory.selectors import recall as strategies
from memory.selectors.recall import RecallFilters, Scope
from memory.services.entities import entity_create
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUERY = "Kowalski"
# Each an alias of its own entity.
NAMES = ("Kowalski", "Kowalsky", "Kowalska", "Kowalskie", "Kowalskiego", "Kowalczyk",
         "Kowalewski", "Kowal", "Kowalik", "Kowalsko")
LIMIT = 2


def _people() -> tuple[list[Entity], dict[int, float]]:
    """The entities, the nearest to the query first, and their similarity (pg_trgm's)."""
    taxonomy_sync()
    namespace = namespace_resolve(path="world:person")
    people = []
    for i, name in enumerate(NAMES):
        entity = entity_create(namespace=namespace, slug=f"p{i}", display_name=name, now=NOW)
        EntityAlias.objects.create(namespace=namespace, normalized=normalize(name),
                                   entity=entity)
        people.append(entity)
    with connection.cursor() as cursor:
        near = {}
        for entity in people:
            cursor.execute("SELECT similarity(%s, %s)",
                           [normalize(entity.display_name), normalize(QUERY)])
            near[entity.pk] = cursor.fetchone()[0]
    return sorted(people, key=lambda entity: (-near[entity.pk], entity.pk)), near


def _scope() -> Scope:
    return Scope(filters=RecallFilters(), at=NOW, temporal=False)


def _threshold() -> float:
    section = config_get().recall
    assert section is not None
    return section.trigram_threshold


def _kept_twice() -> list[Candidate]:
    """The lexical statement's trigram list, read twice: the second reads the kept rows,
    with a cut when they name enough entities."""
    threshold = _threshold()
    first = strategies.text_candidates(text=None, query=QUERY, scope=_scope(), limit=LIMIT,
                                       trigram_threshold=threshold).trigram
    second = strategies.text_candidates(text=None, query=QUERY, scope=_scope(), limit=LIMIT,
                                        trigram_threshold=threshold).trigram
    assert first == second
    return second


def _alone() -> list[Candidate]:
    return strategies.trigram_names(query=QUERY, scope=_scope(), limit=LIMIT,
                                    threshold=_threshold())


def test_the_cut_answers_as_the_whole_ranking_when_its_best_are_distinct() -> None:
    people, _near = _people()
    found = _kept_twice()
    assert found == _alone()
    assert [c.ref for c in found][0] == people[0].pk
    assert len(found) == LIMIT


def test_the_cut_falls_back_to_every_row_when_its_best_collapse_or_are_set_aside() -> None:
    people, near = _people()
    # a cut's worth of the nearest alias entities (and their ties): the second merged into
    # the first, the others set aside; the ranking must reach further down
    cut = near[people[2 * LIMIT - 1].pk]
    best = [p for p in people if near[p.pk] >= cut]
    Entity.objects.filter(pk=best[1].pk).update(merged_into=best[0],
                                                status=EntityStatus.MERGED)
    Entity.objects.filter(pk__in=[p.pk for p in best[2:]]).update(
        status=EntityStatus.QUARANTINED)
    found = _kept_twice()
    assert found == _alone()
    assert [c.ref for c in found] == [best[0].pk, people[len(best)].pk]


def test_the_cut_is_the_similarity_of_the_last_entity_it_needs() -> None:
    rows = [(1, "a", 0.9), (1, "b", 0.8), (2, "c", 0.7), (3, "d", 0.7), (4, "e", 0.5)]
    assert strategies.trigram_cut(rows, limit=1, threshold=0.3) == 0.7
    assert strategies.trigram_cut(rows, limit=2, threshold=0.3) == 0.5
    assert strategies.trigram_cut(rows, limit=3, threshold=0.3) == 0.3


def test_the_kept_rows_reach_postgresql_as_they_are() -> None:
    texts = ['a"b', "c\\d", "e,f", "NULL", " spaced ", "{braces}", "l'apostrophe", "é"]
    numbers = [1, 2**40]
    similarities = [0.6363636255264282, 1.0, 0.35]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[], %s::bigint[], %s::real[]::float8[]",
                       [strategies._array_text(texts), strategies._array_text(numbers),
                        strategies._array_text(similarities)])
        assert cursor.fetchone() == (texts, numbers, [0.6363636255264282, 1.0,
                                                       0.3499999940395355])


def test_under_a_project_the_cut_and_the_early_drop_answer_as_the_whole_ranking() -> None:
    people, _near = _people()
    # the project holds every other entity, and the nearest one's alias entity merged into
    # one of them: its rows must still count (resolved), the others' be dropped unresolved
    project = tuple(p.pk for p in people[1::2])
    Entity.objects.filter(pk=people[0].pk).update(merged_into=people[3],
                                                  status=EntityStatus.MERGED)
    scope = Scope(filters=RecallFilters(project="shop"), at=NOW, temporal=False,
                  project_entities=project)
    threshold = _threshold()
    read = [strategies.text_candidates(text=None, query=QUERY, scope=scope, limit=LIMIT,
                                       trigram_threshold=threshold).trigram for _ in range(2)]
    alone = strategies.trigram_names(query=QUERY, scope=scope, limit=LIMIT, threshold=threshold)
    assert read[0] == read[1] == alone
    assert [c.ref for c in alone][0] == people[3].pk  # through the merged alias entity
    assert {c.ref for c in alone} <= set(project)

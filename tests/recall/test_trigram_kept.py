"""Trigram keeps, per process, the aliases each gram matched: whatever is written to the
aliases afterwards (a new one, a moved one, one written and rolled back), the next recall
answers as if it had read every gram again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import transaction

from memory.models import Entity, EntityAlias
from memory.retain.text import normalize
from memory.selectors.recall import query_grams
from memory.services.entities import entity_create
from memory.services.recall import recall_run
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUERY = "what does Kowalzki work on"


def _person(slug: str, name: str) -> Entity:
    namespace = namespace_resolve(path="world:person")
    entity = entity_create(namespace=namespace, slug=slug, display_name=name, now=NOW)
    EntityAlias.objects.create(namespace=namespace, normalized=normalize(name), entity=entity)
    return entity


def _found() -> list[str]:
    return [hit.ref for hit in recall_run(query=QUERY, now=NOW, reinforce=False,
                                          strategies_on=("trigram",)).hits]


class _Undone(Exception):
    pass


def test_what_is_written_to_the_aliases_after_a_recall_is_seen_by_the_next() -> None:
    taxonomy_sync()
    anya = _person("anya-kowalski", "Anya Kowalski")
    assert _found() == [anya.key]
    assert _found() == [anya.key]  # the same grams, kept

    bea = _person("bea-kowalska", "Kowalska")
    assert set(_found()) == {anya.key, bea.key}

    with pytest.raises(_Undone), transaction.atomic():
        undone = _person("kowalzky", "Kowalzky")
        assert undone.key in _found()
        raise _Undone
    assert set(_found()) == {anya.key, bea.key}

    other = _person("someone-else", "Someone Else")
    EntityAlias.objects.filter(entity=bea).update(entity=other)
    assert set(_found()) == {anya.key, other.key}


def test_a_query_s_grams_leave_its_stopwords_out() -> None:
    """Each gram is a scan of the alias trigram index; 'please', 'the', 'with' match no name.
    A short query is still compared whole, stopwords and all."""
    assert query_grams("Please add the retry to billing-api with httpx") == [
        "add", "add retry", "api", "api httpx", "billing", "billing api", "httpx", "retry",
        "retry billing"]
    assert query_grams("the Lisbon launch") == [
        "launch", "lisbon", "lisbon launch", "the lisbon launch"]

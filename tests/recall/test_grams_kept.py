"""A query's trigram grams read once for the recalls about to run at once (a context's two,
within its project and beyond it): memory/selectors/recall.py, trigram_grams_keep, and
memory/services/recall.py, recall_prepare. The recalls that follow read what was kept and
answer what trigram_names, reading every gram in a statement of its own, answers; an alias
written since is still found."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.config import config_get
from memory.models import EntityAlias
from memory.recall.fusion import Candidate
from memory.retain.text import normalize
from memory.selectors import recall as strategies
from memory.selectors.recall import RecallFilters, Scope, query_grams
from memory.services.entities import entity_create
from memory.services.recall import recall_prepare
from memory.services.taxonomy import namespace_resolve, taxonomy_sync

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _nothing_kept() -> None:
    """This process keeps grams across tests (as a web worker does across requests)."""
    with strategies._near_lock:
        strategies._near.clear()
        strategies._near_rows[0] = 0

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
QUERY = "what did Kowalzki say about the Brightwater rollout"
NAMES = ("Kowalski", "Kowalsky", "Brightwater", "Brightwell")


def _alias(name: str, slug: str) -> None:
    namespace = namespace_resolve(path="world:person")
    entity = entity_create(namespace=namespace, slug=slug, display_name=name, now=NOW)
    EntityAlias.objects.create(namespace=namespace, normalized=normalize(name), entity=entity)


def _threshold() -> float:
    section = config_get().recall
    assert section is not None
    return section.trigram_threshold


def _scope() -> Scope:
    return Scope(filters=RecallFilters(), at=NOW, temporal=False)


def _lexical() -> list[Candidate]:
    return strategies.text_candidates(text=None, query=QUERY, scope=_scope(), limit=10,
                                      trigram_threshold=_threshold()).trigram


def _alone() -> list[Candidate]:
    return strategies.trigram_names(query=QUERY, scope=_scope(), limit=10,
                                    threshold=_threshold())


def test_the_grams_are_read_once_and_the_recall_answers_as_reading_them_all() -> None:
    taxonomy_sync()
    for i, name in enumerate(NAMES):
        _alias(name, f"p{i}")
    assert strategies.trigram_grams_keep(query=QUERY, threshold=_threshold()) == len(
        query_grams(QUERY))
    assert strategies.trigram_grams_keep(query=QUERY, threshold=_threshold()) == 0
    found = _lexical()
    assert found == _alone()
    assert {c.via for c in found} >= {"name: kowalski", "name: brightwater"}


def test_an_alias_written_after_the_grams_were_kept_is_found() -> None:
    taxonomy_sync()
    _alias("Kowalski", "p0")
    recall_prepare(query=QUERY)
    assert strategies.trigram_grams_keep(query=QUERY, threshold=_threshold()) == 0
    _alias("Brightwater", "p1")  # a new alias version: what was kept is not read
    found = _lexical()
    assert found == _alone()
    assert "name: brightwater" in {c.via for c in found}


def test_with_a_new_gram_after_the_aliases_changed_every_gram_is_read_again() -> None:
    taxonomy_sync()
    _alias("Kowalski", "p0")
    assert strategies.trigram_grams_keep(query=QUERY, threshold=_threshold()) > 0
    _alias("Brightwater", "p1")  # a new alias version
    longer = f"{QUERY} in Zanzibar"
    assert strategies.trigram_grams_keep(query=longer, threshold=_threshold()) == len(
        query_grams(longer))
    assert strategies.trigram_grams_keep(query=longer, threshold=_threshold()) == 0
    found = _lexical()
    assert found == _alone()
    assert "name: brightwater" in {c.via for c in found}

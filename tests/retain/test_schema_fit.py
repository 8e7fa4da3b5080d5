"""schema_fit of constructed observations, against the value computed by hand."""

from __future__ import annotations

import pytest

from memory.config import DecayConfig
from memory.models import Observation
from memory.retain.fit import familiarity, route_of, schema_fit
from tests.retain.conftest import retain
from tests.retain.factories import OPERATOR, commit, fact, instruction, submit

pytestmark = pytest.mark.usefixtures("synced")


def fit_of(observation_id: str) -> float:
    value = Observation.objects.get(pk=observation_id).schema_fit
    assert value is not None
    return value


def test_a_commit_scored_by_hand(config: DecayConfig) -> None:
    # weights 0.4 / 0.35 / 0.25; a new actor in a described namespace counts 0.5; the pair
    # (commit, world:project) has a handler of its own: prior 0.5, half count 10.
    first, second = submit(commit("Alice Martin", "billing-api", "feat: invoice totals"),
                           commit("Zoe Laurent", "billing-api", "feat: invoice export"))
    retain()
    # First: both actors new (0.5, 0.5); nothing retained yet; "feat invoice totals" vs the
    # namespace's words (world, project): none known.
    assert fit_of(first) == pytest.approx(0.4 * 0.5 + 0.35 * 0.5 + 0.25 * 0)
    # Second: Zoe new (0.5), billing-api known (1); one commit retained; "feat" and "invoice"
    # of "feat invoice export" were in the first topic.
    by_hand = 0.4 * (0.5 + 1) / 2 + 0.35 * (0.5 + 0.5 * 1 / (1 + 10)) + 0.25 * 2 / 3
    assert fit_of(second) == pytest.approx(by_hand, abs=1e-12)


def test_actors_the_taxonomy_names_are_known_structure(config: DecayConfig) -> None:
    (observation,) = submit(instruction("use uv", text="always use uv"))
    retain()
    # self:operator and agent:claude-code are nodes of the taxonomy: known (1, 1).
    assert fit_of(observation) == pytest.approx(0.4 * 1 + 0.35 * 0.5 + 0.25 * 0)


def test_a_catch_all_handler_gives_a_lower_prior(config: DecayConfig) -> None:
    (observation,) = submit(fact("Zorblax", "Zorblax glows in the dark", target="world:concept"))
    retain()
    # No actors: the subject counts (new: 0.5); `fact` has only a catch-all handler (0.25).
    assert fit_of(observation) == pytest.approx(0.4 * 0.5 + 0.35 * 0.25 + 0.25 * 0)


def test_an_operator_stated_fact_is_not_dark_matter(config: DecayConfig) -> None:
    (observation,) = submit(fact("Postgres", "Postgres is reliable",
                                 actors=({**OPERATOR, "role": "source"},)))
    retain()
    assert fit_of(observation) == pytest.approx(0.4 * 1 + 0.35 * 0.25)


def test_the_pure_function_and_the_routes(config: DecayConfig) -> None:
    parts = schema_fit(actor_credits=[1.0, 0.5], prior=0.5, retained=10, topic_known=1,
                       topic_total=4, config=config)
    assert (parts.actors, parts.familiarity, parts.vocabulary) == (0.75, 0.75, 0.25)
    assert parts.value == pytest.approx(0.4 * 0.75 + 0.35 * 0.75 + 0.25 * 0.25)
    assert familiarity(prior=0.0, retained=0, half_count=10) == 0.0
    assert [route_of(v, config=config) for v in (0.29, 0.3, 0.7, 0.71)] == [
        "dark_matter", "normal", "normal", "fast_lane"]

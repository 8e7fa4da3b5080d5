"""schema_fit (docs/retain.md) as pure functions: how well an observation fits what the
graph already holds, in [0, 1], and the route it takes.

    schema_fit = w_actors x actors + w_familiarity x familiarity + w_vocabulary x vocabulary

- actors: the mean credit of the observation's actors: 1 for one already known (an active
  entity with that key or alias, or a node of the taxonomy such as `self:operator`),
  `new_actor_credit` for a new (or quarantined) one in a namespace the taxonomy describes
  (a new instance of known structure), 0 otherwise;
- familiarity: how familiar the (category, target namespace) pair is. It starts at a prior
  and rises with the count n of observations of it retained:
  prior + (1 - prior) x n / (n + half_count). The prior is `familiarity_prior` when the
  taxonomy describes the namespace and a handler is registered for the pair with a pattern
  that names it, `generic_prior` when only a catch-all handler is, 0 when the taxonomy does
  not describe the namespace;
- vocabulary: the share of the topic's content lemmas the namespace already uses (its path
  words, its entities' names and facts, the topics retained into it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.config import DecayConfig


@dataclass(frozen=True)
class FitParts:
    actors: float
    familiarity: float
    vocabulary: float
    value: float


def share(known: int, total: int) -> float:
    return known / total if total else 0.0


def familiarity(*, prior: float, retained: int, half_count: float) -> float:
    return prior + (1.0 - prior) * retained / (retained + half_count)


def pair_prior(*, described: bool, specific_handler: bool, config: DecayConfig) -> float:
    section = config.retain.schema_fit
    if not described:
        return 0.0
    return section.familiarity_prior if specific_handler else section.generic_prior


def actor_credit(*, known: bool, described: bool, config: DecayConfig) -> float:
    if known:
        return 1.0
    return config.retain.schema_fit.new_actor_credit if described else 0.0


def schema_fit(
    *, actor_credits: Sequence[float], prior: float, retained: int, topic_known: int,
    topic_total: int, config: DecayConfig,
) -> FitParts:
    section = config.retain.schema_fit
    parts = {
        "actors": sum(actor_credits) / len(actor_credits) if actor_credits else 0.0,
        "familiarity": familiarity(prior=prior, retained=retained,
                                   half_count=section.familiarity_half_count),
        "vocabulary": share(topic_known, topic_total),
    }
    value = sum(section.weights[name] * part for name, part in parts.items())
    return FitParts(value=min(1.0, max(0.0, value)), **parts)


def route_of(fit: float, *, config: DecayConfig) -> str:
    if fit < config.routes.dark_matter_below:
        return "dark_matter"
    if fit > config.routes.fast_lane_above:
        return "fast_lane"
    return "normal"

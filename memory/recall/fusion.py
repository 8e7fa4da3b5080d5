"""Fusing ranked candidate lists from several strategies into one relevance, then breaking
near-ties by strength (docs/recall.md).

A strategy's list is scored by `linear` fusion (each score min-max normalized within its
list, times the strategy's weight, summed over strategies: a list whose scores all sit close
together, as cosine similarities do, spreads over [0, 1] instead of giving every candidate
nearly the same share), by `zscore` (each score less its list's mean, over its deviation,
times the weight) or by `rrf` (reciprocal rank fusion, weight / (k + rank)). Strength then
adds at most `tiebreak` to a hit's relevance: it orders hits of nearly equal relevance and
never buries one clearly more relevant.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

Fusion = Literal["linear", "zscore", "rrf"]
# The last of a list still counts a little: found by a strategy is never worth nothing.
LINEAR_FLOOR = 0.05
# An entity id, or (kind, id) for units of other kinds ("memory", 12), ("fact", 7).
Ref = int | tuple[str, int]


@dataclass(frozen=True)
class Candidate:
    """One strategy's hit: what (an entity id, a memory id...), its native score (higher is
    better), and what brought it (a matched fact, a relation...)."""

    ref: Ref
    score: float
    via: str = ""


@dataclass
class Fused:
    ref: Ref
    relevance: float = 0.0
    strategies: dict[str, float] = field(default_factory=dict)
    via: list[str] = field(default_factory=list)


def fuse(lists: Mapping[str, Sequence[Candidate]], *, weights: Mapping[str, float],
         method: Fusion = "linear", rrf_k: float = 60.0,
         shares: Collection[str] = ()) -> dict[Ref, Fused]:
    """One relevance per candidate, over every strategy that found it (the union, not one
    strategy's pool). `shares`: strategies whose scores are already shares of the best
    hit's relevance (0..1), taken as they are by `linear`: spread over [0, 1], a neighbour
    of a middling hit would count as much as a direct match."""
    fused: dict[Ref, Fused] = {}
    for strategy, candidates in lists.items():
        weight = weights.get(strategy, 1.0)
        best = max((c.score for c in candidates), default=0.0)
        worst = min((c.score for c in candidates), default=0.0)
        spread, floor = best - worst, LINEAR_FLOOR
        mean, deviation = _mean_deviation([c.score for c in candidates])
        if strategy in shares:
            worst, spread, floor = 0.0, 1.0, 0.0
        seen: set[Ref] = set()
        for rank, candidate in enumerate(candidates, start=1):
            if candidate.ref in seen:
                continue
            seen.add(candidate.ref)
            if method == "rrf":
                part = weight / (rrf_k + rank)
            elif method == "zscore" and strategy not in shares:
                part = weight * (candidate.score - mean) / deviation if deviation > 0 else 0.0
            else:
                spread_share = (candidate.score - worst) / spread if spread > 0 else 1.0
                part = weight * (floor + (1 - floor) * spread_share)
            entry = fused.setdefault(candidate.ref, Fused(candidate.ref))
            entry.relevance += part
            entry.strategies[strategy] = round(part, 6)
            if candidate.via and candidate.via not in entry.via:
                entry.via.append(candidate.via)
    return fused


def unscored_filled(fused: Mapping[Ref, Fused], refs: Collection[Ref], *, strategy: str,
                    weights: Mapping[str, float], like: Collection[str]) -> dict[Ref, Fused]:
    """Each of `refs` (candidates `strategy` cannot score: an entity whose name has no
    vector) given for `strategy` its best share (part / weight) in the `like` strategies that
    found it, times `strategy`'s weight: a short name's vector agrees with what its words
    match, and a candidate scored by fewer strategies than its rivals would lose to any of
    them that all score, however much better its words match."""
    filled = dict(fused)
    for ref in refs:
        entry = fused.get(ref)
        if entry is None or strategy in entry.strategies:
            continue
        shares = [part / weights.get(name, 1.0) for name, part in entry.strategies.items()
                  if name in like and weights.get(name, 1.0)]
        if not shares:
            continue
        part = weights.get(strategy, 1.0) * max(shares)
        filled[ref] = Fused(ref, entry.relevance + part,
                            {**entry.strategies, strategy: round(part, 6)}, entry.via)
    return filled


def _mean_deviation(scores: Sequence[float]) -> tuple[float, float]:
    if not scores:
        return 0.0, 0.0
    mean = sum(scores) / len(scores)
    return mean, math.sqrt(sum((x - mean) ** 2 for x in scores) / len(scores))


def rank(fused: Mapping[Ref, Fused], strengths: Mapping[Ref, float], *, tiebreak: float,
         limit: int) -> list[tuple[Fused, float]]:
    """The `limit` best candidates by relevance, strength breaking near-ties: each scores its
    relevance plus `tiebreak` x its strength (within [0, 1]; pinned counts as 1), so a hit
    never passes one more relevant by more than `tiebreak` (ties: by relevance, then ref)."""
    scored = [(entry, entry.relevance + tiebreak * min(max(strengths.get(ref, 0.0), 0.0), 1.0))
              for ref, entry in fused.items()]
    scored.sort(key=lambda pair: (-pair[1], -pair[0].relevance, str(pair[0].ref)))
    return scored[:limit]


def language_centred(candidates: Sequence[Candidate], languages: Mapping[Ref, str]
                     ) -> list[Candidate]:
    """Similarities made comparable across languages, best first: each candidate's less the
    mean of its language's among them. A multilingual embedding sets a question nearer to
    anything in its own language (a French question is nearer to French notes on other
    matters than to the English note that answers it); within one language nothing changes
    but a shift, which the linear fusion's min-max normalization ignores."""
    groups: dict[str, list[float]] = {}
    for candidate in candidates:
        groups.setdefault(languages.get(candidate.ref, ""), []).append(candidate.score)
    mean = {language: sum(scores) / len(scores) for language, scores in groups.items()}
    centred = [Candidate(c.ref, c.score - mean[languages.get(c.ref, "")], c.via)
               for c in candidates]
    return sorted(centred, key=lambda c: (-c.score, str(c.ref)))


def adjacent_lifted(fused: Mapping[Ref, Fused], pairs: Sequence[tuple[Ref, Ref]], *,
                    share: float) -> dict[Ref, Fused]:
    """Each candidate lifted by `share` of its best adjacent candidate's relevance (a turn
    and the one it answers, both ways; a relevance below zero lifts nothing): an answer
    spans turns, and a turn beside a relevant one is likelier part of it. Read from the
    relevances before any lift; the lift is shown as the `adjacent` strategy."""
    best: dict[Ref, float] = {}
    for one, other in pairs:
        if one in fused and other in fused:
            for near, far in ((one, other), (other, one)):
                best[near] = max(best.get(near, 0.0), fused[far].relevance)
    lifted = dict(fused)
    for ref, relevance in best.items():
        part = share * relevance
        if part > 0:
            entry = fused[ref]
            lifted[ref] = Fused(ref, entry.relevance + part,
                                {**entry.strategies, "adjacent": round(part, 6)}, entry.via)
    return lifted

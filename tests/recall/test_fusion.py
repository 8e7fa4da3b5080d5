"""The pure fusion: the union of every strategy, min-max linear fusion, z-score fusion, and
strength breaking near-ties (expected values computed by hand)."""

from __future__ import annotations

import pytest

from memory.recall.fusion import LINEAR_FLOOR, Candidate, fuse, rank


def test_linear_fusion_spreads_each_list_and_sums_over_strategies() -> None:
    lists = {"fulltext": [Candidate(1, 4.0), Candidate(2, 2.0), Candidate(3, 1.0)],
             "vector": [Candidate(3, 0.91), Candidate(4, 0.90)]}
    fused = fuse(lists, weights={"fulltext": 1.0, "vector": 0.5})
    assert set(fused) == {1, 2, 3, 4}  # the union
    low = LINEAR_FLOOR
    assert fused[1].relevance == pytest.approx(1.0)
    assert fused[2].relevance == pytest.approx(low + (1 - low) * 1 / 3)
    assert fused[3].relevance == pytest.approx(low + 0.5)
    assert fused[4].relevance == pytest.approx(0.5 * low)


def test_a_list_of_shares_is_taken_as_it_is_not_spread() -> None:
    """The graph's scores are shares of the best hit's relevance: a neighbour of a middling
    hit (share 0.2) is not spread up to the strategy's whole weight."""
    lists = {"vector": [Candidate(1, 0.9), Candidate(2, 0.8)],
             "graph": [Candidate(3, 0.2), Candidate(4, 0.1)]}
    fused = fuse(lists, weights={"vector": 1.0, "graph": 0.5}, shares=("graph",))
    assert fused[3].relevance == pytest.approx(0.5 * 0.2)
    assert fused[4].relevance == pytest.approx(0.5 * 0.1)
    assert fused[2].relevance == pytest.approx(LINEAR_FLOOR)  # the other lists are spread
    spread = fuse(lists, weights={"vector": 1.0, "graph": 0.5})
    assert spread[3].relevance == pytest.approx(0.5)


def test_rrf_is_weight_over_k_plus_rank() -> None:
    fused = fuse({"a": [Candidate(7, 9.0), Candidate(8, 1.0)], "b": [Candidate(8, 1.0)]},
                 weights={"a": 1.0, "b": 2.0}, method="rrf", rrf_k=60)
    assert fused[7].relevance == pytest.approx(1 / 61)
    assert fused[8].relevance == pytest.approx(1 / 62 + 2 / 61)


def test_zscore_standardizes_each_list_and_sums_over_strategies() -> None:
    # fulltext 4, 2, 0: mean 2, deviation sqrt(8/3); vector 0.9, 0.7: mean 0.8, deviation 0.1
    lists = {"fulltext": [Candidate(1, 4.0), Candidate(2, 2.0), Candidate(3, 0.0)],
             "vector": [Candidate(3, 0.9), Candidate(4, 0.7)]}
    fused = fuse(lists, weights={"fulltext": 1.0, "vector": 0.5}, method="zscore")
    sd = (8 / 3) ** 0.5
    assert fused[1].relevance == pytest.approx(2 / sd)
    assert fused[2].relevance == pytest.approx(0.0)
    assert fused[3].relevance == pytest.approx(-2 / sd + 0.5 * 1.0)
    assert fused[4].relevance == pytest.approx(0.5 * -1.0)
    same = fuse({"s": [Candidate(1, 3.0), Candidate(2, 3.0)]}, weights={}, method="zscore")
    assert same[1].relevance == same[2].relevance == 0.0  # no spread, no information


def test_strength_breaks_near_ties_but_never_passes_a_clearly_more_relevant_hit() -> None:
    fused = fuse({"s": [Candidate(1, 1.0), Candidate(2, 0.99), Candidate(3, 0.5)]},
                 weights={"s": 1.0}, method="rrf", rrf_k=0)  # 1, 1/2, 1/3
    fused[2].relevance = 0.99  # a near-tie with 1
    order = [e.ref for e, _ in rank(fused, {1: 0.0, 2: 1.0, 3: 1.0}, tiebreak=0.02, limit=3)]
    assert order == [2, 1, 3]  # 0.99 + 0.02 passes 1.0 + 0; 1/3 + 0.02 passes nothing
    scores = [score for _, score in rank(fused, {1: 0.0, 2: 5.0}, tiebreak=0.02, limit=3)]
    assert scores == pytest.approx([0.99 + 0.02, 1.0, 1 / 3])  # strength counts up to 1
    assert [e.ref for e, _ in rank(fused, {2: 1.0}, tiebreak=0.0, limit=1)] == [1]


def test_a_turn_is_lifted_by_a_share_of_its_best_adjacent_turn() -> None:
    """Each of a pair lifts the other by `share` x its relevance before any lift (the best
    of its pairs); a negative relevance lifts nothing; a pair with a non-candidate is
    ignored."""
    from memory.recall.fusion import Fused, Ref, adjacent_lifted

    fused: dict[Ref, Fused] = {("memory", 1): Fused(("memory", 1), 2.0, {"fulltext": 2.0}),
             ("memory", 2): Fused(("memory", 2), 0.5),
             ("memory", 3): Fused(("memory", 3), -1.0),
             ("memory", 4): Fused(("memory", 4), 1.0)}
    pairs: list[tuple[Ref, Ref]] = [(("memory", 2), ("memory", 1)), (("memory", 3), ("memory", 2)),
             (("memory", 4), ("memory", 3)), (("memory", 4), ("memory", 9))]
    lifted = adjacent_lifted(fused, pairs, share=0.2)
    assert lifted[("memory", 1)].relevance == pytest.approx(2.0 + 0.2 * 0.5)
    assert lifted[("memory", 2)].relevance == pytest.approx(0.5 + 0.2 * 2.0)  # best of 1, 3
    assert lifted[("memory", 3)].relevance == pytest.approx(-1.0 + 0.2 * 1.0)
    assert lifted[("memory", 4)].relevance == pytest.approx(1.0)  # 3 is below zero
    assert lifted[("memory", 1)].strategies == {"fulltext": 2.0, "adjacent": 0.1}
    assert fused[("memory", 1)].relevance == 2.0  # the input is left as it was


def test_a_candidate_the_vector_cannot_score_gets_its_best_lexical_share() -> None:
    """An entity without a name vector is given, for the vector, its best share (part /
    weight) among the strategies named, times the vector's weight; one the vector scored,
    one not among the refs, and one no named strategy found are left as they were."""
    from memory.recall.fusion import Fused, Ref, unscored_filled

    weights = {"fulltext": 1.0, "trigram": 0.6, "vector": 0.8, "graph": 0.5}
    fused: dict[Ref, Fused] = {
        1: Fused(1, 1.3, {"fulltext": 1.0, "trigram": 0.3}),
        2: Fused(2, 0.9, {"fulltext": 0.2, "trigram": 0.3, "graph": 0.4}),
        3: Fused(3, 1.5, {"fulltext": 0.5, "vector": 1.0}),
        4: Fused(4, 0.4, {"graph": 0.4}),
        5: Fused(5, 1.0, {"fulltext": 1.0})}
    filled = unscored_filled(fused, [1, 2, 3, 4], strategy="vector", weights=weights,
                             like=("fulltext", "trigram"))
    assert filled[1].relevance == pytest.approx(1.3 + 0.8 * 1.0)
    assert filled[2].relevance == pytest.approx(0.9 + 0.8 * 0.5)  # trigram's 0.3 / 0.6
    assert filled[2].strategies["vector"] == pytest.approx(0.4)
    assert [filled[i] for i in (3, 4, 5)] == [fused[i] for i in (3, 4, 5)]
    assert "vector" not in fused[1].strategies  # the input is left as it was

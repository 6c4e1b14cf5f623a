"""The pure parts of retrieval: fusion, retention tiers, the score's priors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thoughtgraph.domain.models import Thought, ThoughtType
from thoughtgraph.domain.ranking.fusion import RRF_K, reciprocal_rank_fusion
from thoughtgraph.domain.ranking.retention import min_retention, retention_score, tier_of
from thoughtgraph.domain.ranking.scoring import (
    lineage_factor,
    salience_decay,
    strongest_links,
    usage,
)
from thoughtgraph.domain.retrieval import RetentionTier, RetrievalMode, UsagePolicy
from thoughtgraph.domain.units import DAY_MS

NOW = 1_800_000_000_000
POLICY = UsagePolicy()


def thought(**fields: object) -> Thought:
    base: dict[str, object] = {
        "id": "t",
        "namespace": "ns",
        "type": ThoughtType.ORIGINAL,
        "content": "c",
        "agent_id": "a",
        "agent_name": "A",
        "pheromone_weight": 1.0,
        "created_at_ms": NOW,
    }
    return Thought.model_validate({**base, **fields})


def test_rrf_prefers_documents_both_lists_rank() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "d"]])
    assert [f.id for f in fused][:1] == ["c"]
    top = fused[0]
    assert top.ranks == (3, 1)
    assert top.fusion == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert fused[-1].ranks == (None, 2)


def test_rrf_relevance_is_one_for_first_everywhere_and_ignores_empty_lists() -> None:
    assert reciprocal_rank_fusion([["a"], ["a"]])[0].relevance == pytest.approx(1.0)
    alone = reciprocal_rank_fusion([["a", "b"], []])
    assert alone[0].relevance == pytest.approx(1.0) and alone[1].relevance < 1.0
    assert reciprocal_rank_fusion([[], []]) == []


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8), max_size=3))
def test_rrf_relevance_stays_on_zero_to_one(lists: list[list[str]]) -> None:
    fused = reciprocal_rank_fusion(lists)
    assert all(0.0 < f.relevance <= 1.0 for f in fused)
    assert [f.fusion for f in fused] == sorted((f.fusion for f in fused), reverse=True)


def test_retention_halves_every_half_life_and_tiers_follow() -> None:
    fresh = thought()
    assert retention_score(fresh, NOW, POLICY) == pytest.approx(1.0)
    month = thought(created_at_ms=NOW - 30 * DAY_MS)
    assert retention_score(month, NOW, POLICY) == pytest.approx(0.5)
    assert tier_of(0.5, POLICY) is RetentionTier.WARM
    assert tier_of(0.25, POLICY) is RetentionTier.COLD
    assert tier_of(0.05, POLICY) is RetentionTier.ARCHIVED
    assert tier_of(0.6, POLICY) is RetentionTier.HOT
    assert retention_score(thought(created_at_ms=0, pinned=True), NOW, POLICY) == 1.0


def test_retrievals_and_cites_boost_ignores_demote() -> None:
    old = NOW - 30 * DAY_MS
    base = retention_score(thought(created_at_ms=old), NOW, POLICY)
    used = retention_score(thought(created_at_ms=old, access_count=2), NOW, POLICY)
    cited = retention_score(thought(created_at_ms=old, cite_count=1), NOW, POLICY)
    ignored = retention_score(thought(created_at_ms=old, ignore_count=2), NOW, POLICY)
    assert base == pytest.approx(0.5)
    assert used == pytest.approx(0.5 * 1.2) and cited == pytest.approx(0.5 * 1.3)
    assert ignored == pytest.approx(0.5 / 2)
    # A retrieval also refreshes the last use: the decay restarts.
    touched = thought(created_at_ms=old, last_accessed_at_ms=NOW, access_count=1)
    assert retention_score(touched, NOW, POLICY) == 1.0


def test_modes_reach_down_to_their_tier() -> None:
    assert min_retention(RetrievalMode.REFLEXIVE, POLICY) == POLICY.hot_threshold
    assert min_retention(RetrievalMode.STANDARD, POLICY) == POLICY.warm_threshold
    assert min_retention(RetrievalMode.DEEP, POLICY) == POLICY.cold_threshold
    assert min_retention(RetrievalMode.EXHAUSTIVE, POLICY) is None


def test_priors() -> None:
    assert salience_decay(thought(salience=0.8), NOW) == pytest.approx(0.8)
    aged = thought(salience=1.0, created_at_ms=NOW - 100 * DAY_MS)
    assert salience_decay(aged, NOW) == pytest.approx(0.36787944, rel=1e-6)  # exp(-1)
    assert usage(thought(), POLICY) == 0.5
    assert usage(thought(cite_count=1), POLICY) > usage(thought(), POLICY)
    links = strongest_links([("a", "b", 0.7), ("a", "c", 0.9), ("b", "x", 1.0)], {"a", "b", "c"})
    assert links == {"a": 0.9, "b": 0.7, "c": 0.9}


def test_lineage_factor_follows_seed_000() -> None:
    refined = thought(id="old")
    refiner = thought(id="new", type=ThoughtType.REFINEMENT, source_ids=("old",))
    assert lineage_factor(refined, {"old"}, {"old", "new"}) == 0.7
    assert lineage_factor(refiner, {"old"}, {"old", "new"}) == 1.2
    assert lineage_factor(refiner, {"old"}, {"new"}) == 1.0  # its source is not a hit

"""The packer over random candidates, budgets, activities and headers, counted with the
real tokenizer (litellm's, offline): the budget is never exceeded, tiers are filled in
order with what one leaves passed on, nothing appears twice, and items are compressed
only when their tier's level does not fit."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from thoughtgraph.domain.context.budget import DEBUGGING_SPLIT, DEFAULT_SPLIT, allocate, split_for
from thoughtgraph.domain.context.compression import labelled, levels_of
from thoughtgraph.domain.context.model import (
    LEVELS,
    TIER_LEVEL,
    TIER_TITLES,
    Candidate,
    Level,
    Packing,
    Tier,
)
from thoughtgraph.domain.context.packer import pack
from thoughtgraph.features.context.tokens import TokenCounter

IDS = [f"id-{n}" for n in range(30)]  # a small pool: candidates often cover the same ids
WORDS = st.sampled_from(
    [
        "deploy",
        "pipeline",
        "GitHub",
        "Actions",
        "PostgreSQL",
        "auth",
        "token",
        "session",
        "retry",
        "payment",
        "Ana",
        "prefers",
        "Result",
        "types",
        "over",
        "try-catch",
        "—",
        "東京",
        "émigré",
        "🙂",
        "1234",
        "the",
        "a",
        "of",
        "to",
        "and",
        "in",
    ]
)
SENTENCE = st.lists(WORDS, min_size=1, max_size=30).map(lambda w: " ".join(w) + ".")
TEXT = st.lists(SENTENCE, min_size=1, max_size=6).map(" ".join)


@pytest.fixture(scope="module")
def count() -> TokenCounter:
    return TokenCounter()


@st.composite
def candidates(draw: st.DrawFn) -> Candidate:
    key = draw(st.sampled_from(IDS))
    extra = draw(st.sets(st.sampled_from(IDS), max_size=2))
    renderings = labelled(draw(st.sampled_from(["fact", "decision"])), levels_of(draw(TEXT)))
    # Some candidates lack levels (a topic index entry has only INDEX).
    dropped = draw(st.sets(st.sampled_from(LEVELS), max_size=2))
    kept = {level: text for level, text in renderings.items() if level not in dropped}
    assume(kept)
    return Candidate(
        key=key,
        tier=draw(st.sampled_from(list(Tier))),
        source="test",
        score=draw(st.floats(0, 3, allow_nan=False)),
        renderings=kept,
        covers=frozenset({key, *extra}),
    )


HEADER = st.one_of(
    st.just(""),
    st.lists(SENTENCE, min_size=1, max_size=4).map(
        lambda lines: (
            "Memory updates since rev 3: 2 created (now rev 5)\n"
            + "\n".join(f"- +created: {line}" for line in lines[:3])
        )
    ),
)
ACTIVITY = st.sampled_from([None, "debugging", "onboarding", "coding", "DEBUGGING "])


def covered(packing: Packing) -> list[str]:
    return [i for item in packing.items for i in item.candidate.covers]


def tier_cost(packing: Packing, tier: Tier, count: Callable[[str], int]) -> int:
    items = [item for item in packing.items if item.tier is tier]
    if not items:
        return 0
    return count(TIER_TITLES[tier] + "\n") + count("\n") + sum(item.tokens for item in items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    st.lists(candidates(), max_size=40),
    st.integers(0, 3000),
    ACTIVITY,
    HEADER,
)
def test_budget_order_and_no_duplicates(
    count: TokenCounter,
    given_candidates: list[Candidate],
    budget: int,
    activity: str | None,
    header: str,
) -> None:
    split = split_for(activity)
    packing = pack(given_candidates, budget, split, count, header=header)

    # The budget is never exceeded, and the count is the tokenizer's on the whole text.
    assert packing.token_count == count(packing.text) <= budget
    # Nothing twice: no id is covered by two items, no key repeats.
    ids = covered(packing)
    assert len(ids) == len(set(ids))
    # Tiers appear in order, each under its title.
    tiers = [item.tier for item in packing.items]
    assert tiers == sorted(tiers)
    positions = [packing.text.index(TIER_TITLES[t]) for t in dict.fromkeys(tiers)]
    assert positions == sorted(positions)
    # Within a tier, items keep their rank (score, then key).
    for tier in Tier:
        ranks = [(-i.candidate.score, i.candidate.key) for i in packing.items if i.tier is tier]
        assert ranks == sorted(ranks)
    # Each item at its tier's level or a less detailed one, its line the candidate's text.
    for item in packing.items:
        assert LEVELS.index(item.level) >= LEVELS.index(TIER_LEVEL[item.tier])
        assert item.line == item.candidate.renderings[item.level]
        assert item.line in packing.text
    # What a tier leaves unused is passed on to the next (its first-pass budget); what the
    # last leaves goes back to the tiers in order (``returned``, spent in the second pass).
    reserved = packing.header_tokens
    shares = allocate(budget - reserved, split)
    usage = {u.tier: u for u in packing.tiers}
    carry = 0
    for tier in Tier:
        spent = tier_cost(packing, tier, count)
        assert spent <= usage[tier].budget
        if not packing.trimmed:  # trimming after the fact changes what was spent
            assert usage[tier].budget - usage[tier].returned == shares[tier] + carry
        carry = usage[tier].budget - spent
        assert usage[tier].items == sum(1 for i in packing.items if i.tier is tier)
    # The header comes first when it is kept.
    if packing.header_tokens:
        assert packing.text.startswith(header)


@settings(max_examples=100, deadline=None)
@given(st.lists(candidates(), min_size=1, max_size=25), ACTIVITY)
def test_with_room_for_everything_every_distinct_item_is_in_at_its_tier_level(
    count: TokenCounter, given_candidates: list[Candidate], activity: str | None
) -> None:
    packing = pack(given_candidates, 200_000, split_for(activity), count)
    ranked = sorted(given_candidates, key=lambda c: (c.tier, -c.score, c.key))
    used: set[str] = set()
    expected = []
    for candidate in ranked:  # the greedy rule, tier by tier, rank by rank
        levels = LEVELS[LEVELS.index(TIER_LEVEL[candidate.tier]) :]
        if candidate.covers & used or not any(lvl in candidate.renderings for lvl in levels):
            continue  # shown already, or no text at its tier's level or below
        expected.append(candidate.key)
        used |= candidate.covers
    assert [item.candidate.key for item in packing.items] == expected
    for item in packing.items:
        preferred = [lvl for lvl in LEVELS[LEVELS.index(TIER_LEVEL[item.tier]) :]]
        first_available = next(lvl for lvl in preferred if lvl in item.candidate.renderings)
        assert item.level == first_available


def test_a_tier_leaves_its_unused_share_to_the_next(count: TokenCounter) -> None:
    text = "The deploy pipeline runs tests, then builds, then ships to staging. " * 3
    relevant = [
        Candidate(
            key=f"r{n}",
            tier=Tier.RELEVANT,
            source="test",
            score=1.0,
            renderings=labelled("fact", levels_of(f"{n} {text}")),
            covers=frozenset({f"r{n}"}),
        )
        for n in range(40)
    ]
    packing = pack(relevant, 2000, DEFAULT_SPLIT, count)
    usage = {u.tier: u for u in packing.tiers}
    # Tier 1 had nothing: its 500 tokens went to tier 2, which used more than its own 750;
    # tiers 3 and 4 had nothing either, and tier 2 took their 750 back.
    assert usage[Tier.CRITICAL].items == 0
    assert usage[Tier.RELEVANT].budget - usage[Tier.RELEVANT].returned == 500 + 750
    assert usage[Tier.RELEVANT].returned > 0
    assert usage[Tier.RELEVANT].tokens > 500 + 750
    assert usage[Tier.RELEVANT].items == len(relevant)  # room for all of them now
    assert packing.token_count <= 2000


def test_debugging_widens_tier_one(count: TokenCounter) -> None:
    assert allocate(8000, DEFAULT_SPLIT) == {
        Tier.CRITICAL: 2000,
        Tier.RELEVANT: 3000,
        Tier.BACKGROUND: 2000,
        Tier.INDEX: 1000,
    }
    assert allocate(8000, DEBUGGING_SPLIT)[Tier.CRITICAL] == 3000
    assert split_for(" Debugging") is DEBUGGING_SPLIT
    assert split_for("reading") is DEFAULT_SPLIT
    critical = [
        Candidate(
            key=f"c{n}",
            tier=Tier.CRITICAL,
            source="test",
            score=1.0,
            renderings={Level.FULL: f"- [error] {n} " + "stack frame at auth/login.ts " * 8},
            covers=frozenset({f"c{n}"}),
        )
        for n in range(200)
    ]
    relevant = [  # competing for what tier 1 may take
        Candidate(
            key=f"r{n}",
            tier=Tier.RELEVANT,
            source="test",
            score=1.0,
            renderings=labelled("fact", levels_of(f"{n} " + "the login form posts to auth " * 8)),
            covers=frozenset({f"r{n}"}),
        )
        for n in range(200)
    ]
    plain = pack(critical + relevant, 4000, split_for(None), count)
    debugging = pack(critical + relevant, 4000, split_for("debugging"), count)
    assert debugging.tiers[0].items > plain.tiers[0].items

"""How a budget is split between the tiers, and how the split follows the activity."""

from __future__ import annotations

from collections.abc import Mapping

from thoughtgraph.domain.context.model import Tier

Split = Mapping[Tier, float]

# The default split: 2,000 / 3,000 / 2,000 / 1,000 of 8,000.
DEFAULT_SPLIT: Split = {
    Tier.CRITICAL: 0.25,
    Tier.RELEVANT: 0.375,
    Tier.BACKGROUND: 0.25,
    Tier.INDEX: 0.125,
}
# The debugging scenario: tier 1 widened to 3,000, tiers 2 and 3 reduced.
DEBUGGING_SPLIT: Split = {
    Tier.CRITICAL: 0.375,
    Tier.RELEVANT: 0.3125,
    Tier.BACKGROUND: 0.1875,
    Tier.INDEX: 0.125,
}
# Starting something new: background (conventions, workflows) and the index matter more.
ONBOARDING_SPLIT: Split = {
    Tier.CRITICAL: 0.2,
    Tier.RELEVANT: 0.3,
    Tier.BACKGROUND: 0.3,
    Tier.INDEX: 0.2,
}
_ACTIVITY_SPLITS: Mapping[str, Split] = {
    "debugging": DEBUGGING_SPLIT,
    "debug": DEBUGGING_SPLIT,
    "fixing": DEBUGGING_SPLIT,
    "incident": DEBUGGING_SPLIT,
    "onboarding": ONBOARDING_SPLIT,
    "exploring": ONBOARDING_SPLIT,
}


def split_for(activity: str | None) -> Split:
    """The tier split for an activity; the default split for any other."""
    if not activity:
        return DEFAULT_SPLIT
    return _ACTIVITY_SPLITS.get(activity.strip().lower(), DEFAULT_SPLIT)


def allocate(total: int, split: Split) -> dict[Tier, int]:
    """Whole tokens per tier, never more than ``total`` together (rounding down; what is
    left over goes to tier 1, filled first)."""
    shares = {tier: int(total * split.get(tier, 0.0)) for tier in Tier}
    shares[Tier.CRITICAL] += max(0, total - sum(shares.values()))
    return shares

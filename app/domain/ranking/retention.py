"""Retention scores and tiers, the same formula the store filters with (the
``retention`` macro in app/store/cypher.py; a test holds them together).

    decay     = 0.5 ^ (days since last use / half-life)   last use: last retrieval or
                                                          citation, else creation
    activity  = retrievals + cite_weight x citations
    retention = min(1, decay x (1 + activation_boost x activity) / (1 + ignore_penalty x ignores))

Pinned thoughts are always 1 (hot). Each retrieval both refreshes ``last use`` and adds
an activation (spaced repetition); citing counts more; being retrieved and ignored
divides the score down, so what agents keep ignoring sinks to cold and archived.
"""

from __future__ import annotations

from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.retrieval import RetentionTier, RetrievalMode, UsagePolicy
from thoughtgraph.domain.units import DAY_MS


def retention_score(thought: Thought, now_ms: int, policy: UsagePolicy) -> float:
    if thought.pinned:
        return 1.0
    last_use = thought.last_accessed_at_ms or thought.created_at_ms
    days = max(0.0, (now_ms - last_use) / DAY_MS)
    decay: float = 0.5 ** (days / policy.half_life_days)
    activity = thought.access_count + policy.cite_weight * thought.cite_count
    boosted = decay * (1.0 + policy.activation_boost * activity)
    return min(1.0, boosted / (1.0 + policy.ignore_penalty * thought.ignore_count))


def tier_of(score: float, policy: UsagePolicy) -> RetentionTier:
    if score >= policy.hot_threshold:
        return RetentionTier.HOT
    if score >= policy.warm_threshold:
        return RetentionTier.WARM
    if score >= policy.cold_threshold:
        return RetentionTier.COLD
    return RetentionTier.ARCHIVED


def min_retention(mode: RetrievalMode, policy: UsagePolicy) -> float | None:
    """The lowest retention a mode reaches; None: every tier (exhaustive)."""
    return {
        RetrievalMode.REFLEXIVE: policy.hot_threshold,
        RetrievalMode.STANDARD: policy.warm_threshold,
        RetrievalMode.DEEP: policy.cold_threshold,
        RetrievalMode.EXHAUSTIVE: None,
    }[mode]


def includes_forgotten(mode: RetrievalMode) -> bool:
    """Only the audit mode reaches soft-deleted thoughts."""
    return mode is RetrievalMode.EXHAUSTIVE

"""The final score of a hybrid hit, and its explanation.

    relevance      = RRF fusion / best possible fusion                      (fusion.py)
    prior          = 0.35 salience_decay + 0.30 usage + 0.15 pheromone + 0.20 related
    prior_factor   = 0.5 + 0.5 prior        (the prior reorders, it never buries a match)
    score          = min(1, relevance x prior_factor x lineage_factor) x supersession_factor

``salience_decay`` is seed 004's ``salience x exp(-0.01 x age_days)``, age from the time
the thought became true (validFrom, else creation). ``usage`` is the retention score
(recency of use, retrievals, citations, ignores) times how much the thought was used:
``retention x (0.5 + 0.5 a / (a + 10))`` with ``a = retrievals + cite_weight x cites``.
``pheromone`` is ``1 - 1/weight`` (weights start at 1). ``related`` is the strongest
RELATED_TO link from the hit to another candidate of the same search: knowledge the rest
of the answer connects to. The lineage factor is seed 000's (x0.7 for a refined or
consolidated hit, x1.2 for a hit refining one of those, within the cap of 1) and the
supersession factor the configured ``superseded_rank_factor``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.domain.models import Thought
from app.domain.retrieval import ScoreExplanation, UsagePolicy
from app.domain.rules import MAX_SCORE, REFINEMENT_BOOST, SUPERSEDED_FACTOR
from app.retrieval.fusion import Fused
from app.retrieval.retention import DAY_MS

AGE_DECAY_PER_DAY = 0.01  # seed 004
PRIOR_FLOOR = 0.5
WEIGHTS = {"salience_decay": 0.35, "usage": 0.30, "pheromone": 0.15, "related": 0.20}
USE_SATURATION = 10.0  # activity at which "how much it was used" is half way


@dataclass(frozen=True)
class Candidate:
    """A thought either list found, with what the store computed for it."""

    thought: Thought
    similarity: float  # cosine to the query, -1..1
    retention: float  # before the cap at 1
    text_score: float | None = None  # set when the full-text list found it


def salience_decay(thought: Thought, now_ms: int) -> float:
    age_days = max(0.0, (now_ms - thought.effective_valid_from_ms) / DAY_MS)
    return max(0.0, min(1.0, thought.salience)) * math.exp(-AGE_DECAY_PER_DAY * age_days)


def usage(thought: Thought, retention: float, policy: UsagePolicy) -> float:
    activity = thought.access_count + policy.cite_weight * thought.cite_count
    return retention * (0.5 + 0.5 * activity / (activity + USE_SATURATION))


def pheromone(thought: Thought) -> float:
    return 1.0 - 1.0 / max(1.0, thought.pheromone_weight)


def lineage_factor(thought: Thought, refined_ids: set[str], candidate_ids: set[str]) -> float:
    if thought.id in refined_ids:
        return SUPERSEDED_FACTOR
    if any(source in refined_ids and source in candidate_ids for source in thought.source_ids):
        return REFINEMENT_BOOST
    return 1.0


def explain(
    candidate: Candidate,
    fused: Fused,
    *,
    now_ms: int,
    policy: UsagePolicy,
    related: float,
    lineage: float,
    supersession: float,
) -> ScoreExplanation:
    thought = candidate.thought
    parts = {
        "salience_decay": salience_decay(thought, now_ms),
        "usage": usage(thought, candidate.retention, policy),
        "pheromone": pheromone(thought),
        "related": max(0.0, min(1.0, related)),
    }
    prior = sum(WEIGHTS[name] * value for name, value in parts.items())
    prior_factor = PRIOR_FLOOR + (1.0 - PRIOR_FLOOR) * prior
    score = min(MAX_SCORE, fused.relevance * prior_factor * lineage) * supersession
    vector_rank, text_rank = fused.ranks
    return ScoreExplanation(
        vector_rank=vector_rank,
        text_rank=text_rank,
        text_score=candidate.text_score,
        fusion=fused.fusion,
        relevance=fused.relevance,
        prior=prior,
        prior_factor=prior_factor,
        lineage_factor=lineage,
        supersession_factor=supersession,
        score=score,
        **parts,
    )


def strongest_links(
    pairs: Sequence[tuple[str, str, float]], candidate_ids: set[str]
) -> dict[str, float]:
    """Per candidate, its strongest RELATED_TO link to another candidate."""
    best: dict[str, float] = {}
    for a, b, strength in pairs:
        if a in candidate_ids and b in candidate_ids and a != b:
            best[a] = max(best.get(a, 0.0), strength)
            best[b] = max(best.get(b, 0.0), strength)
    return best


def supersession_factor(
    thought: Thought, superseders: Mapping[str, str], factor: float
) -> tuple[float, str | None]:
    by = superseders.get(thought.id) or thought.superseded_by
    return (factor, by) if by is not None else (1.0, None)

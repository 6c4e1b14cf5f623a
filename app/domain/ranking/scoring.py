"""The final score of a hybrid hit, and its explanation.

    relevance      = 0.55 x closeness + 0.45 x keyword
    closeness      = (cosine - low) / (highest - low),  low = min(lowest, highest - 0.2)
    keyword        = BM25 / highest BM25                                over the candidates
    prior          = 0.35 salience_decay + 0.30 usage + 0.15 pheromone + 0.20 related
    prior_factor   = 0.9 + 0.1 prior        (the prior breaks near-ties, it never buries a match)
    score          = min(1, relevance x prior_factor x lineage_factor) x supersession_factor
                     x kind_factor

Both sides are scored by the service on the candidates of either list, so the fusion is
the same on both engines: the cosine (which both engines report on one scale) and BM25
of the query's words (``keywords.py``; the engines' own full-text scores do not
compare). Each is scaled to 0..1 over the candidates, and the weight of the vector side,
VECTOR_WEIGHT, was chosen on training folds of a conversation benchmark and measured on
the fold left out (docs/evaluation.md, ``thoughtgraph eval fusion``). The prior weighs
0.1 of the score, so it breaks near-ties and never buries a match.

``salience_decay`` is ``salience x exp(-0.01 x age_days)``, age from the time
the thought became true (validFrom, else creation). ``usage`` is what agents said of the
thought: ``(0.5 + 0.5 c / (c + 10)) / (1 + ignore_penalty x ignores)`` with
``c = cite_weight x cites``; retrievals stay out (a retrieval says what was shown, not
what helped).
``pheromone`` is ``1 - 1/weight`` (weights start at 1). ``related`` is the strongest
RELATED_TO link from the hit to another candidate of the same search: knowledge the rest
of the answer connects to. The lineage factor is x0.7 for a refined or
consolidated hit, x1.2 for a hit refining one of those, within the cap of 1) and the
supersession factor the configured ``superseded_rank_factor``. The kind factor is the
configured ``insight_rank_factor`` for an insight (what the insights job inferred about a
person ranks below what was said), else 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.domain.ranking.fusion import Fused
from thoughtgraph.domain.retrieval import ScoreExplanation, UsagePolicy
from thoughtgraph.domain.rules import MAX_SCORE, REFINEMENT_BOOST, SUPERSEDED_FACTOR
from thoughtgraph.domain.units import DAY_MS

AGE_DECAY_PER_DAY = 0.01
PRIOR_FLOOR = 0.9
VECTOR_WEIGHT = 0.55  # the vector side's share of relevance, chosen on training folds
# The least spread of cosines scaled to the full 0..1: a gap of a few hundredths between
# candidates (two thoughts in a new namespace, fifty weak matches) must not decide.
MIN_COSINE_SPREAD = 0.2
WEIGHTS = {"salience_decay": 0.35, "usage": 0.30, "pheromone": 0.15, "related": 0.20}
USE_SATURATION = 10.0  # activity at which "how much it was used" is half way


class Ranked(Protocol):
    """What the score reads of a thought: a whole ``Thought`` or a ``RankingThought``."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> ThoughtKind: ...
    @property
    def salience(self) -> float: ...
    @property
    def effective_valid_from_ms(self) -> int: ...
    @property
    def cite_count(self) -> int: ...
    @property
    def ignore_count(self) -> int: ...
    @property
    def pheromone_weight(self) -> float: ...
    @property
    def source_ids(self) -> tuple[str, ...]: ...
    @property
    def superseded_by(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class RankingThought:
    """A search candidate as the store projects it for ranking (``ranking_fields``): the
    hits are read whole once ranked, so a few hundred candidates carry a third of a
    thought's properties."""

    id: str
    content: str
    kind: ThoughtKind
    salience: float
    created_at_ms: int
    valid_from_ms: int | None
    cite_count: int
    ignore_count: int
    pheromone_weight: float
    source_ids: tuple[str, ...]
    superseded_by: str | None

    @property
    def effective_valid_from_ms(self) -> int:
        return self.valid_from_ms if self.valid_from_ms is not None else self.created_at_ms


@dataclass(frozen=True)
class Candidate:
    """A thought either list found, with what the store computed for it."""

    thought: RankingThought
    similarity: float  # cosine to the query, -1..1
    retention: float  # before the cap at 1
    text_score: float | None = None  # set when the full-text list found it


def closeness(similarities: Sequence[float]) -> list[float]:
    """Cosines scaled over the candidates: the highest 1, the lowest 0 unless they spread
    less than MIN_COSINE_SPREAD (then a cosine counts from the highest minus the spread,
    so a few candidates close together stay close, not 1 and 0)."""
    if not similarities:
        return []
    high = max(similarities)
    low = min(min(similarities), high - MIN_COSINE_SPREAD)
    return [(s - low) / (high - low) for s in similarities]


def relevance_of(closeness: float, keyword: float, vector_weight: float = VECTOR_WEIGHT) -> float:
    """The fused relevance of a candidate from its two scaled sides, 0..1."""
    value = vector_weight * closeness + (1.0 - vector_weight) * keyword
    return min(1.0, max(0.0, value))


def salience_decay(thought: Ranked, now_ms: int) -> float:
    age_days = max(0.0, (now_ms - thought.effective_valid_from_ms) / DAY_MS)
    return max(0.0, min(1.0, thought.salience)) * math.exp(-AGE_DECAY_PER_DAY * age_days)


def usage(thought: Ranked, policy: UsagePolicy) -> float:
    """How useful agents said the thought was: cited up, ignored down. Being retrieved is
    not being useful, and retrievals (their count and recency) stay out of the ranking:
    counting them would let every search push what it returned above what the next
    question needs. Retrievals keep a thought from being forgotten (its retention)."""
    cited = policy.cite_weight * thought.cite_count
    used = 0.5 + 0.5 * cited / (cited + USE_SATURATION)
    return used / (1.0 + policy.ignore_penalty * thought.ignore_count)


def pheromone(thought: Ranked) -> float:
    return 1.0 - 1.0 / max(1.0, thought.pheromone_weight)


def lineage_factor(thought: Ranked, refined_ids: set[str], candidate_ids: set[str]) -> float:
    if thought.id in refined_ids:
        return SUPERSEDED_FACTOR
    # A consolidation may have hundreds of sources: the sets are intersected in C, and
    # most searches have no refined hit at all.
    if refined_ids and not candidate_ids.isdisjoint(refined_ids.intersection(thought.source_ids)):
        return REFINEMENT_BOOST
    return 1.0


def prior_parts(
    thought: Ranked, *, now_ms: int, policy: UsagePolicy, related: float
) -> dict[str, float]:
    """The four priors of a candidate, each 0..1 (weighed by WEIGHTS)."""
    return {
        "salience_decay": salience_decay(thought, now_ms),
        "usage": usage(thought, policy),
        "pheromone": pheromone(thought),
        "related": max(0.0, min(1.0, related)),
    }


def weighted_prior(parts: Mapping[str, float]) -> float:
    return sum(WEIGHTS[name] * value for name, value in parts.items())


def final_score(
    relevance: float, prior: float, lineage: float, supersession: float, kind: float
) -> tuple[float, float]:
    """The prior factor and the score (the formula at the top of this module)."""
    prior_factor = PRIOR_FLOOR + (1.0 - PRIOR_FLOOR) * prior
    return prior_factor, min(MAX_SCORE, relevance * prior_factor * lineage) * supersession * kind


def score_of(
    thought: Ranked,
    *,
    now_ms: int,
    policy: UsagePolicy,
    relevance: float,
    related: float,
    lineage: float,
    supersession: float,
    kind: float = 1.0,
) -> float:
    """The score alone, as ``explain`` reports it: what ranking a search's few hundred
    candidates needs before the k best are explained."""
    parts = prior_parts(thought, now_ms=now_ms, policy=policy, related=related)
    return final_score(relevance, weighted_prior(parts), lineage, supersession, kind)[1]


def explain(
    candidate: Candidate,
    fused: Fused,
    *,
    now_ms: int,
    policy: UsagePolicy,
    relevance: float,
    keyword_score: float,
    related: float,
    lineage: float,
    supersession: float,
    kind: float = 1.0,
) -> ScoreExplanation:
    parts = prior_parts(candidate.thought, now_ms=now_ms, policy=policy, related=related)
    prior = weighted_prior(parts)
    prior_factor, score = final_score(relevance, prior, lineage, supersession, kind)
    vector_rank, text_rank = fused.ranks
    return ScoreExplanation(
        vector_rank=vector_rank,
        text_rank=text_rank,
        text_score=candidate.text_score,
        keyword_score=keyword_score,
        fusion=fused.fusion,
        relevance=relevance,
        prior=prior,
        prior_factor=prior_factor,
        lineage_factor=lineage,
        supersession_factor=supersession,
        kind_factor=kind,
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
    thought: Ranked, superseders: Mapping[str, str], factor: float
) -> tuple[float, str | None]:
    by = superseders.get(thought.id) or thought.superseded_by
    return (factor, by) if by is not None else (1.0, None)


def kind_factor(thought: Ranked, insight_factor: float) -> float:
    """``insight_factor`` for an insight (inferred about a person), else 1."""
    return insight_factor if thought.kind is ThoughtKind.INSIGHT else 1.0

"""Pure rules of thought lineage: pheromone inheritance and lineage-aware ranking."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from thoughtgraph.domain.models import ScoredThought, SearchHit, ThoughtType

PHEROMONE_FLOOR = 1.0
PHEROMONE_INHERITANCE = 0.5
SUPERSEDED_FACTOR = 0.7
REFINEMENT_BOOST = 1.2
MAX_SCORE = 1.0
GUIDANCE_SIMILARITY = 0.85
# Supersession detection resolves an "update" contradiction for the newer thought only
# when the judge was at least this sure; below, it stays open for a person.
SUPERSESSION_MIN_CONFIDENCE = 0.65


def inherited_pheromone(kind: ThoughtType, source_weights: Sequence[float]) -> float:
    """Starting weight of a new thought.

    Originals start at the floor. A refinement inherits half its source's weight and a
    consolidation half the mean of its sources' weights, never below the floor: enough
    credibility to be seen, not enough to outrank what earned its weight through use.
    """
    if kind is ThoughtType.ORIGINAL or not source_weights:
        return PHEROMONE_FLOOR
    mean = sum(source_weights) / len(source_weights)
    return max(PHEROMONE_FLOOR, mean * PHEROMONE_INHERITANCE)


def rank_with_lineage(
    hits: Sequence[ScoredThought], newest_refiner: Mapping[str, str]
) -> list[SearchHit]:
    """Mark superseded hits and re-rank so the latest iteration comes first.

    ``newest_refiner`` maps a thought id to the id of its newest refinement or
    consolidation. A superseded hit keeps its place in the results (nothing disappears)
    but its score is multiplied by 0.7; a hit that refines or consolidates another hit
    of the same result set that is superseded gets x1.2, capped at 1.0.
    """
    in_result = {hit.thought.id for hit in hits}
    superseded_in_result = {tid for tid in in_result if tid in newest_refiner}
    ranked: list[SearchHit] = []
    for hit in hits:
        thought = hit.thought
        refined_by = newest_refiner.get(thought.id)
        score = hit.similarity
        if refined_by is not None:
            score *= SUPERSEDED_FACTOR
        elif any(source in superseded_in_result for source in thought.source_ids):
            score = min(MAX_SCORE, score * REFINEMENT_BOOST)
        ranked.append(
            SearchHit(
                thought=thought,
                similarity=hit.similarity,
                score=score,
                refined_by=refined_by,
                superseded=refined_by is not None,
            )
        )
    # Stable sort: equal scores keep the index's order.
    ranked.sort(key=lambda h: h.score, reverse=True)
    return ranked


def guidance_message(similar_id: str, preview: str) -> str:
    return (
        f"Similar thought exists (id: {similar_id}, preview: '{preview}'). "
        f'Consider refine(sourceId: "{similar_id}") with the updated insight instead.'
    )


def rank_with_supersession(
    hits: Sequence[SearchHit], superseders: Mapping[str, str], factor: float
) -> list[SearchHit]:
    """Mark hits a newer thought SUPERSEDES (or that a merge retired) and rank them
    below: their score is multiplied by ``factor``. Nothing disappears here; callers
    asking for current knowledge only never see them (the store leaves them out)."""
    ranked: list[SearchHit] = []
    for hit in hits:
        by = superseders.get(hit.thought.id) or hit.thought.superseded_by
        if by is None:
            ranked.append(hit)
            continue
        ranked.append(
            hit.model_copy(
                update={"superseded": True, "superseded_by": by, "score": hit.score * factor}
            )
        )
    ranked.sort(key=lambda h: h.score, reverse=True)
    return ranked


_WORD = re.compile(r"[a-z0-9]+(?:[.:/-][a-z0-9]+)*")
_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "with",
        "as",
        "by",
    ]
)


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _FILLER}


def near_duplicate_text(first: str, second: str) -> bool:
    """Whether two similar statements say the same thing in other words, so merging them
    loses nothing: the content words of one contain the other's (punctuation, case and
    filler aside). Embedding similarity alone is not enough: "the billing service listens
    on 8080" and "the auth service listens on 8080" are 0.9 similar and both true."""
    a, b = _content_words(first), _content_words(second)
    if not a or not b:
        return False
    return a <= b or b <= a


def connected_groups(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Connected groups of ids (union-find), each sorted, largest first."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(root(x), []).append(x)
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=len, reverse=True)

"""Reciprocal rank fusion of the vector and full-text candidate lists: the union of the
two lists, each candidate's rank in each, and its RRF value (k = 60, Cormack et al. 2009).

The union and the ranks feed the score (``scoring.py``); the RRF value is reported in
``explain`` beside it, not used as the score's relevance: equal weight for noisy full-text
ranks and flat gaps between close hits ranked worse than the cosine plus a bonus by
full-text rank (docs/design/search.md).

``relevance`` here is the fused value divided by its best possible value (rank 1 in every
list that ran), on 0..1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True)
class Fused:
    id: str
    fusion: float  # sum of 1/(k + rank) over the lists that hold the id
    relevance: float  # fusion / best possible fusion, 0..1
    ranks: tuple[int | None, ...]  # 1-based rank in each list, None where absent


def reciprocal_rank_fusion(lists: Sequence[Sequence[str]], k: int = RRF_K) -> list[Fused]:
    """Fuse ranked id lists (best first); ties keep the first list's order, then the
    next's. Lists that are empty do not count toward the best possible value, so a
    search whose full-text side had no words is scored on its vector side alone."""
    ran = [ids for ids in lists if ids]
    if not ran:
        return []
    best = sum(1.0 / (k + 1) for _ in ran)
    ranks: dict[str, list[int | None]] = {}
    order: list[str] = []
    for position, ids in enumerate(lists):
        for rank, doc in enumerate(ids, start=1):
            slot = ranks.get(doc)
            if slot is None:
                slot = ranks[doc] = [None] * len(lists)
                order.append(doc)
            if slot[position] is None:  # a repeated id keeps its best rank
                slot[position] = rank
    fused = []
    for doc in order:
        value = sum(1.0 / (k + r) for r in ranks[doc] if r is not None)
        fused.append(Fused(doc, value, min(1.0, value / best), tuple(ranks[doc])))
    # Stable: equal fusion keeps first-seen order (vector list first).
    fused.sort(key=lambda f: f.fusion, reverse=True)
    return fused

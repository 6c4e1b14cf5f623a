"""The near-duplicate rule by meaning computed in numpy: the pairs the engine's
``thought.close_pairs`` must find, and the close pairs the domain tests hand to
``newer_first``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from thoughtgraph.domain.ranking.near_duplicates import NEAR_DUPLICATE_COSINE


def close_pairs(
    vectors: Mapping[str, Sequence[float]], cosine: float = NEAR_DUPLICATE_COSINE
) -> set[frozenset[str]]:
    """The pairs of ids whose vectors' cosine is at least ``cosine`` (one matrix product)."""
    ids = [tid for tid, vector in vectors.items() if len(vector)]
    if len(ids) < 2:
        return set()
    matrix = np.asarray([vectors[tid] for tid in ids], dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    units = matrix / np.where(norms > 0, norms, 1.0)
    similar = np.argwhere(np.triu(units @ units.T, k=1) >= cosine)
    return {frozenset((ids[a], ids[b])) for a, b in similar.tolist()}

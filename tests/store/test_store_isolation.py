"""Tenant isolation in the store contract: a namespace's vector search returns its true
nearest neighbours, whatever the other namespaces hold, on both engines."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CONTRACT_DIMENSION
from tests.store.test_store_contract import next_ms
from tests.support import LoopThread, repos
from thoughtgraph.domain.models import new_thought_id
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.tools.bench.data import BenchThought

D = CONTRACT_DIMENSION


# More than the old shared index's widest candidate list (10,000): with one vector index
# for every namespace, the small namespace below got no hits at all.
CROWD_SIZE = 12_000
SMALL_SIZE = 40


def test_small_namespace_beside_a_much_larger_one_gets_its_exact_top_k(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """Each namespace searches its own vector index: a small namespace gets exactly its
    brute-force top k even when a much larger one sits nearer to every query."""
    rng = np.random.default_rng(11)
    queries = unit_vectors(rng, 5)
    # The crowd hugs the queries (cosine ~0.9 to one of them); the small namespace is
    # spread at random, so every one of its vectors is farther from every query.
    crowd_vectors = (
        unit_vectors(rng, CROWD_SIZE) * 0.45 + queries[rng.integers(0, len(queries), CROWD_SIZE)]
    )
    crowd_vectors /= np.linalg.norm(crowd_vectors, axis=1, keepdims=True)
    crowd = synthetic(crowd_vectors)
    for start in range(0, CROWD_SIZE, 2_000):
        batch = crowd[start : start + 2_000]
        assert loop.run(
            repos(store).thoughts.bulk_create_originals(ns + "-crowd", batch), 300
        ) == len(batch)
    small_vectors = unit_vectors(rng, SMALL_SIZE)
    small = synthetic(small_vectors)
    assert loop.run(repos(store).thoughts.bulk_create_originals(ns, small)) == SMALL_SIZE
    for query in queries:
        similarities = small_vectors @ query
        expected = [small[int(i)].id for i in np.argsort(-similarities)[:10]]
        hits = loop.run(repos(store).thoughts.nearest(ns, query.tolist(), 10, -1.0))
        assert [hit.thought.id for hit in hits] == expected
        for hit in hits:
            index = next(i for i, t in enumerate(small) if t.id == hit.thought.id)
            assert hit.similarity == pytest.approx(float(similarities[index]), abs=1e-4)
    crowd_hits = loop.run(
        repos(store).thoughts.nearest(ns + "-crowd", queries[0].tolist(), 10, -1.0)
    )
    assert len(crowd_hits) == 10 and all(hit.similarity > 0.8 for hit in crowd_hits)


def unit_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    matrix = rng.standard_normal((count, D))
    normalized: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return normalized


def synthetic(vectors: np.ndarray) -> list[BenchThought]:
    base = next_ms()
    return [
        BenchThought(
            id=new_thought_id(),
            content=f"synthetic {i}",
            agent_id="bulk",
            agent_name="Bulk",
            tags=(),
            created_at_ms=base + i,
            embedding=row,
        )
        for i, row in enumerate(vectors.tolist())
    ]

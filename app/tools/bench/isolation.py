"""Tenant isolation: a small namespace's search, alone and beside the bench's big namespace.

A namespace's search must return its true nearest neighbours with a latency set by its own
size, whatever the other namespaces hold. The probe loads a small namespace first, times
its store search while it is the only data, and again after every load of the big
namespace; it also checks each answer against the exact (brute-force) top k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from thoughtgraph.tools.bench.data import ThoughtFactory, unit_vectors
from thoughtgraph.tools.bench.service import BenchSetupError, ServiceThread
from thoughtgraph.tools.bench.timing import Latency, time_async

SMALL_SIZE = 30
ISOLATION_K = 10
SMALL_SEED = 424242
PROBE_SEED = 99


@dataclass(frozen=True)
class IsolationResult:
    latency: Latency
    exact_answers: int  # queries whose hits were exactly the brute-force top k
    queries: int

    @property
    def all_exact(self) -> bool:
        return self.exact_answers == self.queries


class IsolationProbe:
    """Owns the small namespace: its vectors, its query vectors, the expected answers."""

    def __init__(self, namespace: str, *, iterations: int, warmup: int) -> None:
        self.namespace = namespace
        self.iterations = iterations
        self.warmup = warmup
        self._ids: list[str] = []
        self._vectors = np.empty((0, 0))
        rng = np.random.default_rng(PROBE_SEED)
        self._queries = unit_vectors(rng, iterations + max(warmup, iterations))
        self._expected: list[list[str]] = []
        self.alone: IsolationResult | None = None

    def load(self, service: ServiceThread) -> None:
        thoughts = ThoughtFactory(seed=SMALL_SEED).batch(SMALL_SIZE)
        created = service.call(
            service.services.repos.thoughts.bulk_create_originals(self.namespace, thoughts)
        )
        if created != SMALL_SIZE:
            raise BenchSetupError(f"the small namespace got {created} of {SMALL_SIZE} thoughts")
        self._ids = [t.id for t in thoughts]
        self._vectors = np.asarray([t.embedding for t in thoughts], dtype=np.float64)
        similarities = self._queries @ self._vectors.T
        order = np.argsort(-similarities, axis=1)[:, :ISOLATION_K]
        self._expected = [[self._ids[int(i)] for i in row] for row in order]

    def measure(self, service: ServiceThread) -> IsolationResult:
        """Time the small namespace's search. The first measurement is the service's first
        work, so it warms up for as many calls as it times (a cold JVM or cache would make
        "alone" slow and every later ratio flattering)."""
        repos = service.services.repos
        queries = self._queries.tolist()
        answers: dict[int, list[str]] = {}

        async def search(i: int) -> None:
            hits = await repos.thoughts.nearest(self.namespace, queries[i], ISOLATION_K, -1.0)
            answers[i] = [hit.thought.id for hit in hits]

        warmup = self.warmup if self.alone is not None else max(self.warmup, self.iterations)
        latency = service.call(time_async(search, iterations=self.iterations, warmup=warmup))
        exact = sum(1 for i, got in answers.items() if got == self._expected[i])
        result = IsolationResult(latency=latency, exact_answers=exact, queries=len(answers))
        if self.alone is None:
            self.alone = result
        return result

    def ratio(self, beside: IsolationResult) -> float:
        if self.alone is None:
            raise BenchSetupError("the small namespace was not measured alone first")
        return beside.latency.p50_ms / self.alone.latency.p50_ms

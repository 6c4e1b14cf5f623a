"""Benchmark rows of hybrid search: the search itself without the query embedding, and
the query embedding's own cost, recall and context assembly, each p50/p95 (issue 7's
targets at 100k thoughts: hybrid search under 20 ms p50 without the embedding,
assembleContext under 100 ms p50)."""

from __future__ import annotations

from collections.abc import Sequence

from app.bench.service import ServiceThread
from app.bench.timing import Latency, time_async
from app.context.model import Signals
from app.domain.retrieval import RetrievalOptions

HYBRID_K = 10
RECALL_K = 5
CONTEXT_BUDGET = 8000
# The benchmark must not change what it measures: no usage counters written.
OPTIONS = RetrievalOptions(hybrid=True, record_access=False)
PLAIN_OPTIONS = RetrievalOptions(hybrid=False, record_access=False)


def measure_hybrid(
    service: ServiceThread,
    namespace: str,
    texts: Sequence[str],
    *,
    iterations: int,
    warmup: int,
) -> list[tuple[str, Latency]]:
    services = service.services
    embeddings = [service.call(services.embedder.async_embed_query(t)) for t in texts]

    async def hybrid(i: int) -> None:
        await services.search.search_embedded(
            namespace, texts[i], embeddings[i], k=HYBRID_K, options=OPTIONS
        )

    async def plain(i: int) -> None:
        await services.search.search_embedded(
            namespace, texts[i], embeddings[i], k=HYBRID_K, options=PLAIN_OPTIONS
        )

    async def embed(i: int) -> None:
        await services.embedder.async_embed_query(texts[i])

    async def recall(i: int) -> None:
        await services.recall.recall(namespace, texts[i], k=RECALL_K)

    async def assemble(i: int) -> None:
        await services.context.assemble(
            namespace, budget=CONTEXT_BUDGET, signals=Signals(query=texts[i])
        )

    times = {"iterations": iterations, "warmup": warmup}
    return [
        (
            f"hybrid search k={HYBRID_K}, no query embedding (SearchService)",
            service.call(time_async(hybrid, **times)),
        ),
        (
            f"plain vector search k={HYBRID_K}, no query embedding (hybrid off)",
            service.call(time_async(plain, **times)),
        ),
        ("query embedding alone (the bench's embedder)", service.call(time_async(embed, **times))),
        (
            f"recall k={RECALL_K}, offline answer (RecallService)",
            service.call(time_async(recall, **times)),
        ),
        (
            f"assembleContext budget={CONTEXT_BUDGET} (ContextService)",
            service.call(time_async(assemble, **times)),
        ),
    ]

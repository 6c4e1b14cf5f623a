"""Throughput and single-query latency of the local embedder (the real model, offline)."""

from __future__ import annotations

import sys
import time

from thoughtgraph.settings import Settings
from thoughtgraph.tools.bench.data import QueryFactory
from thoughtgraph.tools.bench.report import Row
from thoughtgraph.tools.bench.timing import time_sync


def measure_local_embedder(
    settings: Settings, *, sentences: int, queries: int, warmup: int
) -> list[Row]:
    from thoughtgraph.llm.embedders import LocalEmbedder

    print("bench: loading the local embedder", file=sys.stderr, flush=True)
    started = time.perf_counter()
    embedder = LocalEmbedder.load(settings)
    load_s = time.perf_counter() - started

    texts = QueryFactory(seed=11).sentences(sentences)
    embedder.embed_documents(QueryFactory(seed=12).sentences(embedder.batch_size))  # warm-up
    print(f"bench: embedding {len(texts):,} sentences", file=sys.stderr, flush=True)
    started = time.perf_counter()
    embedder.embed_documents(texts)
    spent = time.perf_counter() - started

    one = QueryFactory(seed=13).texts(warmup + queries)
    latency = time_sync(lambda i: embedder.embed_query(one[i]), iterations=queries, warmup=warmup)
    label = f"local embedder {embedder.name}"
    return [
        Row(
            None,
            f"{label}: embed_documents, batch {embedder.batch_size}",
            value=f"{len(texts) / spent:,.1f} sentences/s ({len(texts):,} sentences)",
        ),
        Row(None, f"{label}: embed_query (one text)", latency),
        Row(None, f"{label}: model load", value=f"{load_s:.2f} s"),
    ]

"""``thoughtgraph bench``: latency and throughput of each layer, printed as one table.

Synthetic thoughts with seeded random unit vectors are loaded at each size (so no
embedding time is spent), then the raw engine vector query, the store's search, the
search service, GraphQL ``search`` over HTTP and ``lineage`` on a 10-deep chain are timed
against the real app served by uvicorn in this process. The local embedder is timed last.
"""

from thoughtgraph.tools.bench.command import run_bench

__all__ = ["run_bench"]

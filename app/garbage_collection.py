"""The garbage collector's settings for a process that serves (the API, the MCP server).

CPython collects its youngest generation every 700 container allocations. A search reads
a few hundred candidate rows and the engine's client builds a list for every value, so
the collector ran dozens of times per request, and each collection that reached the older
generations walked the libraries' objects too (about 475,000 once the service has
started: litellm, strawberry, the tokenizer). Under the load test that was a quarter of
the service's CPU (docs/operations/load-test.md). A serving process therefore collects
its youngest generation every YOUNG_THRESHOLD allocations, and moves what exists once it
has started out of the collector's sight (``gc.freeze``: those objects live as long as
the process anyway). Reference counting still frees everything that is not in a cycle at
once; only cyclic garbage waits a little longer.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 100_000
OLDER_THRESHOLDS = (50, 100)  # collections of the younger generation between older ones


def tune_for_serving() -> None:
    """Collect what the start left behind, freeze the rest, and raise the thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)

"""``thoughtgraph bench``'s entry: the arguments checked, the run, the report printed."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Sequence

from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.settings import Settings
from thoughtgraph.tools.bench.maintenance import Maintenance
from thoughtgraph.tools.bench.runner import Bench
from thoughtgraph.tools.bench.service import BenchSetupError


def run_bench(
    settings: Settings,
    *,
    sizes: Sequence[int],
    queries: int,
    embedder_sentences: int,
    maintenance: Maintenance | None = None,
    ingest: int = 0,
    restart: bool = True,
    reembed: int = 0,
) -> int:
    """Run the benchmark and print its report.

    0 when it ran, whether or not the targets were met (it reports, it does not test);
    1 when it could not run. A ``ThoughtgraphError`` propagates for the CLI to print.
    """
    if any(size < 1 for size in sizes):
        print("thoughtgraph bench: --sizes must be positive integers", file=sys.stderr)
        return 1
    plan = maintenance or Maintenance.none()
    if any(size < 1 for size in plan.consolidation) or plan.contributes < 1:
        print(
            "thoughtgraph bench: --consolidation sizes and --contributes must be positive",
            file=sys.stderr,
        )
        return 1
    if plan.scan_preload < 0:
        print("thoughtgraph bench: --scan-preload must be >= 0", file=sys.stderr)
        return 1
    if queries < 1 or embedder_sentences < 0:
        print("thoughtgraph bench: --queries must be >= 1 and --sentences >= 0", file=sys.stderr)
        return 1
    # httpx logs every request at INFO: a log line per timed request would be timed too.
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    bench = Bench(
        settings,
        sizes=sizes,
        queries=queries,
        sentences=embedder_sentences,
        maintenance=plan,
        ingest=ingest,
        restart=restart,
        reembed=reembed,
    )
    try:
        bench.run()
    except BenchSetupError as exc:
        bench.print_report()
        print(f"thoughtgraph bench: failed: {exc}", file=sys.stderr)
        return 1
    except ThoughtgraphError:
        bench.print_report()
        raise
    except Exception:
        bench.print_report()
        traceback.print_exc()
        print("thoughtgraph bench: failed with an unexpected error (above)", file=sys.stderr)
        return 1
    bench.print_report()
    return 0

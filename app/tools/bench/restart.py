"""How long a restart keeps the service from answering: the service (and, on the embedded
engine, its engine) stopped after a size is measured, and a fresh one started on the same
data. Timed from the start until ``/readyz`` answers and until a first search through the
store's indexes has answered. The embedded engine answers nothing while it loads its data
and rebuilds every index, so this is the downtime of a restart or a crash."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.applications import Starlette

from thoughtgraph.tools.bench.report import Row, Target
from thoughtgraph.tools.bench.service import ServiceThread

# An embedded store of 100,000 thoughts answers reads within 10 s of a start, a million
# within 60 s (the targets).
TARGETS_S = {100_000: 10.0, 1_000_000: 60.0}


@dataclass(frozen=True)
class Restart:
    size: int
    ready_s: float  # until /readyz answered 200
    first_search_s: float  # until a first search had answered as well


def restart(
    service: ServiceThread,
    make_app: Callable[[], Starlette],
    namespace: str,
    size: int,
    *,
    timeout_s: float,
) -> tuple[ServiceThread, Restart]:
    """Stop ``service``, start a fresh one from ``make_app``; the fresh one and the times."""
    service.stop(timeout_s=timeout_s)
    fresh = ServiceThread(make_app())
    started = time.perf_counter()
    fresh.start(timeout_s=timeout_s)
    ready = time.perf_counter() - started
    fresh.call(fresh.services.search.search(namespace, "the first search after a restart"))
    return fresh, Restart(size, ready, time.perf_counter() - started)


def restart_row(measured: Restart) -> Row:
    return Row(
        measured.size,
        "restart: stopped, started again until ready / a first search answered",
        value=f"{measured.ready_s:,.1f} s / {measured.first_search_s:,.1f} s",
    )


def restart_targets(measured: list[Restart], *, embedded: bool) -> list[Target]:
    if not embedded:
        return []
    found = []
    for run in measured:
        limit = TARGETS_S.get(run.size)
        if limit is not None:
            found.append(
                Target(
                    f"an embedded store of {run.size:,} thoughts answers a search within"
                    f" {limit:g} s of a start",
                    f"{run.first_search_s:,.1f} s",
                    run.first_search_s <= limit,
                )
            )
    return found

"""How long a restart keeps the service from answering: the service (and, on the embedded
engine, its engine) stopped after a size is measured, and a fresh one started on the same
data. Timed: the stop (on the embedded engine it drops the vector indexes and rewrites
the log, app/store/falkordb/restarts.py), then from the start until ``/readyz`` answers,
until a first search has answered, and until the namespace is searched by meaning again
(its vector indexes built while the service serves, searching by words meanwhile)."""

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
BY_MEANING_WAIT_S = 1800.0  # the vector indexes build at about 1,100 thoughts/s


@dataclass(frozen=True)
class Restart:
    size: int
    stop_s: float  # the clean stop of the service measured
    ready_s: float  # until /readyz answered 200
    first_search_s: float  # until a first search had answered as well
    by_meaning_s: float  # until the namespace was searched by meaning again


def restart(
    service: ServiceThread,
    make_app: Callable[[], Starlette],
    namespace: str,
    size: int,
    *,
    timeout_s: float,
) -> tuple[ServiceThread, Restart]:
    """Stop ``service``, start a fresh one from ``make_app``; the fresh one and the times."""
    stopping = time.perf_counter()
    service.stop(timeout_s=timeout_s)
    stop = time.perf_counter() - stopping
    fresh = ServiceThread(make_app())
    started = time.perf_counter()
    fresh.start(timeout_s=timeout_s)
    ready = time.perf_counter() - started
    fresh.call(fresh.services.search.search(namespace, "the first search after a restart"))
    first_search = time.perf_counter() - started
    while not fresh.call(fresh.services.repos.executor.searchable(namespace)):
        if time.perf_counter() - started > BY_MEANING_WAIT_S:
            break  # reported as more than that
        time.sleep(0.1)
    by_meaning = time.perf_counter() - started
    return fresh, Restart(size, stop, ready, first_search, by_meaning)


def restart_row(measured: Restart) -> Row:
    return Row(
        measured.size,
        "restart: the stop; from the start until ready / a first search answered / "
        "searched by meaning again",
        value=(
            f"{measured.stop_s:,.1f} s; {measured.ready_s:,.1f} s / "
            f"{measured.first_search_s:,.1f} s / {by_meaning(measured.by_meaning_s)}"
        ),
    )


def by_meaning(seconds: float) -> str:
    return (
        f"over {BY_MEANING_WAIT_S:,.0f} s" if seconds > BY_MEANING_WAIT_S else f"{seconds:,.1f} s"
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

"""Timing loops and latency summaries (``time.perf_counter``; p50/p95 by numpy)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Latency:
    """Latency percentiles in milliseconds over ``samples`` timed calls."""

    p50_ms: float
    p95_ms: float
    mean_ms: float
    samples: int
    p99_ms: float = 0.0

    @classmethod
    def of(cls, seconds: list[float]) -> Latency:
        if not seconds:
            raise ValueError("no samples to summarise")
        values = np.asarray(seconds, dtype=np.float64) * 1000.0
        return cls(
            p50_ms=float(np.percentile(values, 50)),
            p95_ms=float(np.percentile(values, 95)),
            mean_ms=float(values.mean()),
            samples=len(seconds),
            p99_ms=float(np.percentile(values, 99)),
        )


def warmup_count(iterations: int) -> int:
    """Untimed calls before a measurement: enough to fill caches, never more than 20."""
    return max(1, min(20, iterations // 5))


async def time_async(
    call: Callable[[int], Awaitable[object]], *, iterations: int, warmup: int
) -> Latency:
    """Run ``call(i)`` ``warmup`` times untimed, then ``iterations`` times timed.

    Runs on the event loop that serves the app, so no thread hop is inside the timing.
    """
    for i in range(warmup):
        await call(i)
    samples: list[float] = []
    for i in range(iterations):
        started = time.perf_counter()
        await call(warmup + i)
        samples.append(time.perf_counter() - started)
    return Latency.of(samples)


def time_sync(call: Callable[[int], object], *, iterations: int, warmup: int) -> Latency:
    for i in range(warmup):
        call(i)
    samples: list[float] = []
    for i in range(iterations):
        started = time.perf_counter()
        call(warmup + i)
        samples.append(time.perf_counter() - started)
    return Latency.of(samples)

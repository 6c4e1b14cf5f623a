"""Checkpoint save and load (the newest) of 50 KB, through CheckpointService on the bench's
running service: one thread, each checkpoint the child of the one before, so the load
finds the newest of a growing history."""

from __future__ import annotations

import json

from thoughtgraph.tools.bench.report import Row, Target
from thoughtgraph.tools.bench.service import BenchSetupError, ServiceThread
from thoughtgraph.tools.bench.timing import Latency, time_async

CHECKPOINT_BYTES = 50_000
# At least this many timed calls, whatever --queries says: a p99 needs samples.
MIN_ITERATIONS = 200
TARGET_P50_MS = 10.0
TARGET_P99_MS = 100.0
THREAD = "bench-thread"
SAVE_LABEL = "checkpoint save 50 KB (CheckpointService)"
LOAD_LABEL = "checkpoint load (newest) 50 KB (CheckpointService)"


def checkpoint_data(step: int, size: int = CHECKPOINT_BYTES) -> str:
    """A JSON object of exactly ``size`` bytes: a conversation's messages, padded."""
    messages = [
        {"role": "user" if i % 2 else "assistant", "content": f"message {i} of step {step}"}
        for i in range(40)
    ]
    head = json.dumps({"step": step, "messages": messages, "pad": ""})
    pad = size - len(head.encode())
    if pad < 0:
        raise ValueError(f"a checkpoint of {size} bytes cannot hold its messages")
    return head[:-2] + "x" * pad + '"}'


class CheckpointBench:
    def __init__(self, namespace: str, *, iterations: int, warmup: int) -> None:
        self.namespace = namespace
        self.iterations = max(iterations, MIN_ITERATIONS)
        self.warmup = warmup
        self.save: Latency | None = None
        self.load: Latency | None = None

    def measure(self, service: ServiceThread) -> list[Row]:
        checkpoints = service.services.checkpoints
        count = self.warmup + self.iterations
        payloads = [checkpoint_data(step) for step in range(count)]
        times = {"iterations": self.iterations, "warmup": self.warmup}

        async def save(i: int) -> None:
            parent = f"cp-{i - 1}" if i else None
            await checkpoints.save(
                self.namespace, THREAD, payloads[i], checkpoint_id=f"cp-{i}", parent_id=parent
            )

        async def load(i: int) -> None:
            del i
            await checkpoints.load(self.namespace, THREAD)

        self.save = service.call(time_async(save, **times))
        newest = service.call(checkpoints.load(self.namespace, THREAD))
        if (
            newest is None
            or newest.id != f"cp-{count - 1}"
            or newest.size_bytes != CHECKPOINT_BYTES
        ):
            raise BenchSetupError("the newest checkpoint is not the last one saved")
        self.load = service.call(time_async(load, **times))
        return [
            Row(None, SAVE_LABEL, self.save, value=f"p99 {self.save.p99_ms:.2f} ms"),
            Row(None, LOAD_LABEL, self.load, value=f"p99 {self.load.p99_ms:.2f} ms"),
        ]

    def targets(self, *, embedded: bool) -> list[Target]:
        """Save and load p50 under 10 ms and p99 under 100 ms, on the embedded engine."""
        found = []
        for what, latency in (("save", self.save), ("load (newest)", self.load)):
            description = (
                f"checkpoint {what} 50 KB p50 < {TARGET_P50_MS:.0f} ms and p99 <"
                f" {TARGET_P99_MS:.0f} ms (embedded engine)"
            )
            if latency is None:
                continue
            measured = f"p50 {latency.p50_ms:.2f} ms, p99 {latency.p99_ms:.2f} ms"
            passed = (
                latency.p50_ms < TARGET_P50_MS and latency.p99_ms < TARGET_P99_MS
                if embedded
                else None
            )
            found.append(Target(description, measured, passed))
        return found

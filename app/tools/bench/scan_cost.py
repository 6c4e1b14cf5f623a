"""What scanning on write costs a writer: ``contribute`` over HTTP with scans on and off.

Three measurements of the same documents, each into a namespace preloaded with the same
realistic thoughts (so a scan finds neighbours to judge and link), after the same
warm-up contributes, on the embedded engine with the local model:

* off: ``scan_on_write=False`` and no job queue: the write alone;
* on: ``scan_on_write=True``, a CeleryJobQueue on the engine's Redis and a real
  ``thoughtgraph worker`` process consuming the scans while the writes go on. On a small
  machine the worker competes with the service for the CPU: this is what a writer sees;
* on, drained: the same service and worker, but each write waits (untimed) for the
  worker to finish the scans before the next one: the cost of publishing alone.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.logging import configure_logging
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.bench.client import CONTRIBUTE_MUTATION, GraphQLClient
from thoughtgraph.tools.bench.corpus import SPACING_MS, Corpus
from thoughtgraph.tools.bench.report import Target, format_grid
from thoughtgraph.tools.bench.service import BenchSetupError, ServiceThread
from thoughtgraph.tools.bench.timing import Latency, warmup_count
from thoughtgraph.tools.bench.vectors import embed_cached
from thoughtgraph.tools.bench.worker import ScanTotals, WorkerProcess

TARGET_RATIO = 1.10  # contribute p50 with scanning at most 10% above without
SCAN_WAIT_S = 300.0  # for the worker to finish what was published
# After the worker logged a scan as succeeded, it still acknowledges it and goes back to
# waiting on the broker: a moment of CPU that a drained write must not meet.
SETTLE_S = 0.03
# Idle this long (no scan running or queued) before the drained mode starts: longer than
# the publisher's coalescing delay (TG_SCAN_COALESCE_S, 0.5 s).
QUIET_S = 1.0


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


OFF, OFF_PACED, ALONGSIDE, DRAINED = "off", "off-paced", "alongside", "drained"
# Each mode's p50 is compared with the scanning-off mode written the same way: back to
# back, or with the drained mode's pause before each write (an idle machine before a
# write is not the same as a busy one: caches, clocks and sleeping threads).
BASELINE = {OFF: OFF, ALONGSIDE: OFF, OFF_PACED: OFF_PACED, DRAINED: OFF_PACED}


@dataclass(frozen=True)
class Mode:
    kind: str
    label: str
    latency: Latency
    scans: ScanTotals | None = None  # the worker's work during the timed writes
    drain_s: float | None = None  # after the last timed write, until every scan was done


class ScanCostBench:
    def __init__(
        self,
        settings: Settings,
        embedder: TextEmbedder,
        *,
        contributes: int,
        preload: int,
        cache_dir: Path | None = None,
    ) -> None:
        self.settings = settings.model_copy(
            update={"embedder": EmbedderKind.LOCAL, "llm_model": None, "api_host": "127.0.0.1"}
        )
        self.embedder = embedder
        self.contributes = contributes
        self.warmup = warmup_count(contributes)
        self.preload = preload
        self.cache_dir = cache_dir
        self.modes: list[Mode] = []
        corpus = Corpus(preload + self.warmup + contributes)
        self._corpus = corpus
        self._documents = corpus.texts[preload:]  # warm-up ones first, then the timed ones
        self._vectors = np.empty((0, 0), dtype=np.float32)  # the preload's, once embedded

    def run(self) -> None:
        if self.settings.neo4j_uri:
            raise BenchSetupError("the scan cost is measured on the embedded engine only")
        _progress(f"scan cost: embedding the {self.preload:,} preloaded thoughts (cached)")
        self._vectors = embed_cached(
            self.embedder, self._corpus.texts[: self.preload], self.cache_dir
        ).vectors
        with _quiet_info_logs(self.settings):
            self._scanning_off()
            self._scanning_on()

    # --- the two services -----------------------------------------------------------------
    def _scanning_off(self) -> None:
        with self._service(scan_on_write=False) as (service, _, _):
            for namespace in ("bench-scan-off", "bench-scan-off-paced"):
                self._preload(service, namespace)
            with GraphQLClient(service.base_url) as client:
                _progress(f"scan cost: {self.contributes} contributes, scanning off")
                latency = self._time(client, "bench-scan-off")
                self.modes.append(Mode(OFF, "scanning off (no queue, no worker)", latency))
                _progress(f"scan cost: {self.contributes} contributes, scanning off, paced")
                latency = self._time(
                    client, "bench-scan-off-paced", before_each=lambda: time.sleep(SETTLE_S)
                )
                label = f"scanning off, {SETTLE_S * 1000:.0f} ms pause before each write"
                self.modes.append(Mode(OFF_PACED, label, latency))

    def _scanning_on(self) -> None:
        with self._service(scan_on_write=True) as (service, data_dir, queue):
            worker = WorkerProcess(
                data_dir, self._worker_env(data_dir), data_dir.parent / "worker.log"
            )
            worker.start()
            try:
                self._measure_with_worker(service, worker, lambda: _queued(queue))
            finally:
                worker.stop()

    def _measure_with_worker(
        self, service: ServiceThread, worker: WorkerProcess, queued: Callable[[], int]
    ) -> None:
        published = 0
        with GraphQLClient(service.base_url) as client:
            for namespace in ("bench-scan-on", "bench-scan-drained"):
                self._preload(service, namespace)
            _progress("scan cost: warming up the worker (it loads the model first)")
            for i in range(self.warmup):
                self._contribute(client, "bench-scan-on", i)
            published += self.warmup
            worker.wait_for_scans(published, SCAN_WAIT_S)

            _progress(f"scan cost: {self.contributes} contributes, worker scanning alongside")
            before = _copy(worker.log.poll())
            latency = self._time(client, "bench-scan-on", warm=False)
            published += self.contributes
            drain = worker.wait_for_scans(published, SCAN_WAIT_S)
            self.modes.append(
                Mode(
                    ALONGSIDE,
                    "scanning on, worker scanning alongside",
                    latency,
                    _minus(worker.log.poll(), before),
                    drain,
                )
            )

            _progress(f"scan cost: {self.contributes} contributes, scans drained between them")
            worker.wait_until_idle(queued, QUIET_S, SCAN_WAIT_S)
            before = _copy(worker.log.poll())

            def until_idle() -> None:
                nonlocal published
                worker.wait_for_scans(published, SCAN_WAIT_S)
                time.sleep(SETTLE_S)
                published += 1  # by the write that follows

            latency = self._time(client, "bench-scan-drained", before_each=until_idle)
            worker.wait_for_scans(published, SCAN_WAIT_S)
            self.modes.append(
                Mode(
                    DRAINED,
                    "scanning on, scans drained before each write",
                    latency,
                    _minus(worker.log.poll(), before),
                )
            )

    @contextmanager
    def _service(
        self, *, scan_on_write: bool
    ) -> Iterator[tuple[ServiceThread, Path, JobQueue | None]]:
        """The service on a fresh data dir; with scanning on, its queue publishes to the
        Redis of that data dir's engine (the broker ``thoughtgraph serve`` would use)."""
        from thoughtgraph.server import create_app
        from thoughtgraph.workers.app import build_job_queue

        root = Path(tempfile.mkdtemp(prefix="tg-bench-scan-"))
        data_dir = root / "data"
        settings = self.settings.model_copy(
            update={"data_dir": data_dir, "scan_on_write": scan_on_write}
        )
        queue: JobQueue | None = (
            build_job_queue(settings, worker_expected=True) if scan_on_write else None
        )
        service = ServiceThread(create_app(settings, embedder=self.embedder, job_queue=queue))
        try:
            service.start()
            yield service, data_dir, queue
        finally:
            service.stop()
            shutil.rmtree(root, ignore_errors=True)

    def _worker_env(self, data_dir: Path) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            TG_DATA_DIR=str(data_dir),
            TG_EMBEDDER="local",
            TG_LLM_MODEL="",  # offline, as the service here
            TG_SCAN_ON_WRITE="true",
            TG_LOG_FORMAT="json",
            TG_LOG_LEVEL="INFO",  # job.done and Celery's task lines say what was scanned
        )
        env.pop("TG_NEO4J_URI", None)
        return env

    # --- writes -----------------------------------------------------------------------------
    def _preload(self, service: ServiceThread, namespace: str) -> None:
        start_ms = int(time.time() * 1000) - (self.preload + 60) * SPACING_MS
        thoughts = self._corpus.thoughts(self._vectors, start_ms=start_ms, count=self.preload)
        created = service.call(
            service.services.repos.thoughts.bulk_create_originals(namespace, thoughts)
        )
        if created != len(thoughts):
            raise BenchSetupError(f"the preload created {created} of {len(thoughts)} thoughts")
        # The preload stands for thoughts scanned long ago: the scans measured are the
        # timed writes' own, so the namespace's scan cursor starts past the preload.
        cursor = service.services.repos.scan_cursor
        head = service.call(cursor.position(namespace)).head
        service.call(cursor.advance(namespace, head))

    def _contribute(self, client: GraphQLClient, namespace: str, i: int) -> dict[str, Any]:
        variables = {
            "input": {
                "content": self._documents[i],
                "agentId": f"bench-writer-{i % 4}",
                "agentName": f"Bench Writer {i % 4}",
                "tags": ["bench"],
                "namespace": namespace,
            }
        }
        return client.execute(CONTRIBUTE_MUTATION, variables)

    def _time(
        self,
        client: GraphQLClient,
        namespace: str,
        *,
        warm: bool = True,
        before_each: Callable[[], None] | None = None,
    ) -> Latency:
        """The timed documents come after the warm-up ones; ``warm``: write those first.
        ``before_each``: untimed, before every write (warm-up ones too)."""

        def write(i: int) -> float:
            if before_each is not None:
                before_each()
            started = time.perf_counter()
            self._contribute(client, namespace, i)
            return time.perf_counter() - started

        if warm:
            for i in range(self.warmup):
                write(i)
        return Latency.of([write(self.warmup + i) for i in range(self.contributes)])

    # --- output -----------------------------------------------------------------------------
    def _mode(self, kind: str) -> Mode | None:
        return next((m for m in self.modes if m.kind == kind), None)

    def _ratio(self, mode: Mode) -> float | None:
        baseline = self._mode(BASELINE[mode.kind])
        return mode.latency.p50_ms / baseline.latency.p50_ms if baseline else None

    def report_lines(self) -> list[str]:
        if not self.modes:
            return []
        header = (
            "mode", "p50 ms", "p95 ms", "n", "p50 ratio", "scanned", "tasks", "pairs judged",
            "links",
        )  # fmt: skip
        rows = []
        for mode in self.modes:
            lat, scans, ratio = mode.latency, mode.scans, self._ratio(mode)
            rows.append(
                (
                    mode.label,
                    f"{lat.p50_ms:.2f}",
                    f"{lat.p95_ms:.2f}",
                    str(lat.samples),
                    f"{ratio:.2f}x" if ratio is not None else "",
                    f"{scans.scanned:,}" if scans else "-",
                    f"{scans.done:,}" if scans else "-",
                    f"{scans.pairs_judged:,}" if scans else "-",
                    f"{scans.links:,}" if scans else "-",
                )
            )
        lines = [
            "scan on write: GraphQL contribute over HTTP (local model embeds each document),"
            f" {self.contributes} timed after {self.warmup} warm-up, each mode in a namespace"
            f" preloaded with {self.preload:,} realistic thoughts",
            "",
            *format_grid(header, rows),
            "  p50 ratio: against scanning off written the same way (back to back, or with"
            " the same pause before each write)",
        ]
        for mode in self.modes:
            if mode.scans is not None and mode.drain_s is not None:
                lines.append(
                    f"  {mode.label}: the worker's {mode.scans.done:,} scans (writes"
                    f" coalesced per {self.settings.scan_coalesce_s:g} s) took"
                    f" {mode.scans.busy_s:.2f} s of work; the last finished"
                    f" {mode.drain_s:.2f} s after the last write"
                )
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        lines.append(
            f"  {cpus} usable CPUs shared by the service, its engine and the worker process"
        )
        return lines

    def targets(self) -> list[Target]:
        off, alongside = self._mode(OFF), self._mode(ALONGSIDE)
        description = f"contribute p50 with scanning <= {TARGET_RATIO:.2f}x without"
        if off is None or alongside is None:
            return [Target(description, "not measured in this run", None)]
        ratio = alongside.latency.p50_ms / off.latency.p50_ms
        measured = (
            f"{ratio:.2f}x ({alongside.latency.p50_ms:.2f} ms vs {off.latency.p50_ms:.2f} ms,"
            " worker scanning alongside"
        )
        drained = self._mode(DRAINED)
        drained_ratio = self._ratio(drained) if drained is not None else None
        if drained_ratio is not None:
            measured += f"; scans drained: {drained_ratio:.2f}x"
        return [Target(description, measured + ")", ratio <= TARGET_RATIO)]


def _copy(totals: ScanTotals) -> ScanTotals:
    return ScanTotals(**vars(totals))


def _queued(queue: JobQueue | None) -> int:
    """Scan tasks waiting in the broker (what the publisher still holds back for
    coalescing goes out within QUIET_S)."""
    depths = getattr(queue, "depths", None)
    return sum(depths().values()) if callable(depths) else 0


def _minus(now: ScanTotals, before: ScanTotals) -> ScanTotals:
    return ScanTotals(**{name: value - getattr(before, name) for name, value in vars(now).items()})


@contextmanager
def _quiet_info_logs(settings: Settings) -> Iterator[None]:
    """Every write logs a line at INFO; a line per timed request would be timed too, and
    thousands of them would bury the report. WARNING while the section runs."""
    level = settings.log_level.upper()
    if level in ("WARNING", "ERROR", "CRITICAL"):
        yield
        return
    configure_logging("WARNING", settings.log_format)
    try:
        yield
    finally:
        configure_logging(settings.log_level, settings.log_format)

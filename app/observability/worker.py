"""A Celery worker's metrics: task counts and durations, served on a port of its own.

Why a port per process and not prometheus' multiprocess mode: tasks run in the pool's
processes, each with its own registry (the worker's Runtime is per process, see
workers/runtime_host.py). Multiprocess mode would need an environment variable set before
prometheus_client is first imported and a shared directory wiped at every restart, and
it cannot run the queue depth collector. So each process that runs tasks serves its own
registry on ``TG_WORKER_METRICS_PORT`` plus its pool index (prefork process 0, 1, ...; the
solo pool's only process is 0): one scrape target per process, the usual Prometheus way
for a prefork server.
"""

from __future__ import annotations

import time
from typing import Any

import structlog

from thoughtgraph.observability.telemetry import Telemetry

log = structlog.get_logger(__name__)


class TaskMetrics:
    """Celery signal handlers feeding ``telemetry_of()``'s registry (the current process's)."""

    def __init__(self, telemetry_of: Any) -> None:
        self._telemetry_of = telemetry_of
        self._started: dict[str, float] = {}

    def prerun(self, task_id: str | None = None, **_: Any) -> None:
        if task_id is not None:
            self._started[task_id] = time.perf_counter()

    def postrun(
        self, task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any
    ) -> None:
        started = self._started.pop(task_id, None) if task_id is not None else None
        name = str(getattr(task, "name", "unknown"))
        metrics = self._telemetry_of().metrics
        metrics.worker_tasks.labels(name, state or "UNKNOWN").inc()
        if started is not None:
            metrics.worker_task_latency.labels(name).observe(time.perf_counter() - started)


def serve_metrics(telemetry: Telemetry, base_port: int, host: str) -> int:
    """Serve ``telemetry``'s registry on base_port + this pool process's index."""
    from celery.utils.log import current_process_index
    from prometheus_client import start_http_server

    port = base_port + (current_process_index(base=0) or 0)
    start_http_server(port, addr=host, registry=telemetry.metrics.registry)
    log.info("worker.metrics_serving", port=port)
    return port


def instrument_worker(host: Any, *, port: int | None, bind_host: str, pool: str) -> None:
    """Count and time every task, and serve the metrics where tasks run: each prefork
    pool process once it starts, or the solo pool's one process once it is ready."""
    from celery import signals

    tasks = TaskMetrics(lambda: host.telemetry)
    signals.task_prerun.connect(tasks.prerun, weak=False)
    signals.task_postrun.connect(tasks.postrun, weak=False)
    if port is None:
        return

    def serve(**_: Any) -> None:
        try:
            serve_metrics(host.telemetry, port, bind_host)
        except OSError as exc:  # the port is taken: the worker still works
            log.warning("worker.metrics_not_served", port=port, error=str(exc))

    if pool == "solo":
        signals.worker_ready.connect(serve, weak=False)
    else:
        signals.worker_process_init.connect(serve, weak=False)

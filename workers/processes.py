"""Running the background half: ``thoughtgraph worker``, ``thoughtgraph beat``, and the
worker that ``thoughtgraph serve`` runs beside itself on one machine.

The worker's pool is prefork by default: each pool process starts its own Runtime loop
thread after the fork (no thread or socket crosses one), time limits are enforced (a stuck
job is killed without stopping the worker), and a pool process that dies mid-task is
replaced and its task given back (``task_reject_on_worker_lost``). ``solo`` runs tasks
in the worker's main process: one model in memory, no time limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from typing import Any

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from thoughtgraph.child_process import OwnedProcess
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

POOLS = ("prefork", "solo")
# How long a worker waits for its broker at start (the service may still be loading).
BROKER_WAIT_S = 120.0


def serve_runs_worker(settings: Settings, flag: bool | None) -> bool:
    """Whether ``thoughtgraph serve`` runs its own worker: as ``--worker/--no-worker``
    say, else as TG_SERVE_WORKER says, else on the embedded engine (single-machine mode:
    its Redis is the broker) and not on Neo4j, where deployments run ``thoughtgraph
    worker`` and ``beat`` themselves."""
    if flag is not None:
        return flag
    if settings.serve_worker is not None:
        return settings.serve_worker
    return settings.neo4j_uri is None


def run_worker(
    settings: Settings,
    *,
    concurrency: int | None = None,
    pool: str = "prefork",
    beat: bool = False,
    visibility_timeout_s: float | None = None,
) -> int:
    """Run a Celery worker (with beat embedded if ``beat``) until it is stopped."""
    from celery import signals

    from thoughtgraph.observability.worker import instrument_worker
    from thoughtgraph.workers.app import create_worker_app
    from thoughtgraph.workers.broker import wait_for_broker
    from thoughtgraph.workers.schedule import schedule_file

    app, host = create_worker_app(settings, visibility_timeout_s=visibility_timeout_s)
    wait_for_broker(app.conf.broker_url, BROKER_WAIT_S)
    yield_cpu_to_requests(settings.worker_nice)

    def start_host(**_: Any) -> None:
        host.start()  # in each pool process, after the fork; returns at once

    def close_host(**_: Any) -> None:
        host.close()  # a no-op where the host never started (the prefork parent)

    signals.worker_process_init.connect(start_host, weak=False)
    instrument_worker(
        host, port=settings.worker_metrics_port, bind_host=settings.api_host, pool=pool
    )
    signals.worker_process_shutdown.connect(close_host, weak=False)
    signals.worker_shutdown.connect(close_host, weak=False)  # solo: tasks ran in this process
    argv = [
        "--quiet",  # no banner: our structured log says what started
        "worker",
        f"--concurrency={concurrency or settings.worker_concurrency}",
        f"--pool={pool}",
        f"--loglevel={settings.log_level}",
        # Gossip and mingle only matter to fleets of workers watching each other; they
        # cost broadcast traffic and a second at start.
        "--without-gossip",
        "--without-mingle",
    ]
    if beat:
        schedule_file(settings).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        argv.append("--beat")
    log.info("worker.starting", engine=settings.engine, pool=pool, beat=beat, pid=os.getpid())
    return int(app.start(argv) or 0)


def yield_cpu_to_requests(nice: int) -> None:
    """Lower this process's CPU priority (its pool processes inherit it). Scans and runs
    are background work: on a machine the service shares, a write waiting for the CPU
    behind a scan is the one cost a writer sees (``thoughtgraph bench --scan-cost``)."""
    if nice > 0:
        os.nice(nice)


def run_beat(settings: Settings) -> int:
    """Run Celery beat: publishes the schedule's fan-out tasks, runs none itself."""
    from thoughtgraph.workers.app import create_celery
    from thoughtgraph.workers.broker import wait_for_broker
    from thoughtgraph.workers.schedule import schedule_file

    app = create_celery(settings)
    wait_for_broker(app.conf.broker_url, BROKER_WAIT_S)
    schedule_file(settings).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    log.info("beat.starting", schedule=sorted(app.conf.beat_schedule), pid=os.getpid())
    return int(app.start(["--quiet", "beat", f"--loglevel={settings.log_level}"]) or 0)


class WorkerChild(OwnedProcess):
    """``thoughtgraph worker --beat`` as a child of ``thoughtgraph serve``. Constructing
    it does no I/O."""

    def __init__(self, settings: Settings, *, stop_timeout_s: float = 15.0) -> None:
        self._settings = settings
        self._stop_timeout_s = stop_timeout_s
        self._process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        # Flags the service was given reach the child too; everything else it reads from
        # the same environment and .env.
        data_dir = str(self._settings.data_dir)
        return [
            sys.executable,
            "-m",
            "thoughtgraph",
            "worker",
            "--beat",
            "--data-dir",
            data_dir,
        ]

    def start(self) -> None:
        """Spawn the worker, in a session of its own (Ctrl-C reaches the service, which
        stops the worker in order) that dies with the service. Call from the thread that
        lives as long as the service (the main thread)."""
        self._spawn_child(
            self.command(),
            what="the worker",
            stdout=sys.stdout.fileno(),
            stderr=sys.stderr.fileno(),
        )
        log.info("worker.child_started", pid=self.pid)

    def exit_code(self) -> int | None:
        return self._process.poll() if self._process else None

    def stop(self) -> None:
        """Warm shutdown (finish the task at hand), then cold, then kill. Idempotent.

        A task cut short stays unacknowledged on the broker and is redelivered later."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGTERM, self._stop_timeout_s), (signal.SIGQUIT, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)
            try:
                process.wait(wait_s)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # its pool processes too
            process.wait()
        log.info("worker.child_stopped", exit_code=process.returncode)


class WorkerAlongside:
    """ASGI wrapper: starts the worker child once the service's lifespan has started (the
    engine, the broker, is up), restarts it if it dies, and stops it when the lifespan
    shutdown begins, before the service closes the engine under it."""

    def __init__(self, app: ASGIApp, worker: WorkerChild, *, max_backoff_s: float = 60.0) -> None:
        self._app = app
        self._worker = worker
        self._max_backoff_s = max_backoff_s
        self._watch: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self._app(scope, receive, send)
            return

        async def started(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                self._worker.start()
                self._watch = asyncio.create_task(self._keep_running())
            await send(message)

        async def stopping() -> Message:
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                await self.stop()
            return message

        await self._app(scope, stopping, started)

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        await asyncio.to_thread(self._worker.stop)

    async def _keep_running(self) -> None:
        """A worker that exits on its own (a crash, the OOM killer) comes back, with a
        growing pause while it keeps failing."""
        backoff_s, started = 1.0, time.monotonic()
        while True:
            await asyncio.sleep(1.0)
            code = self._worker.exit_code()
            if code is None:
                continue
            if time.monotonic() - started > 10 * self._max_backoff_s:
                backoff_s = 1.0  # it had been running fine: not a crash loop
            log.warning("worker.child_exited", exit_code=code, restart_in_s=backoff_s)
            await asyncio.sleep(backoff_s)
            backoff_s = min(backoff_s * 2, self._max_backoff_s)
            self._worker.start()
            started = time.monotonic()

"""Test plumbing: a background event loop, a real HTTP server in a thread, GraphQL calls."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import httpx
import pytest
from starlette.applications import Starlette

from thoughtgraph.child_process import free_port as free_port  # tests import it from here
from thoughtgraph.child_process import wait_until_ready
from thoughtgraph.domain.consent import FieldPolicy
from thoughtgraph.features.consent.gate import FieldChanges
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.store.executor import Executor
from thoughtgraph.tools.bench.service import ServiceThread

T = TypeVar("T")


class LoopThread:
    """An event loop on its own thread, so sync tests can drive async stores on one loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        """Stop the loop as ``asyncio.run`` does: tasks still pending (a write-behind
        timer of a runtime a test did not close) are cancelled and awaited first, so none
        is destroyed pending with the loop."""
        self.run(_cancel_pending())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


async def _cancel_pending() -> None:
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def eventually(check: Callable[[], T | None], timeout: float = 60, what: str = "") -> T:
    """Poll until ``check`` returns something truthy: background work takes its time."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def skip_or_fail(reason: str) -> NoReturn:
    """Skip a test that cannot run here, with the reason; under CI=true, where everything
    an issue requires must run, fail instead."""
    if running_in_ci():
        pytest.fail(f"CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def serve_in_thread(app: Starlette, timeout: float = 120) -> Iterator[str]:
    """Run the app under uvicorn on a free loopback port until healthy; yield its base URL."""
    service = ServiceThread(app)
    service.start(timeout_s=timeout)
    try:
        yield service.base_url
    finally:
        service.stop()


class GraphQLClient:
    """Posts operations to /graphql over real HTTP."""

    def __init__(self, base_url: str, engine: str = "falkordb") -> None:
        self.base_url = base_url
        self.engine = engine
        self.http = httpx.Client(base_url=base_url, timeout=60)

    def post(
        self, document: str, /, headers: Mapping[str, str] | None = None, **variables: Any
    ) -> httpx.Response:
        """The raw answer, whatever its status. json.dumps escapes non-ASCII, so a lone
        surrogate travels as a JSON escape, the way a hostile client sends one (httpx's
        json= would fail to encode it)."""
        payload = json.dumps({"query": document, "variables": variables})
        sent = {"content-type": "application/json", **(headers or {})}
        return self.http.post("/graphql", content=payload, headers=sent)

    def execute(self, document: str, /, **variables: Any) -> dict[str, Any]:
        response = self.post(document, **variables)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def data(self, document: str, /, **variables: Any) -> dict[str, Any]:
        body = self.execute(document, **variables)
        assert not body.get("errors"), body.get("errors")
        data: dict[str, Any] = body["data"]
        return data

    def error_codes(self, document: str, /, **variables: Any) -> list[str]:
        body = self.execute(document, **variables)
        errors = body.get("errors") or []
        assert errors, f"expected an error, got {body}"
        return [str((error.get("extensions") or {}).get("code")) for error in errors]

    def close(self) -> None:
        self.http.close()


def unit_vector(dimension: int, seed: int | None = None) -> list[float]:
    rng = random.Random(seed)
    values = [rng.gauss(0, 1) for _ in range(dimension)]
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


def axis(dimension: int, index: int, sign: float = 1.0) -> list[float]:
    values = [0.0] * dimension
    values[index] = sign
    return values


def mix(a: Sequence[float], b: Sequence[float], weight: float) -> list[float]:
    """Unit vector between a and b: weight 0 gives a, 1 gives b."""
    values = [(1 - weight) * x + weight * y for x, y in zip(a, b, strict=True)]
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


@contextlib.contextmanager
def serve_process(
    command: Sequence[str],
    *,
    port: int,
    env: Mapping[str, str],
    log: Path,
    cwd: Path | None = None,
    timeout: float = 60,
) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    """Start ``command`` (a ``thoughtgraph serve``), wait until /readyz on ``port`` reports
    ready, yield the process and a client; SIGINT stops it afterwards unless the test has.

    Output goes to ``log``, not to a pipe that nobody reads while the service runs."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            list(command), env=dict(env), cwd=cwd, stdout=output, stderr=subprocess.STDOUT
        )
    base_url = f"http://127.0.0.1:{port}"
    client = httpx.Client(base_url=base_url, timeout=30)
    try:
        failure = wait_until_ready(process, base_url, timeout)
        if failure is not None:
            raise AssertionError(f"{failure}:\n{log.read_text()}")
        yield process, client
    finally:
        client.close()
        stop_process(process, signal.SIGINT)


def stop_process(
    process: subprocess.Popen[bytes], sig: signal.Signals, timeout: float = 30
) -> None:
    """Ask a child to stop with ``sig``; kill it if it has not within ``timeout``."""
    if process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_node(
    script: Sequence[str], *, cwd: Path, payload: object, timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run a Node.js tool of the tests with ``payload`` as JSON on stdin."""
    return subprocess.run(
        list(script),
        cwd=cwd,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# --- worker processes ---------------------------------------------------------------------

THOUGHTGRAPH_CLI = [sys.executable, "-m", "thoughtgraph"]


def hash_embedder_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The test's environment without its TG_ variables, plus a data dir, the hash embedder
    (process wiring is under test, not the model) and JSON logs, then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(
        TG_DATA_DIR=str(data_dir),
        TG_EMBEDDER="hash",
        TG_EMBEDDING_DIMENSION="64",
        TG_LOG_FORMAT="json",
    )
    env.update(extra)
    return env


def run_cli(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``thoughtgraph *args`` to its end over ``data_dir`` with the hash embedder (see
    :func:`hash_embedder_env`, ``env`` added), its output captured."""
    return subprocess.run(
        [*THOUGHTGRAPH_CLI, *args],
        env=hash_embedder_env(data_dir, **env),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@contextlib.contextmanager
def worker_process(
    env: Mapping[str, str], log: Path, *args: str
) -> Iterator[subprocess.Popen[bytes]]:
    """``thoughtgraph worker *args`` in a process group of its own (so its pool processes
    can be killed with it), output to ``log``; stopped with its group afterwards."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*THOUGHTGRAPH_CLI, "worker", *args],
            env=dict(env),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        stop_process(process, signal.SIGTERM, timeout=15)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # pool processes a killed parent left


def log_events(log: Path) -> list[dict[str, Any]]:
    """The JSON lines of a process's log (TG_LOG_FORMAT=json); other lines are skipped."""
    events = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            with contextlib.suppress(json.JSONDecodeError):
                events.append(json.loads(line))
    return events


def wait_for_event(
    log: Path,
    event: str,
    *,
    timeout: float = 20,
    process: subprocess.Popen[bytes] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """The first ``event`` in ``log`` with ``fields``, waiting for it up to ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        for found in log_events(log):
            if found.get("event") == event and all(found.get(k) == v for k, v in fields.items()):
                return found
        if process is not None and process.poll() is not None:
            code = process.returncode
            raise AssertionError(f"exited ({code}) before {event}:\n{log.read_text()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {event} {fields} within {timeout} s:\n{log.read_text()}")
        time.sleep(0.05)


_REPOSITORIES: dict[int, tuple[Executor, Repositories]] = {}


def repos(store: Executor) -> Repositories:
    """The repositories over a test's store (built once per store), as the container builds
    them for the services."""
    held = _REPOSITORIES.get(id(store))
    if held is None or held[0] is not store:
        held = _REPOSITORIES[id(store)] = (store, Repositories.over(store))
    return held[1]


def field_changes(
    store: Executor, embedder: Embeddings, clock: Clock | None = None
) -> FieldChanges:
    """The consent gate with the default person fields, as the container builds it for a
    service that has no TG_CONSENT_* settings."""
    return FieldChanges(repos(store), embedder, FieldPolicy(), clock or SystemClock())

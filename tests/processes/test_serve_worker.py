"""Single-machine mode: `thoughtgraph serve` on the embedded engine runs its own worker
(with beat) as a child process, using the engine's Redis as the broker; `--no-worker`
runs none. Real processes throughout."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import celery.exceptions
import pytest

from tests.processes.test_serve_process import (
    CONTRIBUTE,
    pid_alive,
    post,
    running_service,
    service_env,
)
from tests.support import THOUGHTGRAPH_CLI, free_port, log_events, serve_process, wait_for_event
from thoughtgraph.settings import Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.app import create_celery
from thoughtgraph.workers.processes import serve_runs_worker

pytestmark = pytest.mark.slow


def embedded(data_dir: Path) -> Settings:
    """The service's deployment as a client sees it: the engine's Redis is the broker."""
    return Settings(data_dir=data_dir, broker_url=None, neo4j_uri=None)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def test_serve_runs_a_worker_that_answers_through_the_engine(data_dir: Path) -> None:
    with running_service(data_dir) as (process, _client, log):
        child = wait_for_event(log, "worker.child_started", process=process)["pid"]
        assert child in children(process.pid)
        app = create_celery(embedded(data_dir))
        answer = app.send_task(names.PING).get(timeout=20)
        assert answer["ok"] is True and answer["engine"] == "falkordb"
        opened = wait_for_event(log, "worker.runtime_opened", pid=answer["pid"])
        assert opened["engine"] == "falkordb"
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=40) == 0
    events = [e.get("event") for e in log_events(log)]
    # Stopped before the engine it uses, and gone with the service.
    assert events.index("worker.child_stopped") < events.index("store.closed")
    assert not pid_alive(child)


def test_serve_brings_a_dead_worker_back(data_dir: Path) -> None:
    with running_service(data_dir) as (process, _client, log):
        first = wait_for_event(log, "worker.child_started", process=process)["pid"]
        app = create_celery(embedded(data_dir))
        app.send_task(names.PING).get(timeout=20)
        os.killpg(first, signal.SIGKILL)
        wait_for_event(log, "worker.child_exited", process=process, exit_code=-9)
        answer = app.send_task(names.PING).get(timeout=20)
        assert answer["ok"] is True
        second = [e["pid"] for e in log_events(log) if e.get("event") == "worker.child_started"]
        assert second[-1] != first and second[-1] in children(process.pid)


def test_scheduled_fan_out_runs_a_job_in_every_namespace(data_dir: Path) -> None:
    """What beat starts: the fan-out lists the namespaces and queues one forgetting run per
    namespace, each of which the worker runs under its namespace's lock."""
    with running_service(data_dir) as (process, client, log):
        for namespace in ("team-a", "team-b"):
            thought = {"content": "kept", "agentId": "a", "agentName": "A", "namespace": namespace}
            post(client, CONTRIBUTE, input=thought)
        app = create_celery(embedded(data_dir))
        covered = app.send_task(names.SCHEDULED_DECAY).get(timeout=20)
        assert {"team-a", "team-b"} <= set(covered["namespaces"])
        for namespace in ("team-a", "team-b"):
            wait_for_event(
                log,
                "job.done",
                process=process,
                task=names.FORGET_AND_PURGE,
                namespace=namespace,
            )


def test_serve_without_worker_runs_none(data_dir: Path, tmp_path: Path) -> None:
    port = free_port()
    command = [*THOUGHTGRAPH_CLI, "serve", "--no-worker"]
    log = tmp_path / "serve.log"
    with serve_process(command, port=port, env=service_env(data_dir, port), log=log) as (
        process,
        _client,
    ):
        app = create_celery(embedded(data_dir))
        pending = app.send_task(names.PING)
        with pytest.raises(celery.exceptions.TimeoutError):
            pending.get(timeout=4)
        # Unsubscribed while the broker is up, not when the app is collected later.
        pending.forget()
        engine = int((data_dir / "falkordb" / "engine.pid").read_text())
        assert children(process.pid) == {engine}
    assert not [e for e in log_events(log) if e.get("event") == "worker.child_started"]


def test_serve_runs_a_worker_by_default_only_on_the_embedded_engine(tmp_path: Path) -> None:
    on_falkordb = Settings(data_dir=tmp_path, neo4j_uri=None)
    on_neo4j = Settings(data_dir=tmp_path, neo4j_uri="bolt://db:7687")
    assert serve_runs_worker(on_falkordb, None) is True
    assert serve_runs_worker(on_neo4j, None) is False
    assert serve_runs_worker(on_falkordb, False) is False
    assert serve_runs_worker(on_neo4j, True) is True

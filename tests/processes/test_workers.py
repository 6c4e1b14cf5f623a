"""Celery workers as real processes: a real Redis as broker, a real embedded engine that
the workers attach to, real `thoughtgraph worker` and `thoughtgraph beat` processes.
Nothing runs eagerly in the test process."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

from tests.redis_server import RedisServer
from tests.support import (
    THOUGHTGRAPH_CLI,
    LoopThread,
    free_port,
    hash_embedder_env,
    log_events,
    wait_for_event,
    worker_process,
)
from thoughtgraph.ports.jobs import NoJobQueue
from thoughtgraph.settings import Settings
from thoughtgraph.store.factory import open_store
from thoughtgraph.workers import names
from thoughtgraph.workers.app import DEFAULT_VISIBILITY_TIMEOUT_S, build_job_queue, create_celery
from thoughtgraph.workers.broker import broker_url_for, redis_client
from thoughtgraph.workers.locks import NamespaceBusyError, single_flight
from thoughtgraph.workers.queue import CeleryJobQueue, JobQueueUnavailableError
from thoughtgraph.workers.schedule import beat_schedule

pytestmark = pytest.mark.slow
_databases = itertools.count(1)


@pytest.fixture
def broker(redis: RedisServer) -> str:
    """A Redis database of the session's server for this test alone, emptied first: no
    message or lock of another test can reach it."""
    url = f"redis://127.0.0.1:{redis.port}/{next(_databases) % 16}"
    client = redis_client(url)
    client.flushdb()
    client.close()
    return url


@pytest.fixture(scope="module")
def engine_dir(tmp_path_factory: pytest.TempPathFactory, loop: LoopThread) -> Iterator[Path]:
    """A real embedded engine owned by the test process; workers attach to it."""
    data_dir = tmp_path_factory.mktemp("worker-engine") / "data"
    stack = contextlib.AsyncExitStack()
    store = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
    loop.run(store.bootstrap(embedding_dimension=64, embedder="hash:64"))
    yield data_dir
    loop.run(stack.aclose())


def settings_for(data_dir: Path, broker_url: str | None) -> Settings:
    """Settings of the test's deployment, whatever TG_ variables the test runs under."""
    return Settings(data_dir=data_dir, broker_url=broker_url, neo4j_uri=None)


def queued(url: str, queue: str = names.QUEUE) -> list[dict[str, Any]]:
    """The messages waiting in ``queue``: task name, args and headers of each."""
    client = redis_client(url)
    try:
        raw = client.lrange(queue, 0, -1)
    finally:
        client.close()
    messages = []
    for item in raw:
        message = json.loads(item)
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        messages.append({"task": message["headers"]["task"], "args": args, **message})
    return messages


def ping(app: Celery, *, hold_s: float = 0.0, timeout: float = 20) -> dict[str, Any]:
    answer: dict[str, Any] = app.send_task(names.PING, args=(hold_s,)).get(timeout)
    return answer


# --- a worker attaches and answers ----------------------------------------------------------


@pytest.mark.parametrize("pool", ["prefork", "solo"])
def test_worker_attaches_to_the_engine_and_answers_ping(
    engine_dir: Path, broker: str, tmp_path: Path, pool: str
) -> None:
    app = create_celery(settings_for(engine_dir, broker))
    log = tmp_path / "worker.log"
    env = hash_embedder_env(engine_dir, TG_BROKER_URL=broker)
    with worker_process(env, log, "--pool", pool) as worker:
        answer = ping(app)
        # Logged by the answering process before it answered: found by its pid, so a
        # miss names the process; 60 s leaves a loaded machine time to reach the file.
        wait_for_event(log, "worker.runtime_opened", pid=answer["pid"], process=worker, timeout=60)
        assert ping(app)["pid"] == answer["pid"]  # one Runtime per process, kept open
    wait_for_event(log, "worker.runtime_closed")  # closed at shutdown
    assert answer["ok"] is True and answer["ready"] is True
    assert answer["engine"] == "falkordb"
    # prefork: a pool process ran it; solo: the worker itself
    assert (answer["pid"] == worker.pid) is (pool == "solo")
    assert answer["redelivered"] is False
    # Jobs yield the CPU to requests: they run below the service's priority.
    assert answer["nice"] == os.nice(0) + Settings().worker_nice > os.nice(0)
    assert len([e for e in log_events(log) if e.get("event") == "worker.runtime_opened"]) == 1
    attached = wait_for_event(log, "store.attached")
    assert attached["socket"].startswith(str(engine_dir))


def test_worker_killed_holding_a_task_gives_it_to_another_worker(
    engine_dir: Path, broker: str, tmp_path: Path
) -> None:
    """Whole worker killed -9 mid-task: nothing acknowledged the message, so once the
    visibility timeout (2 s here) passes the surviving worker restores and runs it."""
    env = hash_embedder_env(engine_dir, TG_BROKER_URL=broker)
    app = create_celery(settings_for(engine_dir, broker), visibility_timeout_s=2)
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    flags = ("--visibility-timeout", "2")
    with (
        worker_process(env, logs[0], *flags) as first,
        worker_process(env, logs[1], *flags) as second,
    ):
        for log, worker in zip(logs, (first, second), strict=True):
            wait_for_event(log, "worker.runtime_opened", process=worker)
        result = app.send_task(names.PING, args=(3.0,))
        holder = _wait_for_holder(logs, result.id)
        holding, surviving = (first, logs[1]) if holder == 0 else (second, logs[0])
        os.killpg(holding.pid, signal.SIGKILL)
        answer = result.get(timeout=15)
        rerun = wait_for_event(surviving, "ping.holding", task_id=result.id)
    assert answer["redelivered"] is True
    assert answer["pid"] == rerun["pid"]  # the surviving worker ran it


def test_pool_process_killed_mid_task_is_given_back(
    engine_dir: Path, broker: str, tmp_path: Path
) -> None:
    """Only the pool process dies: its worker rejects the task back to the queue at once
    (reject_on_worker_lost), long before any visibility timeout, and runs it again."""
    app = create_celery(settings_for(engine_dir, broker))
    log = tmp_path / "worker.log"
    with worker_process(hash_embedder_env(engine_dir, TG_BROKER_URL=broker), log) as worker:
        result = app.send_task(names.PING, args=(2.0,))
        first = wait_for_event(log, "ping.holding", process=worker, task_id=result.id)
        started = time.monotonic()
        os.kill(first["pid"], signal.SIGKILL)
        answer = result.get(timeout=20)
        assert worker.poll() is None  # the worker itself lives on
    assert answer["redelivered"] is True
    assert answer["pid"] != first["pid"]
    assert time.monotonic() - started < DEFAULT_VISIBILITY_TIMEOUT_S / 100


def _wait_for_holder(logs: list[Path], task_id: str, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for index, log in enumerate(logs):
            if any(
                e.get("event") == "ping.holding" and e.get("task_id") == task_id
                for e in log_events(log)
            ):
                return index
        time.sleep(0.02)
    raise AssertionError("no worker started the task")


# --- single flight ----------------------------------------------------------------------------


def test_single_flight_lock_refuses_an_overlapping_run(broker: str) -> None:
    first, second = redis_client(broker), redis_client(broker)
    try:
        with single_flight(first, "team-a", timeout_s=30):
            with pytest.raises(NamespaceBusyError), single_flight(second, "team-a", timeout_s=30):
                pass
            with single_flight(second, "team-b", timeout_s=30):  # other namespaces run
                pass
        with pytest.raises(RuntimeError), single_flight(first, "team-a", timeout_s=30):
            raise RuntimeError("the run failed")
        with single_flight(second, "team-a", timeout_s=30):  # released both times
            pass
        with single_flight(first, "team-c", timeout_s=0.2):
            time.sleep(0.4)  # outlived its timeout: the lock expired, nothing to release
            with single_flight(second, "team-c", timeout_s=30):
                pass
    finally:
        first.close()
        second.close()


def test_worker_defers_a_run_while_its_namespace_is_locked(
    engine_dir: Path, broker: str, tmp_path: Path
) -> None:
    app = create_celery(settings_for(engine_dir, broker))
    log = tmp_path / "worker.log"
    client = redis_client(broker)
    try:
        with (
            worker_process(hash_embedder_env(engine_dir, TG_BROKER_URL=broker), log) as worker,
            single_flight(client, "busy-ns", timeout_s=60),
        ):
            result = app.send_task(names.FORGET_AND_PURGE, args=("busy-ns",))
            busy = wait_for_event(log, "job.busy", process=worker, task_id=result.id)
            time.sleep(0.5)
            started = [e for e in log_events(log) if e.get("event") == "job.started"]
    finally:
        client.close()
    assert busy["namespace"] == "busy-ns" and busy["retry_in_s"] > 0
    assert not [e for e in started if e.get("task_id") == result.id]


# --- beat -------------------------------------------------------------------------------------


def test_beat_schedule_entries_all_expire_within_their_period() -> None:
    settings = Settings(consolidation_every_s=86400, contradiction_scan_every_s=600)
    schedule = beat_schedule(settings)
    assert set(schedule) == {
        "consolidation",
        "contradiction-scan",
        "decay",
        "consent-expiry",
        "insights",
        "scan-sweep",
    }
    for entry in schedule.values():
        assert entry["task"] in names.SCHEDULED
        assert 0 < entry["options"]["expires"] <= entry["schedule"].total_seconds()
    assert schedule["contradiction-scan"]["options"]["expires"] == 600
    assert "decay" not in beat_schedule(Settings(decay_every_s=0))  # 0 turns an entry off
    # The sweep makes good lost scan requests; where writes ask for none, it runs none.
    assert "scan-sweep" not in beat_schedule(Settings(scan_on_write=False))
    deployment = settings.model_copy(update={"broker_url": "redis://127.0.0.1:1/0"})
    assert create_celery(deployment).conf.beat_schedule == schedule


def test_every_task_the_app_runs_is_named_in_the_registry(tmp_path: Path) -> None:
    """The tasks are module-level and bound to every app create_celery builds: the app's
    own tasks are exactly the registry's names, each acknowledged late, and the schedule
    names only the registry's fan-outs."""
    settings = Settings(data_dir=tmp_path, broker_url="redis://127.0.0.1:1/0")
    app = create_celery(settings)
    app.finalize()
    ours = {name for name in app.tasks if not name.startswith("celery.")}
    assert ours == set(names.ALL)
    assert all(name.startswith(names.PREFIX) for name in names.ALL)
    assert len(set(names.ALL)) == len(names.ALL)
    for name in names.ALL:
        assert app.tasks[name].acks_late, name
    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert scheduled == set(names.SCHEDULED)
    # A second app has its own task objects, running on its own host: no app is shared.
    other = create_celery(settings)
    assert other.tasks[names.PING] is not app.tasks[names.PING]
    assert other.tasks[names.PING].app is other


def test_the_queue_publishes_only_registry_names(tmp_path: Path, loop: LoopThread) -> None:
    """What the API's queue sends, recorded at the app's publishing call: registry names
    of tasks the app has, with plain ids as arguments."""

    class Recording(Celery):  # type: ignore[misc]  # celery ships no types
        def __init__(self) -> None:
            super().__init__("recording", set_as_current=False)
            self.sent: list[tuple[str, tuple[Any, ...]]] = []

        def send_task(self, name: str, args: tuple[Any, ...] = (), **options: Any) -> None:
            self.sent.append((name, tuple(args)))

    recording = Recording()
    jobs = CeleryJobQueue(recording, coalesce_s=0.0)
    jobs.scan_after_write("team-a", ["t1"])
    loop.run(jobs.enqueue_consolidation("team-a", "run-1", False))
    loop.run(jobs.enqueue_namespace_scan("team-a"))
    assert loop.run(jobs.enqueue_insights("team-a")) is True
    jobs.close()
    sent = {name for name, _ in recording.sent}
    assert sent == {names.SCAN_NEW, names.CONSOLIDATE, names.SCAN_NAMESPACE, names.WRITE_INSIGHTS}
    assert sent <= set(names.PER_NAMESPACE)
    assert sent <= set(create_celery(settings_for(tmp_path, "redis://127.0.0.1:1/0")).tasks)


def test_worker_imports_go_one_way() -> None:
    """The registry, the queue and the schedule never import the app or the tasks (the
    API publishes without them); the app imports them, not the other way round."""
    import grimp

    graph = grimp.build_graph("thoughtgraph", exclude_type_checking_imports=True)
    below = ("names", "queue", "schedule", "locks", "broker")
    for low in below:
        for high in ("app", "tasks", "processes"):
            chain = graph.find_shortest_chain(
                importer=f"thoughtgraph.workers.{low}", imported=f"thoughtgraph.workers.{high}"
            )
            assert chain is None, chain
    assert not graph.find_modules_directly_imported_by("thoughtgraph.workers.names")


def test_beat_process_publishes_expiring_fan_out_tasks(broker: str, tmp_path: Path) -> None:
    env = hash_embedder_env(
        tmp_path / "data",
        TG_BROKER_URL=broker,
        TG_CONSOLIDATION_EVERY_S="1",
        TG_CONTRADICTION_SCAN_EVERY_S="1",
        TG_DECAY_EVERY_S="1",
        TG_SCAN_SWEEP_EVERY_S="1",
        TG_CONSENT_EXPIRY_EVERY_S="1",
        TG_INSIGHTS_EVERY_S="1",
    )
    log = tmp_path / "beat.log"
    with log.open("wb") as output:
        beat = subprocess.Popen(
            [*THOUGHTGRAPH_CLI, "beat"], env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 15
        tasks: set[str] = set()
        while (
            len(tasks) < len(names.SCHEDULED)
            and time.monotonic() < deadline
            and beat.poll() is None
        ):
            messages = queued(broker)
            tasks = {m["task"] for m in messages}
            time.sleep(0.1)
    finally:
        beat.send_signal(signal.SIGTERM)
        beat.wait(15)
    assert tasks == set(names.SCHEDULED), log.read_text()
    assert all(m["headers"]["expires"] for m in messages)
    assert (tmp_path / "data").is_dir()  # its schedule file lives in the data dir


# --- configuration ----------------------------------------------------------------------------


def test_worker_on_neo4j_without_a_broker_refuses_to_start(tmp_path: Path) -> None:
    env = hash_embedder_env(tmp_path / "data", TG_NEO4J_URI="bolt://127.0.0.1:1")
    for command in (["worker"], ["beat"], ["serve", "--worker"]):
        result = subprocess.run(
            [*THOUGHTGRAPH_CLI, *command], env=env, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 2, result.stderr
        assert "[CONFIGURATION_ERROR]" in result.stderr and "TG_BROKER_URL" in result.stderr
        assert "Traceback" not in result.stderr


def test_broker_defaults_to_the_embedded_engine(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "data", None)
    url = broker_url_for(settings)
    assert url.startswith("redis+socket:///") and url.endswith("engine.sock?virtual_host=1")
    assert broker_url_for(settings_for(tmp_path, "redis://h:6379/2")) == "redis://h:6379/2"
    with pytest.raises(Exception, match="must name a Redis"):
        broker_url_for(settings_for(tmp_path, "amqp://guest@h//"))


# --- the API's queue --------------------------------------------------------------------------


def test_job_queue_publishes_tasks_by_name(broker: str, tmp_path: Path, loop: LoopThread) -> None:
    jobs = build_job_queue(settings_for(tmp_path, broker), worker_expected=False)
    assert isinstance(jobs, CeleryJobQueue)
    jobs.scan_after_write("team-a", ["t1", "t2"])
    loop.run(jobs.enqueue_consolidation("team-a", "run-1", True))
    loop.run(jobs.enqueue_namespace_scan("team-b"))
    jobs.close()
    sent = {(m["task"], json.dumps(m["args"])) for m in queued(broker)}
    assert sent == {
        (names.SCAN_NEW, '["team-a"]'),
        (names.CONSOLIDATE, '["team-a", "run-1", true]'),
        (names.SCAN_NAMESPACE, '["team-b"]'),
    }
    assert isinstance(
        build_job_queue(settings_for(tmp_path, None), worker_expected=False), NoJobQueue
    )


def test_scans_asked_for_together_go_out_as_one_task_per_namespace(
    broker: str, tmp_path: Path
) -> None:
    """The worker reads what is new from the change log, so the task names only the
    namespace: five writes in each of two namespaces go out as two tasks."""
    settings = settings_for(tmp_path, broker).model_copy(update={"scan_coalesce_s": 2.0})
    jobs = build_job_queue(settings, worker_expected=False)
    for i in range(5):
        jobs.scan_after_write("team-a", [f"a{i}"])
        jobs.scan_after_write("team-b", [f"b{i % 2}"])
    jobs.close()  # publishes what it gathered at once, without waiting out the window
    sent = sorted((m["task"], m["args"]) for m in queued(broker))
    assert sent == [(names.SCAN_NEW, ["team-a"]), (names.SCAN_NEW, ["team-b"])]


def test_a_lone_scan_goes_out_after_the_window(broker: str, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, broker).model_copy(update={"scan_coalesce_s": 0.2})
    jobs = build_job_queue(settings, worker_expected=False)
    try:
        jobs.scan_after_write("team-a", ["t1"])
        deadline = time.monotonic() + 10
        while not queued(broker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [m["args"] for m in queued(broker)] == [["team-a"]]
    finally:
        jobs.close()


def test_scan_after_write_never_blocks_on_a_dead_broker(tmp_path: Path, loop: LoopThread) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    jobs = CeleryJobQueue(create_celery(settings_for(tmp_path, dead)), max_pending=5)
    started = time.monotonic()
    for i in range(500):
        jobs.scan_after_write("team-a", [f"t{i}"])  # most are dropped (and logged)
    assert time.monotonic() - started < 0.5
    with pytest.raises(JobQueueUnavailableError):
        loop.run(jobs.enqueue_namespace_scan("team-a"), timeout=60)
    jobs.close(timeout_s=2)

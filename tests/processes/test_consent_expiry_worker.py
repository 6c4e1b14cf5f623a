"""Consent requests nobody decided expire on a real worker, on both engines: the test
process owns the engine (and writes through the services), a real `thoughtgraph worker`
process attached to it runs `thoughtgraph.expire_consent`, and time moves for both
through the shared clock file (OffsetFileClock). Nothing runs eagerly in the test process."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.processes.test_maintenance_worker import ping, worker_env
from tests.redis_server import RedisServer
from tests.store_backends import ENGINES, worker_deployment_settings
from tests.support import LoopThread, log_events, wait_for_event, worker_process
from thoughtgraph.domain.changes import ChangeKind
from thoughtgraph.domain.consent import ConsentRequest, ConsentStatus
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.clock import OffsetFileClock
from thoughtgraph.runtime import Runtime, open_runtime
from thoughtgraph.settings import Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.app import create_celery
from thoughtgraph.workers.schedule import beat_schedule

pytestmark = pytest.mark.slow
PERSON = "ana"


@dataclass
class Deployment:
    engine: str
    runtime: Runtime  # the test process's: it owns the embedded engine
    settings: Settings
    env: dict[str, str]  # a worker's environment for this deployment
    clock: OffsetFileClock
    tmp: Path


@pytest.fixture(scope="module", params=ENGINES)
def deployment(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    local_embedder: TextEmbedder,
    redis: RedisServer,
    loop: LoopThread,
) -> Iterator[Deployment]:
    engine = str(request.param)
    tmp = tmp_path_factory.mktemp(f"consent-{engine}")
    settings = worker_deployment_settings(request, tmp, redis.port, 12, scan_on_write=False)
    stack = contextlib.AsyncExitStack()
    runtime = loop.run(
        stack.enter_async_context(open_runtime(settings, embedder=local_embedder)), timeout=120
    )
    try:
        yield Deployment(
            engine, runtime, settings, worker_env(settings), OffsetFileClock(tmp / "clock"), tmp
        )
    finally:
        loop.run(stack.aclose(), timeout=120)


@pytest.fixture
def worker(deployment: Deployment, ns: str) -> Iterator[Path]:
    """One worker for the test alone; its log (JSON lines) is what the test reads."""
    log = deployment.tmp / f"{ns}-worker.log"
    with worker_process(deployment.env, log, "--visibility-timeout", "3"):
        ping(deployment.settings)
        yield log


@pytest.fixture
def clock(deployment: Deployment) -> Iterator[OffsetFileClock]:
    """The deployment's clock, back where it was after the test (the module shares it)."""
    start = deployment.clock.offset_ms()
    yield deployment.clock
    deployment.clock.advance(start - deployment.clock.offset_ms())


def city(loop: LoopThread, deployment: Deployment, ns: str, content: str) -> Any:
    data = ThoughtInput(
        content=content,
        agent_id="agent-1",
        agent_name="Agent",
        namespace=ns,
        category="city",
        about=PERSON,
    )
    return loop.run(deployment.runtime.services.thoughts.contribute(data))


def requests(loop: LoopThread, deployment: Deployment, ns: str) -> dict[str, ConsentRequest]:
    found = loop.run(deployment.runtime.services.consent.requests(ns))
    return {r.id: r for r in found}


def expire_on_the_worker(deployment: Deployment, log: Path, ns: str) -> None:
    """Runs the expiry task for ``ns`` on the worker, until it is done (the task keeps no
    result: what it did is read from the store)."""
    sent = create_celery(deployment.settings).send_task(
        names.EXPIRE_CONSENT, args=(ns,), ignore_result=True
    )
    wait_for_event(
        log, "job.done", timeout=60, task=names.EXPIRE_CONSENT, task_id=sent.id, namespace=ns
    )


def decided_events(loop: LoopThread, deployment: Deployment, ns: str) -> list[Any]:
    events = loop.run(deployment.runtime.services.history.changes(ns, 0, 500))
    return [e for e in events if e.kind is ChangeKind.CONSENT_DECIDED]


def test_an_undecided_change_expires_on_the_worker_and_changes_nothing(
    deployment: Deployment, worker: Path, clock: OffsetFileClock, ns: str, loop: LoopThread
) -> None:
    first = city(loop, deployment, ns, "Ana lives in Lisbon")
    assert first.consent_request is None  # a first value is written as it comes
    lisbon = first.thought.id
    change = city(loop, deployment, ns, "Ana lives in Porto")
    held = change.consent_request
    assert held is not None and held.status is ConsentStatus.PENDING
    assert held.person == PERSON and held.field == "city"
    assert held.replaces_ids == (lisbon,)
    assert held.expires_at_ms - held.created_at_ms == 7 * DAY_MS
    porto = held.thought_id

    # Before its time: the worker's run closes nothing.
    expire_on_the_worker(deployment, worker, ns)
    assert requests(loop, deployment, ns)[held.id].status is ConsentStatus.PENDING
    assert decided_events(loop, deployment, ns) == []

    clock.advance(8 * DAY_MS)
    expire_on_the_worker(deployment, worker, ns)
    expired = requests(loop, deployment, ns)[held.id]
    assert expired.status is ConsentStatus.EXPIRED
    assert expired.decided_by == "expiry" and expired.decided_at_ms is not None
    assert expired.decided_at_ms >= held.expires_at_ms  # decided on the worker's clock
    thoughts = loop.run(deployment.runtime.repos.thoughts.get_many(ns, [lisbon, porto]))
    assert porto not in thoughts  # never written
    assert thoughts[lisbon].is_current and thoughts[lisbon].superseded_by is None
    (event,) = decided_events(loop, deployment, ns)
    assert event.subject_id == held.id and event.actor_name == "consent-expiry"

    # Again: nothing left to expire, nothing logged.
    expire_on_the_worker(deployment, worker, ns)
    assert requests(loop, deployment, ns)[held.id] == expired
    assert len(decided_events(loop, deployment, ns)) == 1


def test_a_change_proposed_again_after_expiry_can_expire_again(
    deployment: Deployment, worker: Path, clock: OffsetFileClock, ns: str, loop: LoopThread
) -> None:
    """An expired request is reopened when the same change is proposed again; nobody
    decides this time either, so it expires a second time (its second decision event)."""
    lisbon = city(loop, deployment, ns, "Ana lives in Lisbon").thought.id
    held = city(loop, deployment, ns, "Ana lives in Porto").consent_request
    assert held is not None
    clock.advance(8 * DAY_MS)
    expire_on_the_worker(deployment, worker, ns)
    assert requests(loop, deployment, ns)[held.id].status is ConsentStatus.EXPIRED

    again = city(loop, deployment, ns, "Ana lives in Porto").consent_request
    assert again is not None and again.id == held.id
    assert again.status is ConsentStatus.PENDING and again.expires_at_ms > held.expires_at_ms
    clock.advance(8 * DAY_MS)
    expire_on_the_worker(deployment, worker, ns)
    assert requests(loop, deployment, ns)[held.id].status is ConsentStatus.EXPIRED
    assert len(decided_events(loop, deployment, ns)) == 2
    thoughts = loop.run(deployment.runtime.repos.thoughts.get_many(ns, [lisbon, held.thought_id]))
    assert set(thoughts) == {lisbon} and thoughts[lisbon].is_current


def test_the_scheduled_expiry_runs_in_every_active_namespace(
    deployment: Deployment, worker: Path, clock: OffsetFileClock, ns: str, loop: LoopThread
) -> None:
    """What beat starts: the fan-out lists the namespaces and queues one expiry each."""
    other = f"{ns}-b"
    for namespace in (ns, other):
        city(loop, deployment, namespace, "Ana lives in Lisbon")
        assert city(loop, deployment, namespace, "Ana lives in Porto").consent_request
    clock.advance(8 * DAY_MS)
    app = create_celery(deployment.settings)
    covered = app.send_task(names.SCHEDULED_CONSENT_EXPIRY).get(timeout=60)
    assert {ns, other} <= set(covered["namespaces"])
    for namespace in (ns, other):
        wait_for_event(
            worker, "job.done", timeout=60, task=names.EXPIRE_CONSENT, namespace=namespace
        )
        statuses = {r.status for r in requests(loop, deployment, namespace).values()}
        assert statuses == {ConsentStatus.EXPIRED}
    runs = [
        e
        for e in log_events(worker)
        if e.get("event") == "job.done" and e.get("task") == names.EXPIRE_CONSENT
    ]
    assert len([e for e in runs if e.get("namespace") == ns]) == 1


def test_the_beat_schedule_expires_consent_every_period() -> None:
    schedule = beat_schedule(Settings(consent_expiry_every_s=1800))
    entry = schedule["consent-expiry"]
    assert entry["task"] == names.SCHEDULED_CONSENT_EXPIRY
    assert entry["schedule"].total_seconds() == 1800
    assert entry["options"]["expires"] == 1800
    assert beat_schedule(Settings())["consent-expiry"]["options"]["expires"] == 3600
    assert "consent-expiry" not in beat_schedule(Settings(consent_expiry_every_s=0))

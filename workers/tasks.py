"""The tasks: ids in, one job call out. All logic lives in the features' jobs modules.

Every task is idempotent (jobs are), acknowledged late, and retried with exponential
backoff when the store or the broker is briefly unavailable (an engine restart, a
failover). Consolidation and forgetting hold their namespace's single-flight lock; a
task that finds it held is retried later instead of running beside the other run.

Each task is defined once, here, at module level (``shared_task``), and is bound to every
Celery app ``create_celery`` builds (a ``WorkerCelery``); the app's RuntimeHost runs its job.
Jobs are imported when a task runs, so the API process (which only publishes) never
imports what only a worker needs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from celery import Celery, shared_task
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from thoughtgraph.domain.errors import (
    DataDirLockedError,
    EngineStartError,
    SchemaMismatchError,
    StoreError,
)
from thoughtgraph.domain.ops import OpsNode, OpsStatus, acting_as
from thoughtgraph.features.services import JobRuntime
from thoughtgraph.workers import names
from thoughtgraph.workers.broker import redis_client
from thoughtgraph.workers.locks import NamespaceBusyError, single_flight
from thoughtgraph.workers.names import (
    LOCK_TIMEOUT_S,
    REEMBED_LOCK,
    REEMBED_SOFT_LIMIT_S,
    RUN_HARD_LIMIT_S,
    RUN_SOFT_LIMIT_S,
    SCAN_LOCK,
    STORE_WIDE,
)
from thoughtgraph.workers.runtime_host import RuntimeHost

log = structlog.get_logger(__name__)

# Worth another try after a while: the engine restarting, Redis failing over.
TRANSIENT = (StoreError, RedisConnectionError, RedisTimeoutError)
# Store errors that no retry cures.
PERMANENT = (SchemaMismatchError, DataDirLockedError, EngineStartError)
# A busy namespace is asked again every 15 s, for as long as a run may last.
BUSY_RETRY_S = 15
BUSY_MAX_RETRIES = int(RUN_HARD_LIMIT_S // BUSY_RETRY_S) + 5
SCAN_SOFT_LIMIT_S = 300.0
# How long a task waits for its job (the soft limit interrupts first under prefork; under
# the solo pool, which has no time limits, this is the only bound).
SCAN_TIMEOUT_S = SCAN_SOFT_LIMIT_S + 30
PING_MAX_HOLD_S = 60.0

COMMON: dict[str, Any] = {
    "bind": True,
    "acks_late": True,
    "autoretry_for": TRANSIENT,
    "dont_autoretry_for": PERMANENT,
    "retry_backoff": 5,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 8,
}


def limits(soft_s: float) -> dict[str, Any]:
    """Soft limit: the job is cancelled (SoftTimeLimitExceeded in the task); hard limit a
    minute later: the pool process is killed. Enforced by the prefork pool only."""
    return {"soft_time_limit": soft_s, "time_limit": soft_s + 60.0}


def plain(result: Any) -> Any:
    """A job's pydantic result as JSON-safe data (the only result serializer is JSON)."""
    dump = getattr(result, "model_dump", None)
    return dump(mode="json") if callable(dump) else result


Job = Callable[[JobRuntime], Awaitable[Any]]


def as_worker(job: Job, task_name: str, namespace: str | None) -> Job:
    """``job`` as the worker node of the operational events: what it writes is recorded
    as the worker's, and a namespace's job records one event of its own (op: the task's
    short name, status: ok or error)."""

    async def run(runtime: JobRuntime) -> Any:
        op = names.short(task_name)
        with acting_as(OpsNode.WORKER):
            try:
                result = await job(runtime)
            except Exception:
                if namespace is not None:
                    runtime.services.ops.recorder.record(namespace, op, OpsStatus.ERROR)
                raise
        if namespace is not None:
            runtime.services.ops.recorder.record(namespace, op, node=OpsNode.WORKER)
        return result

    return run


class WorkerCelery(Celery):  # type: ignore[misc]  # celery ships no types
    """The app ``create_celery`` builds: Celery, and the RuntimeHost its tasks run jobs on
    (the app's settings, this process's Runtime)."""

    host: RuntimeHost


def host_of(task: Any) -> RuntimeHost:
    app = task.app
    if not isinstance(app, WorkerCelery) or not hasattr(app, "host"):
        raise RuntimeError(f"{task.name} runs only on an app built by create_celery")
    return app.host


def call(task: Any, job: Job, *, timeout_s: float, namespace: str | None = None) -> Any:
    """Run one job on this process's Runtime, logged with the task's id."""
    started = time.monotonic()
    context = {"task": task.name, "task_id": task.request.id, "namespace": namespace}
    log.info("job.started", **context, pid=os.getpid())
    result = host_of(task).run(as_worker(job, task.name, namespace), timeout_s)
    log.info("job.done", **context, seconds=round(time.monotonic() - started, 3))
    return plain(result)


def exclusive(task: Any, namespace: str, job: Job) -> Any:
    """``call`` under the namespace's lock; retried later when another run holds it."""
    client = redis_client(str(task.app.conf.broker_url))
    try:
        with single_flight(client, namespace, timeout_s=LOCK_TIMEOUT_S):
            return call(task, job, timeout_s=RUN_HARD_LIMIT_S, namespace=namespace)
    except NamespaceBusyError as exc:
        log.info(
            "job.busy",
            task=task.name,
            task_id=task.request.id,
            namespace=namespace,
            retry_in_s=BUSY_RETRY_S,
        )
        retry = task.retry(exc=exc, countdown=BUSY_RETRY_S, max_retries=BUSY_MAX_RETRIES)
        raise retry from None
    finally:
        client.close()


Task = Callable[..., Any]


def task(name: str, **options: Any) -> Callable[[Task], Task]:
    """A module-level task under its registry name, bound to every app built after import."""
    bind: Callable[[Task], Task] = shared_task(name=name, **options)
    return bind


RUN = {**COMMON, **limits(RUN_SOFT_LIMIT_S)}
SCAN = {**COMMON, **limits(SCAN_SOFT_LIMIT_S)}
# Kept (for an hour): what a slot covered, for whoever looks (and the tests).
FAN_OUT = {**SCAN, "ignore_result": False}


# --- per-namespace work -------------------------------------------------------------------
@task(name=names.PING, ignore_result=False, **COMMON, **limits(PING_MAX_HOLD_S + 30))
def ping(task: Any, hold_s: float = 0.0) -> dict[str, Any]:
    """Proves a worker reached the store. ``hold_s`` keeps the task busy that long first
    (capped), for probing delivery: tests kill a worker mid-task with it."""
    from thoughtgraph.features.ops.jobs import ping as job

    if hold_s > 0:
        log.info("ping.holding", task_id=task.request.id, pid=os.getpid(), hold_s=hold_s)
        time.sleep(min(hold_s, PING_MAX_HOLD_S))
    answer: dict[str, Any] = call(task, job, timeout_s=30.0)
    delivery = task.request.delivery_info or {}
    return {
        **answer,
        "pid": os.getpid(),
        "nice": os.nice(0),  # the CPU priority jobs run at (settings.worker_nice)
        "redelivered": bool(delivery.get("redelivered")),
    }


@task(name=names.CONSOLIDATE, **RUN)
def consolidate(task: Any, namespace: str, run_id: str, dry_run: bool) -> Any:
    from thoughtgraph.features.consolidation.jobs import run_consolidation

    return exclusive(
        task, namespace, lambda rt: run_consolidation(rt, namespace, run_id, dry_run=dry_run)
    )


@task(name=names.SCAN_NEW, **SCAN)
def scan_new(task: Any, namespace: str) -> Any:
    """The thoughts written since the namespace's scan cursor, one such scan at a time per
    namespace. A task that finds another scanning leaves it the work: the other looks
    once more after it lets go (below), and that look comes after this task's write was
    stored (the write was stored before its request was published, hence before this
    task found the lock held). What the look finds goes out as a fresh task."""
    from thoughtgraph.features.contradictions.jobs import has_unscanned
    from thoughtgraph.features.contradictions.jobs import scan_new as job

    client = redis_client(str(task.app.conf.broker_url))
    try:
        with single_flight(client, namespace, timeout_s=LOCK_TIMEOUT_S, purpose=SCAN_LOCK):
            result = call(
                task, lambda rt: job(rt, namespace), timeout_s=SCAN_TIMEOUT_S, namespace=namespace
            )
    except NamespaceBusyError:
        log.info("scan.left_to_the_running_one", task_id=task.request.id, namespace=namespace)
        return {"namespace": namespace, "skipped": True}
    finally:
        client.close()
    if host_of(task).run(lambda rt: has_unscanned(rt, namespace), SCAN_TIMEOUT_S):
        task.app.send_task(names.SCAN_NEW, args=(namespace,), ignore_result=True)
    return result


@task(name=names.SCAN_THOUGHTS, **SCAN)
def scan_thoughts(task: Any, namespace: str, thought_ids: list[str]) -> Any:
    from thoughtgraph.features.contradictions.jobs import scan_thoughts as job

    return call(
        task,
        lambda rt: job(rt, namespace, thought_ids),
        timeout_s=SCAN_TIMEOUT_S,
        namespace=namespace,
    )


@task(name=names.SCAN_NAMESPACE, **RUN)
def scan_namespace(task: Any, namespace: str) -> Any:
    from thoughtgraph.features.contradictions.jobs import scan_namespace as job

    return call(
        task, lambda rt: job(rt, namespace), timeout_s=RUN_HARD_LIMIT_S, namespace=namespace
    )


@task(name=names.FORGET_AND_PURGE, **RUN)
def forget_and_purge(task: Any, namespace: str) -> Any:
    from thoughtgraph.features.retention.jobs import forget_and_purge as job

    return exclusive(task, namespace, lambda rt: job(rt, namespace))


@task(name=names.EXPIRE_CONSENT, **SCAN)
def expire_consent(task: Any, namespace: str) -> Any:
    from thoughtgraph.features.consent.jobs import expire_requests as job

    return call(task, lambda rt: job(rt, namespace), timeout_s=SCAN_TIMEOUT_S, namespace=namespace)


@task(name=names.REEMBED, **COMMON, **limits(REEMBED_SOFT_LIMIT_S))
def reembed(task: Any, overrides: dict[str, Any]) -> Any:
    """Store-wide and one at a time: a second request while one runs is dropped (the
    running one covers it; a request for another embedder is refused by the service)."""
    from thoughtgraph.features.reembedding.jobs import reembed as job

    client = redis_client(str(task.app.conf.broker_url))
    try:
        with single_flight(client, STORE_WIDE, timeout_s=LOCK_TIMEOUT_S, purpose=REEMBED_LOCK):
            return call(task, lambda rt: job(rt, overrides), timeout_s=REEMBED_SOFT_LIMIT_S)
    except NamespaceBusyError:
        log.info("reembed.left_to_the_running_one", task_id=task.request.id)
        return {"skipped": True}
    finally:
        client.close()


@task(name=names.WRITE_INSIGHTS, **RUN)
def write_insights(task: Any, namespace: str) -> Any:
    """Not under the namespace's run lock: it only adds thoughts (with ids a retry finds)."""
    from thoughtgraph.features.insights.jobs import write_insights as job

    return call(
        task, lambda rt: job(rt, namespace), timeout_s=RUN_HARD_LIMIT_S, namespace=namespace
    )


@task(name=names.EXTRACT_FACTS, **SCAN)
def extract_facts(task: Any, namespace: str, thought_id: str) -> Any:
    from thoughtgraph.features.extraction.jobs import extract_facts as job

    return call(
        task,
        lambda rt: job(rt, namespace, thought_id),
        timeout_s=SCAN_TIMEOUT_S,
        namespace=namespace,
    )


# --- fan-out for beat ---------------------------------------------------------------------
def namespaces(task: Any) -> list[str]:
    from thoughtgraph.features.ops.namespaces import active_namespaces

    found: list[str] = call(task, active_namespaces, timeout_s=SCAN_TIMEOUT_S)
    return found


def fan_out(task: Any, child: str, expires_s: float) -> dict[str, Any]:
    """One ``child(namespace)`` per active namespace, each dropped if not started within
    ``expires_s`` (the next slot queues it again)."""
    found = namespaces(task)
    for namespace in found:
        task.app.send_task(child, args=(namespace,), expires=expires_s or None, ignore_result=True)
    log.info("schedule.fanned_out", task=task.name, child=child, namespaces=len(found))
    return {"namespaces": found}


@task(name=names.SCHEDULED_CONSOLIDATION, **FAN_OUT)
def scheduled_consolidation(task: Any) -> dict[str, Any]:
    """Creates each namespace's scheduled run, then queues it; a namespace whose last run
    is still going gets its new one once the lock is free."""
    from thoughtgraph.features.consolidation.jobs import start_scheduled_consolidation

    queued: dict[str, str] = {}
    for namespace in namespaces(task):

        def start(runtime: JobRuntime, namespace: str = namespace) -> Awaitable[str]:
            return start_scheduled_consolidation(runtime, namespace)

        run_id = host_of(task).run(start, SCAN_TIMEOUT_S)
        task.app.send_task(names.CONSOLIDATE, args=(namespace, run_id, False), ignore_result=True)
        queued[namespace] = run_id
    log.info("schedule.fanned_out", task=task.name, namespaces=len(queued))
    return {"runs": queued}


@task(name=names.SCHEDULED_CONTRADICTION_SCAN, **FAN_OUT)
def scheduled_contradiction_scan(task: Any) -> dict[str, Any]:
    every_s = host_of(task).settings.contradiction_scan_every_s
    return fan_out(task, names.SCAN_NAMESPACE, every_s)


@task(name=names.SCHEDULED_SCAN_SWEEP, **FAN_OUT)
def scheduled_scan_sweep(task: Any) -> dict[str, Any]:
    """A scan of new thoughts for each namespace with thoughts past its scan cursor."""
    from thoughtgraph.features.contradictions.jobs import namespaces_with_unscanned

    every_s = host_of(task).settings.scan_sweep_every_s
    behind: list[str] = call(task, namespaces_with_unscanned, timeout_s=SCAN_TIMEOUT_S)
    for namespace in behind:
        task.app.send_task(
            names.SCAN_NEW, args=(namespace,), expires=every_s or None, ignore_result=True
        )
    log.info("schedule.fanned_out", task=task.name, child=names.SCAN_NEW, namespaces=len(behind))
    return {"namespaces": behind}


@task(name=names.SCHEDULED_DECAY, **FAN_OUT)
def scheduled_decay(task: Any) -> dict[str, Any]:
    return fan_out(task, names.FORGET_AND_PURGE, host_of(task).settings.decay_every_s)


@task(name=names.SCHEDULED_CONSENT_EXPIRY, **FAN_OUT)
def scheduled_consent_expiry(task: Any) -> dict[str, Any]:
    return fan_out(task, names.EXPIRE_CONSENT, host_of(task).settings.consent_expiry_every_s)


@task(name=names.SCHEDULED_INSIGHTS, **FAN_OUT)
def scheduled_insights(task: Any) -> dict[str, Any]:
    return fan_out(task, names.WRITE_INSIGHTS, host_of(task).settings.insights_every_s)

"""``create_celery(settings)``: the Celery app of the service, the worker and beat.

Built by whoever needs it (the API to publish, ``thoughtgraph worker`` and ``beat``),
never at import. Delivery is at-least-once: a task is acknowledged after it ran
(``acks_late``), a worker process that dies running one gives it back
(``reject_on_worker_lost``), and a whole worker that dies holding one has it restored by
another worker after the visibility timeout. Jobs are idempotent, so a redelivered task
redoes its work harmlessly.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from thoughtgraph.ports.jobs import JobQueue, NoJobQueue
from thoughtgraph.settings import Settings
from thoughtgraph.workers.broker import broker_url_for
from thoughtgraph.workers.names import QUEUE, RUN_HARD_LIMIT_S
from thoughtgraph.workers.queue import celery_job_queue
from thoughtgraph.workers.runtime_host import RuntimeHost
from thoughtgraph.workers.schedule import beat_schedule, schedule_file
from thoughtgraph.workers.tasks import WorkerCelery

# A delivered but unacknowledged message goes back to the queue this long after delivery
# (kombu's Redis transport). Longer than any run, so a run still going is never handed to
# a second worker; a worker that died holding one gives it back after this.
DEFAULT_VISIBILITY_TIMEOUT_S = RUN_HARD_LIMIT_S + 600.0
# Results: only ping's (health checks wait for it) and the fan-outs' (which namespaces a
# slot covered) are kept; jobs record their outcome in the graph (run nodes), so storing
# every task's return value would only fill the broker.
RESULT_EXPIRES_S = 3600


def create_celery(settings: Settings, *, visibility_timeout_s: float | None = None) -> Celery:
    """The app with its configuration, beat schedule and tasks; connects to nothing.

    ``visibility_timeout_s``: see DEFAULT_VISIBILITY_TIMEOUT_S (tests make it short)."""
    return create_worker_app(settings, visibility_timeout_s=visibility_timeout_s)[0]


def create_worker_app(
    settings: Settings, *, visibility_timeout_s: float | None = None
) -> tuple[WorkerCelery, RuntimeHost]:
    """``create_celery``, and the RuntimeHost its tasks run jobs on, for a worker to start
    in each of its processes (it opens lazily on the first task otherwise)."""
    broker = broker_url_for(settings)
    app = WorkerCelery("thoughtgraph", set_as_current=False)
    app.conf.update(celery_config(settings, broker, visibility_timeout_s))
    app.host = RuntimeHost(
        settings,
        # Jobs that write thoughts ask for scans through the same broker.
        queue_factory=lambda: celery_job_queue(app, settings),
    )
    return app, app.host


def build_job_queue(settings: Settings, *, worker_expected: bool) -> JobQueue:
    """The API process's queue: Celery whenever a worker will consume it (the service's
    own worker on one machine, or any deployment with ``TG_BROKER_URL``), else nothing.

    Raises ``ConfigurationError`` when a worker is expected on Neo4j without a broker."""
    if not worker_expected and settings.broker_url is None:
        return NoJobQueue()
    return celery_job_queue(create_celery(settings), settings)


def celery_config(
    settings: Settings, broker: str, visibility_timeout_s: float | None = None
) -> dict[str, Any]:
    visibility = visibility_timeout_s or DEFAULT_VISIBILITY_TIMEOUT_S
    transport_options: dict[str, Any] = {
        "visibility_timeout": visibility,
        # Look for abandoned messages a few times per visibility timeout (kombu's default
        # looks every 100 s), at most once a minute: one ZRANGE on the broker.
        "unacked_restore_interval": max(1, min(60, int(visibility / 4))),
        "unacked_restore_throttle": 1,
        # A publish to a broker that vanished without closing the connection fails
        # instead of hanging the publishing thread forever.
        "socket_timeout": 30,
    }
    return {
        "broker_url": broker,
        "broker_transport_options": transport_options,
        "broker_connection_retry_on_startup": True,
        "result_backend": broker,
        "result_backend_transport_options": {"socket_timeout": 30},
        "result_expires": RESULT_EXPIRES_S,
        "task_ignore_result": True,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "task_default_queue": QUEUE,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        # A long run must not hold other tasks prefetched behind it.
        "worker_prefetch_multiplier": 1,
        # With late acks the tasks of a lost broker connection are redelivered anyway;
        # running them on would duplicate the work.
        "worker_cancel_long_running_tasks_on_connection_loss": True,
        # Our structured logging stays in charge (stderr, JSON with TG_LOG_FORMAT=json).
        "worker_hijack_root_logger": False,
        "worker_redirect_stdouts": False,
        "worker_concurrency": settings.worker_concurrency,
        "beat_schedule": dict(beat_schedule(settings)),
        "beat_schedule_filename": str(schedule_file(settings)),
        "timezone": "UTC",
        "enable_utc": True,
    }

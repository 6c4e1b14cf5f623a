"""Metrics and traces of real processes on both engines: a `thoughtgraph worker` serves
its task metrics on its own port, the service's /metrics shows the broker's queue depth
and the worker's operational events, and a `thoughtgraph serve` with an OTLP endpoint
sends its spans to a receiver the test runs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.observability_support import scrape, value
from tests.otlp_receiver import OTLPReceiver
from tests.redis_server import RedisServer
from tests.store_backends import Neo4jTestTarget, service_settings
from tests.support import (
    THOUGHTGRAPH_CLI,
    GraphQLClient,
    eventually,
    free_port,
    hash_embedder_env,
    serve_in_thread,
    serve_process,
    worker_process,
)
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.app import build_job_queue, create_celery
from thoughtgraph.workers.broker import redis_client

pytestmark = pytest.mark.slow

CONTRIBUTE = """
mutation($ns: String!, $content: String!) {
  contribute(input: {namespace: $ns, content: $content, agentId: "agent-1",
                     agentName: "Agent"}) { thought { id } }
}"""
EVENTS = """query($ns: String!) {
  operationalEvents(namespace: $ns, node: WORKER) { op status } }"""


def target_of(request: pytest.FixtureRequest, engine: str) -> Neo4jTestTarget | None:
    return request.getfixturevalue("neo4j_target") if engine == "neo4j" else None


def process_env(
    engine: str, data_dir: Path, target: Neo4jTestTarget | None, **extra: str
) -> dict[str, str]:
    """A child's environment: the hash embedder on a fresh embedded engine; on the
    session's Neo4j the local model its schema was built with."""
    env = hash_embedder_env(data_dir, **extra)
    if target is not None:
        del env["TG_EMBEDDING_DIMENSION"]
        env.update(
            TG_EMBEDDER="local",
            TG_NEO4J_URI=target.uri,
            TG_NEO4J_USER=target.user,
            TG_NEO4J_PASSWORD=target.password,
            TG_NEO4J_DATABASE=target.database,
        )
    return env


@pytest.fixture
def service(
    request: pytest.FixtureRequest,
    engine: str,
    tmp_path: Path,
    redis: RedisServer,
    local_embedder: TextEmbedder,
) -> Iterator[tuple[GraphQLClient, Settings, Neo4jTestTarget | None]]:
    """The service in this process, publishing to the test's Redis."""
    target = target_of(request, engine)
    broker = f"redis://127.0.0.1:{redis.port}/{12 if engine == 'neo4j' else 13}"
    client = redis_client(broker)
    client.flushdb()
    client.close()
    overrides: dict[str, Any] = {"broker_url": broker, "scan_on_write": True}
    if target is None:
        overrides.update(embedder=EmbedderKind.HASH, embedding_dimension=64)
    settings = service_settings(engine, tmp_path / "data", target, **overrides)
    app = create_app(
        settings,
        embedder=local_embedder if target is not None else None,
        job_queue=build_job_queue(settings, worker_expected=True),
    )
    with serve_in_thread(app) as base_url:
        api = GraphQLClient(base_url, engine)
        yield api, settings, target
        api.close()


def test_a_worker_serves_its_task_metrics_and_records_worker_events(
    service: tuple[GraphQLClient, Settings, Neo4jTestTarget | None], tmp_path: Path, ns: str
) -> None:
    api, settings, target = service
    celery = create_celery(settings)
    # Before any worker runs, a queued task waits in the broker: the service's gauge sees it.
    pending = celery.send_task(names.PING)
    depth = scrape(f"{api.base_url}/metrics")
    assert value(depth, "tg_queue_depth", queue="thoughtgraph") >= 1

    port = free_port()
    env = process_env(
        settings.engine,
        settings.data_dir,
        target,
        TG_BROKER_URL=str(settings.broker_url),
        TG_WORKER_METRICS_PORT=str(port),
    )
    with worker_process(env, tmp_path / "worker.log"):
        assert pending.get(timeout=120)["pid"] != os.getpid()
        api.data(CONTRIBUTE, ns=ns, content="The ledger closes at midnight UTC.")
        worker_events = eventually(
            lambda: api.data(EVENTS, ns=ns)["operationalEvents"],
            timeout=90,
            what="the worker's scan event",
        )
        assert {"op": "scan_new", "status": "OK"} in worker_events

        url = f"http://127.0.0.1:{port}/metrics"
        samples = scrape(url)
        ok = {"state": "SUCCESS"}
        assert value(samples, "tg_worker_tasks_total", task=names.PING, **ok) == 1
        assert value(samples, "tg_worker_tasks_total", task=names.SCAN_NEW, **ok) >= 1
        assert value(samples, "tg_worker_task_seconds_count", task=names.PING) == 1
        # The worker's own store statements, measured in the worker.
        assert value(samples, "tg_engine_statement_seconds_count") > 0
    drained = scrape(f"{api.base_url}/metrics")
    assert value(drained, "tg_queue_depth", queue="thoughtgraph") == 0


def test_a_service_sends_its_spans_to_the_configured_collector(
    request: pytest.FixtureRequest, engine: str, tmp_path: Path, ns: str
) -> None:
    target = target_of(request, engine)
    port = free_port()
    with OTLPReceiver() as receiver:
        env = process_env(
            engine,
            tmp_path / "data",
            target,
            TG_OTLP_ENDPOINT=receiver.endpoint,
            OTEL_BSP_SCHEDULE_DELAY="100",  # export every 0.1 s instead of every 5 s
        )
        command = [*THOUGHTGRAPH_CLI, "serve", "--no-worker", "--port", str(port)]
        with serve_process(command, port=port, env=env, log=tmp_path / "serve.log") as (_, http):
            answer = http.post(
                "/graphql",
                json={
                    "query": CONTRIBUTE,
                    "variables": {"ns": ns, "content": "Traces reach the collector."},
                },
            )
            assert answer.status_code == 200 and "errors" not in answer.json(), answer.text

            def contribute_traced() -> list[Any] | None:
                spans = receiver.received()
                roots = [s for s in spans if s.name == "graphql mutation contribute"]
                if not roots:
                    return None
                children = [
                    s
                    for s in spans
                    if s.name == "cypher thought.create" and s.parent_span_id == roots[0].span_id
                ]
                return [roots[0], *children] if children else None

            root, child, *_ = eventually(contribute_traced, timeout=30, what="the spans")
    assert child.trace_id == root.trace_id
    assert child.attributes["db.operation.name"] == "thought.create"
    assert root.service_name == "thoughtgraph"

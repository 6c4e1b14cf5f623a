"""Insights about people end to end, on both engines: the service over real HTTP queues
``thoughtgraph.write_insights`` (requestInsights) on a real Redis, a real `thoughtgraph
worker` process (attached to the service's engine) runs it against a model server the test
runs, whose first answer is a 429; what it wrote is read back through GraphQL. Nothing runs
eagerly in the test process."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.features.insights.test_insights import played
from tests.processes.test_maintenance_worker import ping, worker_env
from tests.redis_server import RedisServer
from tests.store_backends import ENGINES, worker_deployment_settings
from tests.support import GraphQLClient, eventually, log_events, serve_in_thread, worker_process
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.app import build_job_queue, create_celery

pytestmark = pytest.mark.slow
CONTRIBUTE = """mutation($input: ContributeInput!) {
  contribute(input: $input) { thought { id } } }"""
REQUEST = "mutation($ns: String!) { requestInsights(namespace: $ns) }"
INSIGHTS = """query($ns: String!) {
  thoughts(namespace: $ns, filter: {kind: INSIGHT}, first: 50) {
    nodes { id content kind category importance pinned about scope tags agentName }
  }
}"""


@dataclass
class Deployment:
    engine: str
    api: GraphQLClient
    settings: Settings
    tmp: Path


@pytest.fixture(scope="module", params=ENGINES)
def deployment(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    local_embedder: TextEmbedder,
    redis: RedisServer,
) -> Iterator[Deployment]:
    engine = str(request.param)
    tmp = tmp_path_factory.mktemp(f"insights-{engine}")
    settings = worker_deployment_settings(request, tmp, redis.port, 10, scan_on_write=False)
    app = create_app(
        settings,
        embedder=local_embedder,
        job_queue=build_job_queue(settings, worker_expected=True),
    )
    with serve_in_thread(app) as base_url:
        api = GraphQLClient(base_url, engine)
        yield Deployment(engine, api, settings, tmp)
        api.close()


@pytest.fixture
def model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        server.chat_responder = played
        yield server


@pytest.fixture
def worker(deployment: Deployment, model: FakeOpenAIServer, ns: str) -> Iterator[Path]:
    """One worker with the model for the test alone; its JSON log is what the test reads."""
    env = worker_env(
        deployment.settings,
        TG_LLM_MODEL="openai/test-insights",
        TG_LLM_API_BASE=model.base_url,
        TG_LLM_API_KEY="test",
        TG_LLM_CACHE="false",
        TG_SCAN_ON_WRITE="false",
    )
    log = deployment.tmp / f"{ns}-worker.log"
    with worker_process(env, log, "--visibility-timeout", "3"):
        ping(deployment.settings)
        yield log


def contribute(api: GraphQLClient, ns: str, content: str, **fields: Any) -> str:
    data = {"content": content, "agentId": "agent-1", "agentName": "Agent", "namespace": ns}
    found = api.data(CONTRIBUTE, input=data | fields)["contribute"]["thought"]
    return str(found["id"])


def runs(log: Path, ns: str) -> list[dict[str, Any]]:
    return [
        e
        for e in log_events(log)
        if e.get("event") == "job.done"
        and e.get("task") == names.WRITE_INSIGHTS
        and e.get("namespace") == ns
    ]


def insights(api: GraphQLClient, ns: str) -> list[dict[str, Any]]:
    return list(api.data(INSIGHTS, ns=ns)["thoughts"]["nodes"])


def test_requested_insights_are_written_by_the_worker_once_a_day(
    deployment: Deployment, worker: Path, model: FakeOpenAIServer, ns: str
) -> None:
    api = deployment.api
    for text in (
        "Ana leads the payments team.",
        "Ana prefers answers as bullet lists.",
        "Ana asked the agents for fewer status pings.",
    ):
        contribute(api, ns, text, about="ana")
    contribute(api, ns, "Bob is learning Rust on weekends.", scope="PRIVATE", userId="bob")
    model.queue_chat("slow down", status=429, retry_after="0")  # then the played model

    assert api.data(REQUEST, ns=ns) == {"requestInsights": True}
    eventually(lambda: runs(worker, ns), 90, "the insights job")
    written = insights(api, ns)
    assert sorted(t["about"] for t in written) == ["ana", "ana", "bob", "bob"]
    for thought in written:
        assert (thought["kind"], thought["category"], thought["importance"]) == (
            "INSIGHT",
            "relationship_dynamic",
            2,
        )
        assert (thought["pinned"], thought["scope"], thought["agentName"]) == (
            False,
            "PRIVATE",
            "insights",
        )
        assert thought["content"].startswith(thought["about"].title() + " ")
    assert len(model.chat_requests) == 3  # the 429, then one answer per person
    assert all(r.json["temperature"] == 0 for r in model.chat_requests)
    assert all(r.json["max_tokens"] <= 220 for r in model.chat_requests)

    # Again within the day: both are skipped, nothing is asked or written.
    assert api.data(REQUEST, ns=ns) == {"requestInsights": True}
    eventually(lambda: len(runs(worker, ns)) >= 2, 90, "the second insights job")
    assert len(model.chat_requests) == 3
    assert sorted(t["id"] for t in insights(api, ns)) == sorted(t["id"] for t in written)


def test_the_scheduled_insights_run_in_every_active_namespace(
    deployment: Deployment, worker: Path, model: FakeOpenAIServer, ns: str
) -> None:
    """What beat starts: the fan-out lists the namespaces and queues one job each."""
    other = f"{ns}-b"
    for namespace in (ns, other):
        contribute(deployment.api, namespace, "Carol reviews every release.", about="carol")
    fan_out = create_celery(deployment.settings).send_task(names.SCHEDULED_INSIGHTS)
    assert {ns, other} <= set(fan_out.get(timeout=60)["namespaces"])
    for namespace in (ns, other):

        def ran(namespace: str = namespace) -> list[dict[str, Any]]:
            return runs(worker, namespace)

        eventually(ran, 90, f"the insights job in {namespace}")
        assert [t["about"] for t in insights(deployment.api, namespace)] == ["carol", "carol"]

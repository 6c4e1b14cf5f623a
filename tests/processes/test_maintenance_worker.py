"""Knowledge that maintains itself, end to end, on both engines: the service over real
HTTP publishes to a real Redis, a real `thoughtgraph worker` process (attached to the
service's engine) runs the jobs. Nothing runs eagerly in the test process."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.redis_server import RedisServer
from tests.store_backends import ENGINES, worker_deployment_settings
from tests.support import (
    GraphQLClient,
    eventually,
    serve_in_thread,
    wait_for_event,
    worker_process,
)
from thoughtgraph.domain.knowledge import pair_fingerprint
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.clock import OffsetFileClock
from thoughtgraph.server import create_app
from thoughtgraph.settings import Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.app import build_job_queue, create_celery

pytestmark = pytest.mark.slow
T = TypeVar("T")
SERVICES = (
    "billing",
    "checkout",
    "search",
    "catalog",
    "inventory",
    "shipping",
    "pricing",
    "reviews",
    "accounts",
    "notifications",
    "analytics",
    "ledger",
    "payouts",
    "refunds",
    "loyalty",
    "recommendations",
    "media",
    "gateway",
    "scheduler",
    "reports",
    "audit",
    "identity",
    "messaging",
    "geocoding",
    "fraud",
    "tax",
    "invoicing",
    "subscriptions",
    "warehouse",
    "support",
)


@dataclass
class Deployment:
    engine: str
    api: GraphQLClient
    settings: Settings
    env: dict[str, str]  # a worker's environment for this deployment
    clock: OffsetFileClock
    tmp: Path


def worker_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(
        settings.child_environment(),  # the local embedder (worker_deployment_settings)
        TG_DATA_DIR=str(settings.data_dir),
        TG_BROKER_URL=str(settings.broker_url),
        TG_LOG_FORMAT="json",
        TG_CLOCK_FILE=str(settings.clock_file),
    )
    env.update(extra)
    return env


@pytest.fixture(scope="module", params=ENGINES)
def deployment(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    local_embedder: TextEmbedder,
    redis: RedisServer,
) -> Iterator[Deployment]:
    engine = str(request.param)
    tmp = tmp_path_factory.mktemp(f"maintained-{engine}")
    settings = worker_deployment_settings(request, tmp, redis.port, 14, scan_on_write=True)
    app = create_app(
        settings,
        embedder=local_embedder,
        job_queue=build_job_queue(settings, worker_expected=True),
    )
    with serve_in_thread(app) as base_url:
        api = GraphQLClient(base_url, engine)
        yield Deployment(
            engine, api, settings, worker_env(settings), OffsetFileClock(tmp / "clock"), tmp
        )
        api.close()


def ping(settings: Settings) -> None:
    """Until a worker answers: its runtime is open and it takes tasks."""
    create_celery(settings).send_task(names.PING).get(timeout=90)


@pytest.fixture
def worker(deployment: Deployment, ns: str) -> Iterator[None]:
    """One worker for the test alone (each test owns the broker's consumers)."""
    log = deployment.tmp / f"{ns}-worker.log"
    with worker_process(deployment.env, log, "--visibility-timeout", "3"):
        ping(deployment.settings)
        yield


CONTRIBUTE = """
mutation($ns: String!, $content: String!, $importance: Int) {
  contribute(input: {namespace: $ns, content: $content, agentId: "agent-1",
                     agentName: "Agent", importance: $importance}) { thought { id } }
}"""
CONTRADICTIONS = """
query($ns: String!, $status: ContradictionStatus) {
  contradictions(namespace: $ns, status: $status) {
    id status relation detector thoughtAId thoughtBId resolution
  }
}"""
RUN = """mutation($ns: String!, $dry: Boolean) {
  runConsolidation(namespace: $ns, dryRun: $dry) { id status } }"""
RUN_STATUS = """query($ns: String!, $id: ID!) {
  consolidationRun(namespace: $ns, id: $id) {
    status attempts error
    counts { candidates deduped assigned summarised superseded contradictionsFound links }
  }
}"""
SEARCH = """query($ns: String!, $q: String!, $current: Boolean) {
  search(namespace: $ns, query: $q, currentOnly: $current) {
    thought { id } superseded supersededBy
  }
}"""
REVISION = (
    "query($ns: String!) { changes(namespace: $ns, afterRevision: 0, limit: 1) { revision } }"
)


def contribute(api: GraphQLClient, ns: str, content: str, importance: int = 3) -> str:
    data = api.data(CONTRIBUTE, ns=ns, content=content, importance=importance)
    return str(data["contribute"]["thought"]["id"])


def contradictions(api: GraphQLClient, ns: str, status: str | None = None) -> list[Any]:
    return list(api.data(CONTRADICTIONS, ns=ns, status=status)["contradictions"])


def run_to_end(api: GraphQLClient, ns: str, *, dry: bool = False, timeout: float = 90) -> Any:
    run = api.data(RUN, ns=ns, dry=dry)["runConsolidation"]
    assert run["status"] == "QUEUED"

    def finished() -> Any:
        found = api.data(RUN_STATUS, ns=ns, id=run["id"])["consolidationRun"]
        return found if found["status"] in ("SUCCEEDED", "FAILED") else None

    done = eventually(finished, timeout, f"run {run['id']} to finish")
    assert done["status"] == "SUCCEEDED", done
    return done


def revision(api: GraphQLClient, ns: str) -> int:
    return int(api.data(REVISION, ns=ns)["changes"]["revision"])


def settled_revision(api: GraphQLClient, ns: str, quiet_s: float = 3.0) -> int:
    """The revision once the scans queued by earlier writes have all run: unchanged for
    ``quiet_s`` (each scan that links or flags something writes)."""
    last, since = revision(api, ns), time.monotonic()
    deadline = since + 90
    while time.monotonic() - since < quiet_s:
        assert time.monotonic() < deadline, "the namespace never settled"
        time.sleep(0.3)
        now = revision(api, ns)
        if now != last:
            last, since = now, time.monotonic()
    return last


def test_a_write_is_scanned_and_a_contradiction_resolved_by_a_person(
    deployment: Deployment, worker: None, ns: str
) -> None:
    api = deployment.api
    older = contribute(api, ns, "The billing service listens on port 8080.")
    newer = contribute(api, ns, "The billing service now listens on port 9443.")
    contribute(api, ns, "The auth service listens on port 9443.")
    contribute(api, ns, "Alice also likes coffee in the afternoon.")
    found = eventually(lambda: contradictions(api, ns, "OPEN"), what="the scan after the write")
    assert len(found) == 1
    assert (found[0]["thoughtAId"], found[0]["thoughtBId"]) == (older, newer)
    assert found[0]["relation"] == "update" and found[0]["detector"] == "rules"

    resolved = api.data(
        """mutation($ns: String!, $id: ID!) {
             resolveContradiction(namespace: $ns, id: $id, resolution: B_WINS,
                                  note: "moved behind TLS") { status resolution resolvedBy } }""",
        ns=ns,
        id=found[0]["id"],
    )["resolveContradiction"]
    assert resolved == {"status": "RESOLVED", "resolution": "B_WINS", "resolvedBy": "Agent"} or (
        resolved["status"] == "RESOLVED" and resolved["resolution"] == "B_WINS"
    )
    hits = api.data(SEARCH, ns=ns, q="which port does the billing service listen on")["search"]
    ids = [h["thought"]["id"] for h in hits]
    assert ids.index(newer) < ids.index(older)
    assert next(h for h in hits if h["thought"]["id"] == older)["supersededBy"] == newer
    current = api.data(SEARCH, ns=ns, q="billing service port", current=True)["search"]
    assert older not in [h["thought"]["id"] for h in current]
    # Every scan has run by now; the compatible look-alikes were never flagged.
    run_to_end(api, ns)
    assert len(contradictions(api, ns)) == 1


def test_consolidation_merges_supersedes_forms_topics_and_undoes(
    deployment: Deployment, worker: None, ns: str
) -> None:
    api = deployment.api
    first = contribute(api, ns, "Deployments go out through the GitHub Actions pipeline.")
    second = contribute(api, ns, "Deployments go out through the GitHub Actions pipeline!")
    old_size = contribute(api, ns, "The search cluster has 3 nodes.")
    new_size = contribute(api, ns, "The search cluster now has 5 nodes.")
    for text in (
        "The payments API rate limit is 100 requests per second per client.",
        "Clients that exceed the payments API rate limit get HTTP 429 responses.",
        "The payments API rate limit resets every second.",
        "Payments API rate limits are counted per API key.",
        "The payments API returns a Retry-After header when a client is rate limited.",
    ):
        contribute(api, ns, text)
    eventually(lambda: contradictions(api, ns), what="the scan of the cluster sizes")
    before = settled_revision(api, ns)
    dry = run_to_end(api, ns, dry=True)
    assert revision(api, ns) == before  # a dry run changes nothing
    done = run_to_end(api, ns)
    assert done["counts"] == dry["counts"]
    assert done["counts"]["deduped"] == 2 and done["counts"]["superseded"] == 1
    assert done["counts"]["summarised"] >= 1

    hits = api.data(SEARCH, ns=ns, q="how many nodes does the search cluster have")["search"]
    by_id = {h["thought"]["id"]: h for h in hits}
    assert by_id[old_size]["supersededBy"] == new_size
    merged = api.data(
        "query($ns: String!, $id: ID!) {"
        " thought(namespace: $ns, id: $id) { supersededBy { id } } }",
        ns=ns,
        id=first,
    )["thought"]["supersededBy"]["id"]
    topics = api.data(
        "query($ns: String!) { topics(namespace: $ns) { name thoughtCount summary } }", ns=ns
    )["topics"]
    assert any(t["thoughtCount"] >= 5 and t["summary"] for t in topics)

    restored = api.data(
        """mutation($ns: String!, $id: ID!) {
             undoConsolidation(namespace: $ns, thoughtId: $id) { id state supersededAt } }""",
        ns=ns,
        id=merged,
    )["undoConsolidation"]
    assert {t["id"] for t in restored} == {first, second}
    assert all(t["state"] == "ACTIVE" and t["supersededAt"] is None for t in restored)


def test_forgetting_and_purge_follow_the_clock(
    deployment: Deployment, worker: None, ns: str
) -> None:
    api = deployment.api
    stale = contribute(api, ns, "A passing remark about the office plants.", importance=1)
    kept = contribute(api, ns, "Production credentials are in Vault.", importance=5)
    app = create_celery(deployment.settings)
    state = "query($ns: String!, $id: ID!) { thought(namespace: $ns, id: $id) { state } }"

    def decay() -> dict[str, Any]:
        result = app.send_task(names.FORGET_AND_PURGE, args=(ns,))
        del result
        return {}

    deployment.clock.advance(61 * DAY_MS)
    try:
        decay()
        eventually(
            lambda: api.data(state, ns=ns, id=stale)["thought"]["state"] == "SOFT_DELETED",
            what="forgetting after 60 days",
        )
        assert api.data(state, ns=ns, id=kept)["thought"]["state"] == "ACTIVE"
        deployment.clock.advance(31 * DAY_MS)
        decay()
        eventually(
            lambda: api.data(state, ns=ns, id=stale)["thought"] is None,
            what="purge 30 days after forgetting",
        )
    finally:
        deployment.clock.advance(-(61 + 31) * DAY_MS)


def test_a_worker_killed_mid_run_leaves_a_consistent_graph_and_the_retry_completes(
    deployment: Deployment, ns: str
) -> None:
    """Its own workers: small pages, so the run is surely mid-way when the first dies."""
    api = deployment.api
    for name in SERVICES:
        contribute(api, ns, f"The {name} service keeps its runbook in the {name} wiki space.")
        contribute(api, ns, f"The {name} service keeps its runbook in the {name} wiki space!")
    env = {**deployment.env, "TG_CONSOLIDATION_BATCH_SIZE": "6", "TG_SCAN_ON_WRITE": "false"}
    logs = [deployment.tmp / f"{ns}-first.log", deployment.tmp / f"{ns}-second.log"]
    with worker_process(env, logs[0], "--visibility-timeout", "3") as first:
        ping(deployment.settings)
        run = api.data(RUN, ns=ns, dry=False)["runConsolidation"]
        wait_for_event(logs[0], "consolidation.page", timeout=60, namespace=ns)
        os.killpg(first.pid, signal.SIGKILL)
    with worker_process(env, logs[1], "--visibility-timeout", "3"):
        done = eventually(
            lambda: (
                found
                if (found := api.data(RUN_STATUS, ns=ns, id=run["id"])["consolidationRun"])[
                    "status"
                ]
                == "SUCCEEDED"
                else None
            ),
            timeout=120,
            what="the redelivered run",
        )
    assert done["attempts"] == 2
    # Every pair merged exactly once: 30 merged thoughts, each over its two sources.
    events = api.data(
        """query($ns: String!) { changes(namespace: $ns, limit: 500) {
             events { kind subjectId sourceIds } } }""",
        ns=ns,
    )["changes"]["events"]
    merges = [e for e in events if e["kind"] == "MERGED"]
    assert len(merges) == len({e["subjectId"] for e in merges}) == 30
    merged_sources = [s for e in merges for s in e["sourceIds"]]
    assert len(merged_sources) == len(set(merged_sources)) == 60
    assigned = [s for e in events if e["kind"] == "ASSIGNED" for s in e["sourceIds"]]
    assert len(assigned) == len(set(assigned))  # no thought joined a topic twice


def test_the_llm_path_through_a_worker_with_a_rate_limit(deployment: Deployment, ns: str) -> None:
    """The judge is a model behind an OpenAI-compatible server the test runs; its first
    answer is HTTP 429, which the worker retries instead of failing the scan."""
    api = deployment.api
    with FakeOpenAIServer() as model:
        env = {
            **deployment.env,
            "TG_LLM_MODEL": "openai/test-judge",
            "TG_LLM_API_BASE": model.base_url,
            "TG_LLM_API_KEY": "test",
            "TG_LLM_CACHE": "false",
            "TG_SCAN_ON_WRITE": "false",
        }
        log = deployment.tmp / f"{ns}-llm.log"
        with worker_process(env, log, "--visibility-timeout", "3"):
            ping(deployment.settings)
            older = contribute(api, ns, "The staging database runs PostgreSQL 14.")
            newer = contribute(api, ns, "The staging database runs PostgreSQL 16.")
            pair = pair_fingerprint(ns, older, newer)
            model.queue_chat("slow down", status=429, retry_after="0")
            model.queue_chat(
                f'{{"verdicts": [{{"pair_id": "{pair}", "relation": "update", "confidence": 0.9,'
                ' "explanation": "the version changed"}]}'
            )
            app = create_celery(deployment.settings)
            app.send_task(names.SCAN_THOUGHTS, args=(ns, [newer]))
            found = eventually(lambda: contradictions(api, ns), what="the LLM judge's verdict")
    assert found[0]["detector"] == "openai/test-judge"
    assert found[0]["relation"] == "update"
    statuses = [r for r in model.chat_requests]
    assert len(statuses) == 2  # the 429, then the answer

"""The admin mutation, on both engines: `reembed` over real HTTP with API keys queues
``thoughtgraph.reembed`` on a real Redis, a real `thoughtgraph worker` process (attached to
the service's engine) runs it, and `vectorSpaces` shows the switch. Only an admin of every
namespace may ask; settings that cannot work are refused; nothing is queued then."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_api_keys import Keyed, codes
from tests.processes.test_maintenance_worker import ping
from tests.redis_server import RedisServer
from tests.support import (
    GraphQLClient,
    eventually,
    log_events,
    serve_in_thread,
    wait_for_event,
    worker_process,
)
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import ALL_NAMESPACES, Role
from thoughtgraph.server import create_app
from thoughtgraph.settings import Settings
from thoughtgraph.workers import names
from thoughtgraph.workers.app import build_job_queue
from thoughtgraph.workers.broker import redis_client

pytestmark = pytest.mark.slow

NS = "queued"
CONTRIBUTE_MANY = """mutation($inputs: [ContributeManyInput!]!) {
  contributeMany(inputs: $inputs) { revision } }"""
REEMBED = """mutation($embedder: String!, $dimension: Int) {
  reembed(embedder: $embedder, dimension: $dimension) { active { embedder } next { embedder } }
}"""
SPACES = "{ vectorSpaces { active { slot embedder dimension } next { embedder } retiredSlot } }"
SEARCH = """query($q: String!) {
  search(query: $q, namespace: "queued", k: 3, hybrid: false) { thought { content } similarity }
}"""
TEXTS = [f"Queue {i} drains {i * 10} messages a second at peak" for i in range(12)]


def keys_for(path: Path) -> tuple[KeyFile, dict[str, str]]:
    keys = KeyFile(path)
    texts = {}
    for label, namespaces, role in (
        ("admin", [ALL_NAMESPACES], Role.ADMIN),
        ("admin-of-one", [NS], Role.ADMIN),
        ("writer", [ALL_NAMESPACES], Role.WRITER),
    ):
        _, texts[label] = keys.create(
            name=label, namespaces=namespaces, agent_id=label, agent_name=label, role=role
        )
    return keys, texts


def test_an_admin_queues_a_reembed_that_a_worker_runs(
    hashed_settings: Callable[..., Settings], redis: RedisServer, tmp_path: Path
) -> None:
    broker = f"redis://127.0.0.1:{redis.port}/13"
    redis_client(broker).flushdb()
    keys, texts = keys_for(tmp_path / "keys.json")
    settings = hashed_settings(broker_url=broker, keys_file=keys.path, reembed_grace_s=1.0)
    app = create_app(settings, job_queue=build_job_queue(settings, worker_expected=True))
    with serve_in_thread(app) as base_url:
        keyed = Keyed(GraphQLClient(base_url), keys, texts, {})
        admin = texts["admin"]

        def spaces() -> dict[str, Any]:
            return dict(keyed.body(SPACES, texts["writer"])["data"]["vectorSpaces"])

        inputs = [{"content": t, "agentId": "a", "agentName": "A", "namespace": NS} for t in TEXTS]
        assert not keyed.body(CONTRIBUTE_MANY, admin, inputs=inputs).get("errors")
        assert codes(keyed.body(REEMBED, texts["writer"], embedder="hash", dimension=24)) == [
            "FORBIDDEN"
        ]
        assert codes(keyed.body(REEMBED, texts["admin-of-one"], embedder="hash", dimension=24)) == [
            "FORBIDDEN"
        ]
        assert codes(keyed.body(REEMBED, admin, embedder="word2vec")) == ["VALIDATION_ERROR"]
        assert codes(keyed.body(REEMBED, admin, embedder="hash")) == ["VALIDATION_ERROR"]
        assert spaces() == {
            "active": {"slot": 0, "embedder": "hash:32", "dimension": 32},
            "next": None,
            "retiredSlot": None,
        }

        env = {
            **_base_env(),
            **settings.child_environment(),
            "TG_DATA_DIR": str(settings.data_dir),
            "TG_BROKER_URL": broker,
            "TG_REEMBED_GRACE_S": "1",
            "TG_LOG_FORMAT": "json",
        }
        log = tmp_path / "worker.log"
        with worker_process(env, log, "--visibility-timeout", "3"):
            ping(settings)
            asked = keyed.body(REEMBED, admin, embedder="hash", dimension=24)
            assert asked == {"data": {"reembed": {"active": {"embedder": "hash:32"}, "next": None}}}
            eventually(
                lambda: (
                    spaces()["active"]["embedder"] == "hash:24" and spaces()["retiredSlot"] is None
                ),
                120,
                "the worker's re-embed and drop",
            )
            # The worker logs the job's end just after its last write, so wait for the line.
            wait_for_event(log, "job.done", timeout=30, task=names.REEMBED)
            done = [e for e in log_events(log) if e.get("event") == "job.done"]
            assert [e["task"] for e in done if e["task"] == names.REEMBED] == [names.REEMBED]
        assert spaces()["active"] == {"slot": 1, "embedder": "hash:24", "dimension": 24}
        hits = keyed.body(SEARCH, texts["writer"], q=TEXTS[5])["data"]["search"]
        assert any(h["thought"]["content"] == TEXTS[5] and h["similarity"] > 0.999 for h in hits)
        keyed.api.close()


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("TG_")}

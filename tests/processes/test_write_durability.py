"""What follows an acknowledged write survives the service being killed right after it.

`thoughtgraph serve` on the embedded engine, with its own worker and beat, as real
processes. The write's contradiction scan is asked for after the acknowledgement, and
here it is held in the service (a coalescing window of a minute) when the service is
killed: the request is certainly lost. The write's change event, stored in the write's
own statement, is the record of the work: after a restart the worker's sweep reads it
back past the namespace's scan cursor and the scan happens."""

from __future__ import annotations

import signal
import subprocess
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.processes.test_serve_process import running_service
from tests.support import eventually, wait_for_event
from thoughtgraph.workers import names

pytestmark = pytest.mark.slow

CONTRIBUTE = """mutation($input: ContributeInput!) {
  contribute(input: $input) { thought { id } revision guidance { similarThoughtId } } }"""
CHANGES = """query($ns: String!) {
  changes(namespace: $ns) { revision events { revision kind subjectId } } }"""
CONTRADICTIONS = """query($ns: String!) {
  contradictions(namespace: $ns) { thoughtAId thoughtBId relation } }"""
THOUGHT = """query($ns: String!, $id: ID!) { thought(namespace: $ns, id: $id) { id } }"""
NS = "durable"


def data(client: httpx.Client, query: str, **variables: Any) -> dict[str, Any]:
    body = client.post("/graphql", json={"query": query, "variables": variables}).json()
    assert not body.get("errors"), body
    found: dict[str, Any] = body["data"]
    return found


def serve(
    data_dir: Path,
) -> AbstractContextManager[tuple[subprocess.Popen[bytes], httpx.Client, Path]]:
    return running_service(
        data_dir,
        TG_EMBEDDER="local",  # the scan judges real sentences
        TG_EMBEDDING_DIMENSION="384",
        TG_SCAN_COALESCE_S="60",  # the request is still held when the service dies
        TG_SCAN_SWEEP_EVERY_S="1",
    )


def contribute(client: httpx.Client, content: str) -> dict[str, Any]:
    thought = {"content": content, "agentId": "a", "agentName": "A", "namespace": NS}
    written: dict[str, Any] = data(client, CONTRIBUTE, input=thought)["contribute"]
    return written


def test_a_scan_lost_with_a_killed_service_happens_after_the_restart(data_dir: Path) -> None:
    with serve(data_dir) as (process, client, log):
        older = contribute(client, "The billing service listens on port 8080.")
        newer = contribute(client, "The billing service now listens on port 9443.")
        cache = contribute(client, "The search service keeps a warm cache of queries.")
        twin = contribute(client, "The search service keeps a warm cache of queries.")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    # The scan request never left the killed process.
    assert not [
        line
        for line in log.read_text().splitlines()
        if names.SCAN_NEW in line and "received" in line
    ]
    # The answer given before the kill stands: guidance pointed at the stored twin.
    assert twin["guidance"] == {"similarThoughtId": cache["thought"]["id"]}

    with serve(data_dir) as (_process, client, log):
        wait_for_event(log, "worker.child_started", timeout=60)
        ids = [w["thought"]["id"] for w in (older, newer, cache, twin)]
        for thought_id in ids:
            assert data(client, THOUGHT, ns=NS, id=thought_id)["thought"] == {"id": thought_id}

        def flagged() -> list[Any] | None:
            found = data(client, CONTRADICTIONS, ns=NS)["contradictions"]
            return found or None

        (found,) = eventually(flagged, timeout=120, what="the scan after the restart")
        assert (found["thoughtAId"], found["thoughtBId"]) == (ids[0], ids[1])
        assert found["relation"] == "update"
        # The change log is gapless: every revision once, the writes' first and in order.
        changes = data(client, CHANGES, ns=NS)["changes"]
        revisions = [event["revision"] for event in changes["events"]]
        assert revisions == list(range(1, len(revisions) + 1))
        created = [e["subjectId"] for e in changes["events"] if e["kind"] == "CREATED"]
        assert created == ids
        assert [w["revision"] for w in (older, newer, cache, twin)] == [1, 2, 3, 4]

"""Buffered writes are not lost at shutdown. A `thoughtgraph serve` stopped with SIGINT or
SIGTERM right after it answered writes what it had buffered behind them (operational
events, usage counts): a restart on the same data dir finds all of it, and the shutdown
leaves no pending task behind."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections import Counter
from pathlib import Path

import pytest

from tests.processes.test_serve_process import CONTRIBUTE, post, running_service
from tests.support import LoopThread, repos
from thoughtgraph.features.ops.service import OpsService
from thoughtgraph.ports.clock import SystemClock
from thoughtgraph.store.cypher_store import CypherGraphStore

NS = "shutdown"
SEARCH = "query($ns: String!, $q: String!) { search(namespace: $ns, query: $q) { thought { id } } }"
EVENTS = """query($ns: String!) { operationalEvents(namespace: $ns, first: 100) { node op } }"""
ACCESS = "query($id: ID!, $ns: String!) { thought(id: $id, namespace: $ns) { accessCount } }"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_shutdown_writes_what_it_buffered(data_dir: Path, sig: signal.Signals) -> None:
    with running_service(data_dir) as (process, client, log):
        written = [
            post(
                client,
                CONTRIBUTE,
                input={
                    "content": f"shutdown {i}",
                    "agentId": "s",
                    "agentName": "S",
                    "namespace": NS,
                },
            )["contribute"]["thought"]["id"]  # type: ignore[index]
            for i in range(3)
        ]
        retrieved: Counter[str] = Counter()
        for _ in range(5):
            hits = post(client, SEARCH, ns=NS, q="shutdown")["search"]
            retrieved.update(hit["thought"]["id"] for hit in hits)  # type: ignore[attr-defined]
        # At once: the last events and the usage counts are still buffered (their writes
        # wait 0.2 s and 1 s after the first thing buffered).
        process.send_signal(sig)
        assert process.wait(timeout=60) == 0  # the service ended itself
    output = log.read_text()
    assert "Task was destroyed" not in output and "never awaited" not in output, output[-3000:]
    assert retrieved, "the searches found nothing to count"

    with running_service(data_dir) as (_process, client, _log):
        events: list[dict[str, str]] = post(client, EVENTS, ns=NS)["operationalEvents"]  # type: ignore[assignment]
        ops = Counter(event["op"] for event in events)
        assert sum(ops.values()) == len(written) + 5, ops
        for thought_id in written:
            got = post(client, ACCESS, id=thought_id, ns=NS)["thought"]
            assert got == {"accessCount": retrieved[thought_id]}


def test_closing_waits_for_the_write_in_progress(loop: LoopThread, store: CypherGraphStore) -> None:
    """Closed while its background write is half done (one namespace written, the others
    not yet), the recorder finishes that write before it returns, and no task is left."""
    service = OpsService(repos(store).ops, store, SystemClock(), keep=1000)
    prefix = f"t-{uuid.uuid4().hex[:8]}"
    namespaces = [f"{prefix}-{i}" for i in range(20)]  # a new namespace each: a slow write

    async def close_mid_write() -> tuple[list[int], list[asyncio.Task[object]]]:
        for namespace in namespaces:
            service.recorder.record(namespace, "search")
        for _ in range(2000):  # until the write has begun: the first namespace has its event
            if await service.events(namespaces[0]):
                break
            await asyncio.sleep(0.005)
        await service.close()
        written = [len(await service.events(namespace)) for namespace in namespaces]
        left = [t for t in asyncio.all_tasks() if "_flush_soon" in repr(t.get_coro())]
        return written, left

    written, left = loop.run(close_mid_write())
    assert written == [1] * len(namespaces)
    assert left == []

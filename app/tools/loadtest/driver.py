"""Open-loop load against a running service: requests start on a fixed schedule whatever
the answers, and each latency runs from the request's scheduled start, so queueing in the
service shows up in the figures (no coordinated omission)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

SEARCH = "query($q: String!, $ns: String!) { search(query: $q, namespace: $ns, k: 10) { id } }"
LINEAGE = (
    "query($id: ID!, $ns: String!) { lineage(id: $id, namespace: $ns) "
    "{ truncated chain { thoughtId depth } } }"
)
CONTRIBUTE = (
    "mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } revision } }"
)
REFINE = "mutation($input: RefineInput!) { refine(input: $input) { thought { id } revision } }"
WORDS = ("graph", "memory", "agent", "lineage", "vector", "cache", "latency", "schema", "topic")
MAX_OUTSTANDING = 2_000  # beyond this the service is not keeping up: count, do not queue


@dataclass
class Outcome:
    operation: str
    latency_s: float
    error: str | None


@dataclass
class Workload:
    """What the load works on: a namespace with thoughts and refinement chains to walk."""

    client: httpx.AsyncClient
    namespace: str
    thought_ids: list[str] = field(default_factory=list)
    chain_roots: list[str] = field(default_factory=list)
    acknowledged: dict[str, int] = field(default_factory=dict)  # written id -> revision
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def text(self, words: int = 8) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(words))

    async def call(self, document: str, **variables: Any) -> dict[str, Any]:
        response = await self.client.post(
            "/graphql", json={"query": document, "variables": variables}
        )
        body: dict[str, Any] = response.json()
        if response.status_code != 200 or body.get("errors"):
            codes = [(e.get("extensions") or {}).get("code") for e in body.get("errors") or []]
            raise RuntimeError(f"HTTP {response.status_code} {codes}")
        data: dict[str, Any] = body["data"]
        return data

    def thought_input(self, content: str) -> dict[str, Any]:
        return {
            "content": content,
            "agentId": "loadtest",
            "agentName": "Load Test",
            "namespace": self.namespace,
        }

    # --- the operations ----------------------------------------------------------------
    async def search(self) -> None:
        await self.call(SEARCH, q=self.text(6), ns=self.namespace)

    async def lineage(self) -> None:
        await self.call(LINEAGE, id=self.rng.choice(self.chain_roots), ns=self.namespace)

    async def contribute(self) -> None:
        data = await self.call(CONTRIBUTE, input=self.thought_input(self.text()))
        written = data["contribute"]
        self._acknowledge(written["thought"]["id"], written["revision"])

    async def refine(self) -> None:
        source = self.rng.choice(self.thought_ids)
        data = await self.call(
            REFINE, input={**self.thought_input(self.text()), "sourceId": source}
        )
        written = data["refine"]
        self._acknowledge(written["thought"]["id"], written["revision"])

    def _acknowledge(self, thought_id: str, revision: int) -> None:
        self.acknowledged[thought_id] = revision
        self.thought_ids.append(thought_id)

    async def seed(self, thoughts: int, chains: int, chain_depth: int) -> None:
        for _ in range(thoughts):
            await self.contribute()
        for _ in range(chains):
            data = await self.call(CONTRIBUTE, input=self.thought_input(self.text()))
            root = data["contribute"]["thought"]["id"]
            self._acknowledge(root, data["contribute"]["revision"])
            previous = root
            for _ in range(chain_depth):
                refined = await self.call(
                    REFINE, input={**self.thought_input(self.text()), "sourceId": previous}
                )
                previous = refined["refine"]["thought"]["id"]
                self._acknowledge(previous, refined["refine"]["revision"])
            self.chain_roots.append(root)


Operation = tuple[str, Callable[[], Awaitable[None]]]


def choose(mix: Sequence[tuple[Operation, float]], rng: random.Random) -> Operation:
    point = rng.random() * sum(weight for _, weight in mix)
    for operation, weight in mix:
        point -= weight
        if point <= 0:
            return operation
    return mix[-1][0]


async def open_loop(
    mix: Sequence[tuple[Operation, float]], *, rate: float, duration_s: float, seed: int = 11
) -> tuple[list[Outcome], float]:
    """Start ``rate`` operations a second for ``duration_s``; the outcomes and the time
    the last one finished after the start."""
    rng = random.Random(seed)
    outcomes: list[Outcome] = []
    pending: set[asyncio.Task[None]] = set()

    async def run(name: str, call: Callable[[], Awaitable[None]], scheduled: float) -> None:
        error: str | None = None
        try:
            await call()
        except Exception as exc:  # every failure is a result of the test
            error = str(exc)[:200] or type(exc).__name__
        outcomes.append(Outcome(name, time.perf_counter() - scheduled, error))

    start = time.perf_counter()
    total = int(rate * duration_s)
    for i in range(total):
        scheduled = start + i / rate
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        name, call = choose(mix, rng)
        if len(pending) >= MAX_OUTSTANDING:
            outcomes.append(Outcome(name, 0.0, "not started: too many requests outstanding"))
            continue
        task = asyncio.create_task(run(name, call, scheduled))
        pending.add(task)
        task.add_done_callback(pending.discard)
    if pending:
        await asyncio.gather(*pending)
    return outcomes, time.perf_counter() - start

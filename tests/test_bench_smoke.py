"""``thoughtgraph bench`` runs end to end in a real process and prints its table.

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

REPO = Path(__file__).resolve().parent.parent

# A measured row: N, the label, then p50, p95 and the sample count.
_LATENCY = r"\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)"

LATENCY_ROWS = (
    "raw engine vector query (k=40)",
    "store search (vector_search k=10 + refiners)",
    "service search (SearchService, hash embedder)",
    "GraphQL search over HTTP",
    "lineage, 10-deep chain (LineageService)",
    "lineage, 10-deep chain (GraphQL over HTTP)",
)


def _bench_command() -> list[str]:
    script = Path(sys.executable).parent / "thoughtgraph"
    if script.exists():
        return [str(script), "bench"]
    return [sys.executable, "-m", "app.cli", "bench"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_prints_every_measurement(tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("TG_")  # never the developer's data dir or Neo4j
    }
    env["TG_LOG_LEVEL"] = "WARNING"
    result = subprocess.run(
        [*_bench_command(), "--sizes", "200", "--queries", "5", "--sentences", "16"],
        cwd=tmp_path,  # no .env file from the repository
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    out = result.stdout
    assert result.returncode == 0, f"stdout:\n{out}\nstderr:\n{result.stderr[-4000:]}"

    assert re.search(r"^machine: \d+ CPUs", out, re.M), out
    assert re.search(r"^python:  \w+ \d+\.\d+", out, re.M), out
    assert "engine:  embedded FalkorDB" in out, out

    for label in LATENCY_ROWS:
        match = re.search(r"^\s*200\s+" + re.escape(label) + _LATENCY + r"\s*$", out, re.M)
        assert match, f"no measured row {label!r} in:\n{out}"
        p50, p95, samples = float(match[1]), float(match[2]), int(match[3])
        assert 0 < p50 <= p95, (label, p50, p95)
        assert samples == 5, (label, samples)

    load = re.search(r"^\s*200\s+load \(bulk_create_originals.*?([\d,]+) thoughts/s\s*$", out, re.M)
    assert load and int(load[1].replace(",", "")) > 0, out
    ratio = re.search(r"ratio GraphQL search / raw query \(p50\)\s+(\d+\.\d+)x\s*$", out, re.M)
    assert ratio and float(ratio[1]) > 0, out

    embed = re.search(r"embed_documents, batch \d+\s+([\d,]+\.\d) sentences/s \(16 ", out)
    assert embed and float(embed[1].replace(",", "")) > 0, out
    query = re.search(r"embed_query \(one text\)" + _LATENCY, out)
    assert query and float(query[1]) > 0, out

    assert "targets:" in out, out
    for target in ("GraphQL search p50 <= 1.5x", "search p50 < 20 ms", "lineage p50 < 10 ms"):
        assert re.search(r"^\s+(PASS|MISS)\s+" + re.escape(target), out, re.M), (target, out)

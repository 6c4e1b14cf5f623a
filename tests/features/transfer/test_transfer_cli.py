"""`thoughtgraph import` and `thoughtgraph export` as real processes on the embedded engine
(the hash embedder: the commands are under test, not the model)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.support import THOUGHTGRAPH_CLI, hash_embedder_env, run_cli

RECORD = {
    "content": "Refunds above 500 euros need a second approval",
    "kind": "decision",
    "tags": ["billing"],
    "agent": "bob",
}
TEXT = f"""The billing service retries failed card payments three times
Invoices are emailed on the first working day of the month

{json.dumps(RECORD)}
The billing service retries failed card payments three times
"""


def body(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_text_import_export_and_restore_as_processes(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text(TEXT, encoding="utf-8")
    first_dir = tmp_path / "first"

    loaded = run_cli(first_dir, "import", "--text", str(source), "--namespace", "notes")
    assert loaded.returncode == 0, loaded.stderr
    assert "3 thought(s) read, 3 new" in loaded.stderr
    # The same file again: its thoughts are found by their ids, nothing is written twice.
    again = run_cli(first_dir, "import", "--text", str(source), "--namespace", "notes")
    assert again.returncode == 0, again.stderr
    assert "3 thought(s) read, 0 new" in again.stderr

    exported = tmp_path / "export.jsonl"
    done = run_cli(first_dir, "export", "--namespace", "notes", str(exported))
    assert done.returncode == 0, done.stderr
    header = json.loads(exported.read_text(encoding="utf-8").splitlines()[0])
    assert header["embedder"] == "hash:64" and header["dimension"] == 64
    assert header["engine"] == "falkordb" and header["namespaces"] == ["notes"]
    records = body(exported)
    thoughts = [r for r in records if r["record"] == "node" and r["label"] == "Thought"]
    assert sorted(t["properties"]["content"] for t in thoughts) == sorted(
        {line.strip() for line in TEXT.splitlines() if line.strip() and "{" not in line}
        | {"Refunds above 500 euros need a second approval"}
    )
    refund = next(t for t in thoughts if t["properties"]["content"].startswith("Refunds"))
    assert refund["properties"]["kind"] == "decision"
    assert refund["properties"]["agentId"] == "bob" and refund["properties"]["tags"] == ["billing"]
    assert records[-1] == {"record": "changeLog", "namespace": "notes", "revision": 3}

    # Restored into a new data dir, twice: the same export, the same change log.
    second_dir = tmp_path / "second"
    for _ in range(2):
        restored = run_cli(second_dir, "import", str(exported))
        assert restored.returncode == 0, restored.stderr
        assert "vectors kept" in restored.stderr
    re_exported = tmp_path / "re-export.jsonl"
    assert run_cli(second_dir, "export", str(re_exported)).returncode == 0
    assert body(re_exported) == records

    # An engine built for another dimension: the texts are embedded again.
    third_dir = tmp_path / "third"
    other = run_cli(third_dir, "import", str(exported), TG_EMBEDDING_DIMENSION="32")
    assert other.returncode == 0, other.stderr
    assert "vectors embedded again" in other.stderr
    moved = tmp_path / "moved.jsonl"
    exported_again = run_cli(third_dir, "export", str(moved), TG_EMBEDDING_DIMENSION="32")
    assert exported_again.returncode == 0, exported_again.stderr
    moved_thoughts = [r for r in body(moved) if r["record"] == "node" and r["label"] == "Thought"]
    assert {len(t["vector"]) for t in moved_thoughts} == {32}


def test_bad_files_are_refused_with_a_clear_code(tmp_path: Path) -> None:
    not_export = tmp_path / "plain.jsonl"
    not_export.write_text('{"hello": 1}\n', encoding="utf-8")
    refused = run_cli(tmp_path / "data", "import", str(not_export))
    assert refused.returncode == 2
    assert "[VALIDATION_ERROR]" in refused.stderr and "not a thoughtgraph-export" in refused.stderr

    bad_text = tmp_path / "bad.txt"
    bad_text.write_text('fine line\n{"content": "x", "kind": "gossip"}\n', encoding="utf-8")
    refused = run_cli(tmp_path / "data", "import", "--text", str(bad_text))
    assert refused.returncode == 2
    assert "[VALIDATION_ERROR]" in refused.stderr and "line 2" in refused.stderr


def test_an_export_that_fails_midway_leaves_no_file(tmp_path: Path) -> None:
    """The export's reader goes away after the header (a named pipe whose consumer died):
    the write fails half-way, the command fails and removes the path it was given."""
    data_dir = tmp_path / "data"
    source = tmp_path / "many.txt"
    # Far more than a pipe's 64 KiB: the export blocks on the full pipe, then breaks.
    source.write_text("".join(f"Fact number {i} about the billing service\n" for i in range(400)))
    assert run_cli(data_dir, "import", "--text", str(source)).returncode == 0
    fifo = tmp_path / "export.jsonl"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [*THOUGHTGRAPH_CLI, "export", str(fifo)],
        env=hash_embedder_env(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        header = _first_line(fifo, timeout_s=120)
    finally:
        stderr = _stderr_after(process, timeout_s=120)
    assert header["format"] == "thoughtgraph-export"
    assert process.returncode == 1, stderr
    assert "BrokenPipeError" in stderr and "exported" not in stderr
    assert not fifo.exists()


def _first_line(fifo: Path, *, timeout_s: float) -> dict[str, Any]:
    """Read the pipe until its first line, then close it: the writer's next write breaks."""
    descriptor = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    read = b""
    deadline = time.monotonic() + timeout_s
    try:
        while b"\n" not in read:
            ready, _, _ = select.select([descriptor], [], [], max(deadline - time.monotonic(), 0))
            assert ready, f"no export line within {timeout_s} s"
            chunk = os.read(descriptor, 65536)
            assert chunk, "the export closed the pipe before its first line"
            read += chunk
    finally:
        os.close(descriptor)
    return dict(json.loads(read.split(b"\n", 1)[0]))


def _stderr_after(process: subprocess.Popen[str], *, timeout_s: float) -> str:
    try:
        _, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
    return str(stderr)

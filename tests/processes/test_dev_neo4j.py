"""`thoughtgraph dev-neo4j` as a user runs it: a clear error without Java or Maven; with
them, a Neo4j that answers on the printed Bolt URI, logs into its home and stops cleanly."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from tests.processes.test_serve_process import pid_alive
from tests.support import skip_or_fail
from thoughtgraph.tools.neo4j.dist import DevToolMissingError, find_java, find_maven

THOUGHTGRAPH = [sys.executable, "-m", "thoughtgraph", "dev-neo4j"]


def run_without(tmp_path: Path, keep: list[str]) -> subprocess.CompletedProcess[str]:
    """Run dev-neo4j with a PATH holding only ``keep`` and an empty class-path cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in keep:
        found = shutil.which(tool)
        assert found, f"{tool} is needed for this test"
        (bin_dir / tool).symlink_to(found)
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PATH")}
    env.update(PATH=str(bin_dir), XDG_CACHE_HOME=str(tmp_path / "cache"))
    return subprocess.run(
        [*THOUGHTGRAPH, "--data-dir", str(tmp_path / "neo4j")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_java_it_says_so(tmp_path: Path) -> None:
    done = run_without(tmp_path, keep=[])
    assert done.returncode == 2
    assert "[DEV_TOOL_MISSING]" in done.stderr
    assert "Java 17 or newer is needed" in done.stderr
    assert not (tmp_path / "neo4j").exists()  # nothing started, nothing written


def test_without_maven_it_says_so(tmp_path: Path) -> None:
    if shutil.which("java") is None:
        skip_or_fail("needs java on PATH to get as far as Maven")
    done = run_without(tmp_path, keep=["java"])
    assert done.returncode == 2
    assert "[DEV_TOOL_MISSING]" in done.stderr
    assert "Maven (`mvn`) is needed" in done.stderr


def tools_or_skip() -> None:
    try:
        find_java()
        find_maven()
    except DevToolMissingError as exc:
        skip_or_fail(exc.message)


def wait_for_line(process: subprocess.Popen[bytes], output: Path, marker: str) -> str:
    """The command's output (a file: a pipe read line by line can hide buffered lines
    from select) once ``marker`` is in it."""
    deadline = time.monotonic() + 600
    while marker not in (seen := output.read_text(errors="replace")):
        assert process.poll() is None, f"exited with {process.returncode}:\n{seen}"
        assert time.monotonic() < deadline, f"no {marker!r} in:\n{seen}"
        time.sleep(0.2)
    return seen


def test_a_port_in_use_is_refused_before_anything_starts(tmp_path: Path) -> None:
    tools_or_skip()
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [*THOUGHTGRAPH, "--data-dir", str(tmp_path / "neo4j"), "--bolt-port", str(port)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 2
    assert f"the Bolt port {port} on 127.0.0.1 is in use" in done.stderr


@pytest.mark.slow
def test_starts_answers_on_the_printed_uri_and_stops_on_sigterm(tmp_path: Path) -> None:
    tools_or_skip()
    home, output = tmp_path / "neo4j", tmp_path / "output.txt"
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [*THOUGHTGRAPH, "--data-dir", str(home), "--bolt-port", "0", "--http-port", "0"],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        banner = wait_for_line(process, output, "Ctrl-C stops it.")
        uri = next(line.split()[1] for line in banner.splitlines() if "bolt:" in line)
        assert uri.startswith("bolt://127.0.0.1:")
        with GraphDatabase.driver(uri, auth=None) as driver:
            records, _, _ = driver.execute_query("RETURN 41 + 1 AS answer", database_="neo4j")
            assert records[0]["answer"] == 42
        assert (home / "logs" / "neo4j.log").is_file()
        assert (home / "logs" / "console.log").is_file()
        server_pid = int((home / "run" / "neo4j.pid").read_text().strip())
        assert pid_alive(server_pid)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=120) == 0
        deadline = time.monotonic() + 30
        while pid_alive(server_pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not pid_alive(server_pid), "the Neo4j server outlived its command"
        assert "Stopped." in (home / "logs" / "neo4j.log").read_text()
        assert "Neo4j stopped (exit 0)" in output.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

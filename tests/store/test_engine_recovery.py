"""Recovery and durability of the embedded engine, as `thoughtgraph serve` processes:
the watchdog brings a dead engine back without waiting for a request, readiness tells the
truth (and in seconds when the engine is busy), a full disk refuses writes without
losing an acknowledged one (fsync always, on a 5 MB filesystem the test mounts), data
files are private, a data dir that cannot be written is a clear start-up error."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.processes.test_serve_process import (
    CONTRIBUTE,
    GET,
    THOUGHTGRAPH,
    engine_pid,
    pid_alive,
    post,
    running_service,
    service_env,
)
from tests.support import free_port, skip_or_fail

SEARCH = "query($q: String!) { search(query: $q, k: 3) { id } }"


def serving(
    data_dir: Path, **env: str
) -> contextlib.AbstractContextManager[tuple[subprocess.Popen[bytes], httpx.Client, Path]]:
    # The log stays outside any filesystem the test mounts and unmounts.
    # The engine's own durability is under test: no worker child, whose broker traffic
    # (the engine is its Redis) would add writes of its own to the disk being filled.
    env = {"TG_SERVE_WORKER": "false", **env}
    return running_service(data_dir, log_dir=Path(tempfile.gettempdir()), **env)


def write(client: httpx.Client, content: str) -> dict[str, Any]:
    body = client.post(
        "/graphql",
        json={
            "query": CONTRIBUTE,
            "variables": {"input": {"content": content, "agentId": "d", "agentName": "D"}},
        },
    ).json()
    assert isinstance(body, dict), body
    return body


def wait_for(condition: Callable[[], object], timeout_s: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_dead_engine_comes_back_before_any_request(data_dir: Path) -> None:
    with serving(data_dir) as (_process, client, _log):
        ids = [write(client, f"kept {i}")["data"]["contribute"]["thought"]["id"] for i in range(50)]
        killed = engine_pid(data_dir)
        os.kill(killed, signal.SIGKILL)
        # No GraphQL request from here on: only the watchdog can bring the engine back.
        wait_for(lambda: not pid_alive(killed), what="the engine to die")
        wait_for(lambda: engine_pid(data_dir) != killed, what="a new engine pid")
        wait_for(lambda: client.get("/readyz").status_code == 200, what="readiness")
        assert pid_alive(engine_pid(data_dir))
        # Ready means usable: searches and reads succeed at once, none fails.
        for i in range(20):
            hits: Any = post(client, SEARCH, q=f"kept {i}")["search"]
            assert len(hits) == 3
        for thought_id in ids:
            assert post(client, GET, id=thought_id)["thought"] is not None


def test_readiness_answers_in_seconds_when_the_engine_does_not(data_dir: Path) -> None:
    # A stopped engine stands in for a busy one (a write waiting out an index build holds
    # its lock): the probe says so within its bound instead of hanging with the engine.
    with serving(data_dir) as (_process, client, _log):
        write(client, "the probe keeps answering")
        stopped = engine_pid(data_dir)
        os.kill(stopped, signal.SIGSTOP)
        try:
            busy = client.get("/readyz", timeout=5)  # a hanging probe times out: fails
            assert busy.status_code == 503
            assert busy.json()["status"] == "not_ready"
            assert "busy" in busy.json()["reason"]
        finally:
            os.kill(stopped, signal.SIGCONT)
        wait_for(lambda: client.get("/readyz").status_code == 200, what="readiness again")
        assert engine_pid(data_dir) == stopped  # busy is not dead: nothing restarted


def test_data_files_are_private_to_the_service(data_dir: Path) -> None:
    with serving(data_dir) as (_process, client, _log):
        write(client, "a secret worth keeping")
        engine_dir = data_dir / "falkordb"
        for directory in (data_dir, engine_dir):
            assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
        files = [p for p in engine_dir.rglob("*") if p.is_file()]
        assert any(p.name.endswith(".aof") for p in files)
        for path in [*files, data_dir / "thoughtgraph.lock"]:
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


# --- filesystems the test mounts ----------------------------------------------------------


@contextlib.contextmanager
def mounted_tmpfs(path: Path, size: str, *, read_only: bool = False) -> Iterator[Path]:
    """A real small filesystem (needs root; skipped elsewhere, a failure under CI=true)."""
    path.mkdir(parents=True, exist_ok=True)
    options = f"size={size},mode=0755" + (",ro" if read_only else "")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        skip_or_fail(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill_until_refused(client: httpx.Client, limit: int = 5_000) -> tuple[list[str], list[str]]:
    """Contribute until five writes in a row are refused; the acknowledged ids and the
    error codes seen."""
    acknowledged: list[str] = []
    codes: list[str] = []
    refused_in_a_row = 0
    for i in range(limit):
        body = write(client, f"filling the disk, thought {i}: " + "words " * 150)
        errors = body.get("errors")
        if not errors:
            acknowledged.append(body["data"]["contribute"]["thought"]["id"])
            refused_in_a_row = 0
            continue
        codes += [error["extensions"]["code"] for error in errors]
        refused_in_a_row += 1
        if refused_in_a_row == 5:
            return acknowledged, codes
    raise AssertionError(f"writes were never refused; codes seen: {set(codes)}")


@pytest.mark.parametrize("reserve", ["1000000", "0"], ids=["reserve", "no-reserve"])
def test_a_full_disk_refuses_writes_and_loses_no_acknowledged_one(
    tmp_path: Path, reserve: str
) -> None:
    """fsync always. With the reserve (the default, here 1 MB) writes are refused before
    the engine meets the full disk; without it the engine stops on the first append it
    cannot write, and that write is refused rather than replayed. Either way nothing
    acknowledged is lost, and once space is freed the service writes again."""
    with mounted_tmpfs(tmp_path / "small", "5m") as mount:
        filler = mount / "filler"
        filler.write_bytes(b"\0" * 1_500_000)  # freed later, to give the space back
        data_dir = mount / "data"
        env = {"TG_FALKORDB_FSYNC": "always", "TG_MIN_FREE_DISK_BYTES": reserve}
        with serving(data_dir, **env) as (_process, client, _log):
            acknowledged, codes = fill_until_refused(client)
            assert len(acknowledged) > 50
            assert "STORE_FULL" in codes
            # Refused writes are coded: full, or (without a reserve, while the engine comes
            # back) unavailable; never an internal error.
            assert set(codes) <= {"STORE_FULL", "STORE_UNAVAILABLE"}, codes
            if reserve != "0":
                assert set(codes) == {"STORE_FULL"}
                ready = client.get("/readyz").json()
                assert ready["ready"] is True and ready["writable"] is False
                os.kill(engine_pid(data_dir), signal.SIGKILL)
        filler.unlink()
        with serving(data_dir, **env) as (_process, client, _log):
            for thought_id in acknowledged:
                assert post(client, GET, id=thought_id)["thought"] is not None, thought_id
            changes: Any = post(client, "{ changes { revision } }")["changes"]
            assert changes["revision"] == len(acknowledged)
            body = write(client, "written once space returned")
            assert not body.get("errors"), body


def test_writes_resume_when_space_returns_without_a_restart(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "small", "5m") as mount:
        filler = mount / "filler"
        filler.write_bytes(b"\0" * 3_000_000)  # most of the disk, freed later
        data_dir = mount / "data"
        env = {"TG_FALKORDB_FSYNC": "always", "TG_MIN_FREE_DISK_BYTES": "500000"}
        with serving(data_dir, **env) as (_process, client, _log):
            acknowledged, codes = fill_until_refused(client)
            assert set(codes) == {"STORE_FULL"}
            filler.unlink()
            wait_for(lambda: client.get("/readyz").json()["writable"], what="room again")
            body = write(client, "written once space returned")
            assert not body.get("errors"), body
            assert post(client, GET, id=acknowledged[-1])["thought"] is not None


def test_a_data_dir_that_cannot_be_written_is_a_clear_start_up_error(tmp_path: Path) -> None:
    with mounted_tmpfs(tmp_path / "readonly", "1m", read_only=True) as mount:
        done = subprocess.run(
            [*THOUGHTGRAPH, "serve"],
            env=service_env(mount / "data", free_port()),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert "[ENGINE_START_FAILED]" in done.stderr
    assert "choose a TG_DATA_DIR this user can write" in done.stderr
    assert "Traceback" not in done.stderr

"""A start that finds the engine loading its data waits for it (the engine rebuilds every
index as it loads and answers nothing meanwhile: minutes for a large store), up to its
own limit, saying in the service's log what the engine is doing; a worker attaching to
that engine waits too. Loading is slowed for the test with the server's own
key-load-delay option, on a real engine process."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import pytest
import redis
from falkordb import FalkorDB
from structlog.testing import capture_logs

from tests.support import LoopThread
from thoughtgraph.domain.errors import EngineStartError
from thoughtgraph.settings import Settings
from thoughtgraph.store.factory import open_store
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB
from thoughtgraph.store.falkordb.loading import loading_in, loading_step

KEY_LOAD_DELAY_US = 1_500_000  # per key loaded: four keys take about six seconds
START_TIMEOUT_S = 2.0


class SlowLoadingEngine(EmbeddedFalkorDB):
    """Each key loaded takes KEY_LOAD_DELAY_US, and between keys the engine answers
    (LOADING), as it does while reading a large file."""

    def _command(self) -> list[str]:
        return [
            *super()._command(),
            "--key-load-delay", str(KEY_LOAD_DELAY_US),
            "--loading-process-events-interval-bytes", "1024",
        ]  # fmt: skip


@pytest.fixture
def stored(data_dir: Path) -> Path:
    """A data dir whose engine has four keys to load (a graph and three strings)."""
    engine = EmbeddedFalkorDB(data_dir)
    engine.start()
    try:
        graphs = FalkorDB(unix_socket_path=str(engine.socket_path))
        graphs.select_graph("g").query("CREATE (:N {x: 1})")
        graphs.close()
        client = redis.Redis(unix_socket_path=str(engine.socket_path))
        for i in range(3):
            client.set(f"k{i}", "v")
        client.close()
    finally:
        engine.stop()
    return data_dir


def test_a_start_waits_while_the_engine_loads(stored: Path) -> None:
    engine = SlowLoadingEngine(stored, start_timeout_s=START_TIMEOUT_S, load_timeout_s=120)
    began = time.monotonic()
    engine.start()
    try:
        assert time.monotonic() - began > START_TIMEOUT_S  # it waited past the start limit
        client = redis.Redis(unix_socket_path=str(engine.socket_path))
        assert client.get("k0") == b"v"  # and everything was loaded
        client.close()
        assert not engine.is_loading()
    finally:
        engine.stop()


def test_a_long_load_is_reported_with_what_the_engine_is_doing(stored: Path) -> None:
    engine = SlowLoadingEngine(
        stored, start_timeout_s=START_TIMEOUT_S, load_timeout_s=120, loading_report_s=1.0
    )
    with capture_logs() as logs:
        engine.start()
    try:
        reports = [entry for entry in logs if entry["event"] == "engine.loading"]
        assert len(reports) >= 2  # about six seconds of loading, reported every second
        assert [r["seconds"] for r in reports] == sorted(r["seconds"] for r in reports)
        assert all(r["data_dir"] == str(stored) and r["doing"] for r in reports)
        assert all(r["doing"] != "starting" for r in reports[1:])  # the engine's own words
    finally:
        engine.stop()


def test_the_loading_step_is_the_latest_line_of_the_latest_run() -> None:
    started = "7:M 28 Nov 2026 15:04:55.1 * Server initialized\n"
    decoding = "7:M 28 Nov 2026 15:04:55.2 * <module> Graph 'g' loading Labels matrix\n"
    indexes = "7:M 28 Nov 2026 15:04:55.3 * <module> Graph 'g' Constructing indexes.\n"
    base = "7:M 28 Nov 2026 15:05:01.8 * DB loaded from base file a.base.rdb: 6.7 seconds\n"
    assert loading_step(started + decoding) == "Graph 'g' loading Labels matrix"
    assert loading_step(started + decoding + indexes) == "Graph 'g' Constructing indexes."
    assert loading_step(started + indexes + base) == (
        "replaying the log written since its base file"
        " (DB loaded from base file a.base.rdb: 6.7 seconds)"
    )
    assert loading_step(indexes + started) == "Server initialized"  # only the latest run
    assert loading_step("") == "starting"
    assert loading_step(started + "not a line of the engine's\n") == "Server initialized"


def test_loading_past_its_limit_is_refused_clearly(stored: Path) -> None:
    engine = SlowLoadingEngine(stored, start_timeout_s=START_TIMEOUT_S, load_timeout_s=2.5)
    with pytest.raises(EngineStartError) as caught:
        engine.start()
    assert "did not load its data within" in caught.value.message
    assert "TG_FALKORDB_LOAD_TIMEOUT_S" in caught.value.message
    EmbeddedFalkorDB(stored).check_available()  # the lock was released


def test_a_worker_attaching_waits_for_its_owner_to_load(stored: Path) -> None:
    owner = SlowLoadingEngine(stored, start_timeout_s=START_TIMEOUT_S, load_timeout_s=120)
    starting = threading.Thread(target=owner.start)
    starting.start()
    loop = LoopThread()
    settings = Settings(
        data_dir=stored, falkordb_start_timeout_s=START_TIMEOUT_S, falkordb_load_timeout_s=120
    )
    stack = contextlib.AsyncExitStack()
    try:
        began = time.monotonic()
        store = loop.run(stack.enter_async_context(open_store(settings, attach=True)), 120)
        assert time.monotonic() - began > START_TIMEOUT_S
        assert loop.run(store.namespaces()) == []  # it answers
    finally:
        loop.run(stack.aclose())
        loop.close()
        starting.join()
        owner.stop()


def test_the_log_says_loading_between_initialised_and_ready() -> None:
    started = "1:M 23 Nov 2026 04:48:05.9 * Server initialized\n"
    loading = "1:M 23 Nov 2026 04:48:07.0 * <module> Graph 'g' Constructing indexes.\n"
    ready = "1:M 23 Nov 2026 04:50:26.4 * Ready to accept connections unix\n"
    assert loading_in(started + loading)
    assert not loading_in(started + loading + ready)
    assert not loading_in("")
    # A log of several runs: only the latest counts.
    assert loading_in(started + ready + started)
    assert not loading_in(started + started + ready)

"""The embedded FalkorDB engine as a real child process: locking, failures, crash recovery."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis
from falkordb import FalkorDB

from tests.store.test_store_contract import make_thought
from tests.support import LoopThread, repos, unit_vector
from thoughtgraph.domain.errors import DataDirLockedError, EngineStartError, SchemaMismatchError
from thoughtgraph.domain.models import ThoughtRecord
from thoughtgraph.settings import FsyncPolicy, Settings
from thoughtgraph.store import falkordb as falkordb_package
from thoughtgraph.store.factory import open_store
from thoughtgraph.store.falkordb import engine as engine_module
from thoughtgraph.store.falkordb.engine import EmbeddedFalkorDB

assert falkordb_package  # the package imports without starting anything


def test_constructing_an_engine_does_no_io(data_dir: Path) -> None:
    EmbeddedFalkorDB(data_dir)
    assert not data_dir.exists()


def test_second_engine_on_the_same_data_dir_is_refused(data_dir: Path) -> None:
    first = EmbeddedFalkorDB(data_dir)
    first.start()
    try:
        second = EmbeddedFalkorDB(data_dir)
        with pytest.raises(DataDirLockedError) as caught:
            second.start()
        assert str(os.getpid()) in caught.value.message
        assert str(data_dir) in caught.value.message
        assert first.is_running()
    finally:
        first.stop()
    assert not first.is_running()
    # Released on stop: the data dir can be opened again.
    again = EmbeddedFalkorDB(data_dir)
    again.start()
    again.stop()


def test_engine_runs_with_append_only_persistence(data_dir: Path) -> None:
    engine = EmbeddedFalkorDB(data_dir, fsync=FsyncPolicy.ALWAYS)
    engine.start()
    try:
        assert engine.socket_path.is_socket()
        client = redis.Redis(unix_socket_path=str(engine.socket_path), decode_responses=True)
        config = client.config_get("append*") | client.config_get("port")
        client.close()
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "always"
        assert config["port"] == "0"  # no TCP listener
    finally:
        engine.stop()
    assert any((data_dir / "falkordb").rglob("*.aof"))


def test_a_binary_that_cannot_start_gives_a_clear_error(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _server, module = engine_module._binaries()
    monkeypatch.setattr(engine_module, "_binaries", lambda: (Path("/bin/false"), module))
    engine = EmbeddedFalkorDB(data_dir, start_timeout_s=5)
    with pytest.raises(EngineStartError) as caught:
        engine.start()
    assert "exited during start-up" in caught.value.message
    # A failed start releases the lock.
    monkeypatch.undo()
    EmbeddedFalkorDB(data_dir).check_available()


def test_a_missing_binary_gives_a_clear_error(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _server, module = engine_module._binaries()
    missing = data_dir.parent / "no-such-redis-server"
    monkeypatch.setattr(engine_module, "_binaries", lambda: (missing, module))
    with pytest.raises(EngineStartError) as caught:
        EmbeddedFalkorDB(data_dir).start()
    assert "cannot start the embedded engine" in caught.value.message


def test_a_deep_data_dir_still_gets_a_working_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    engine = EmbeddedFalkorDB(deep)
    assert len(str(engine.socket_path)) <= 100
    engine.start()
    try:
        assert engine.socket_path.is_socket()
    finally:
        engine.stop()


def test_store_recovers_when_the_engine_is_killed(data_dir: Path) -> None:
    """SIGKILL the engine under a live store: the next call restarts it and loses nothing."""
    loop = LoopThread()
    stack = contextlib.AsyncExitStack()
    try:
        store = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
        loop.run(store.bootstrap(embedding_dimension=8, embedder="test"))
        written = []
        for i in range(30):
            thought = make_thought("default", f"durable {i}")
            record = ThoughtRecord(thought=thought, embedding=tuple(unit_vector(8, seed=i)))
            assert loop.run(
                repos(store).thoughts.create(
                    record, event_id=f"{thought.id}:created", event_kind="created"
                )
            )
            written.append(thought.id)
        engine_pid = int((data_dir / "falkordb" / "engine.pid").read_text())
        os.kill(engine_pid, signal.SIGKILL)
        found = loop.run(repos(store).thoughts.get_many("default", written))
        assert set(found) == set(written)
        new_pid = int((data_dir / "falkordb" / "engine.pid").read_text())
        assert new_pid != engine_pid
        assert loop.run(repos(store).changes.revision("default")) == 30
    finally:
        loop.run(stack.aclose())
        loop.close()


def test_an_orphaned_engine_from_a_killed_service_is_stopped_first(data_dir: Path) -> None:
    """An engine left running on the data dir (its service was SIGKILLed and the child
    survived) is found through its pid file and stopped before a new one starts."""
    engine = EmbeddedFalkorDB(data_dir)
    engine.engine_dir.mkdir(parents=True)
    server, module = engine_module._binaries()
    orphan = subprocess.run(
        [
            str(server),
            "--port",
            "0",
            "--unixsocket",
            str(engine.socket_path),
            "--daemonize",
            "yes",
            "--pidfile",
            str(engine.pid_path),
            "--dir",
            str(engine.engine_dir),
            "--loadmodule",
            str(module),
        ],
        check=True,
        capture_output=True,
    )
    assert orphan.returncode == 0
    deadline = time.monotonic() + 10
    while not engine.pid_path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    orphan_pid = int(engine.pid_path.read_text())
    engine.start()
    try:
        assert engine.pid != orphan_pid
        deadline = time.monotonic() + 10
        while Path(f"/proc/{orphan_pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not Path(f"/proc/{orphan_pid}").exists()
    finally:
        engine.stop()


def test_a_store_of_the_shared_index_layout_is_refused_clearly(data_dir: Path) -> None:
    """Schema version 1 kept every namespace in one graph and one vector index; this release
    cannot read it and says so rather than serving half of it."""
    engine = EmbeddedFalkorDB(data_dir)
    engine.start()
    try:
        client = FalkorDB(unix_socket_path=str(engine.socket_path))
        client.select_graph("thoughtgraph").query(
            "CREATE (:SchemaMeta {key: 'schema', embeddingDimension: 8, embedder: 'old',"
            " schemaVersion: 1, createdAt: 1})"
        )
        client.close()
    finally:
        engine.stop()
    loop = LoopThread()
    stack = contextlib.AsyncExitStack()
    try:
        store = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
        with pytest.raises(SchemaMismatchError) as caught:
            loop.run(store.bootstrap(embedding_dimension=8, embedder="test"))
        assert caught.value.code == "SCHEMA_MISMATCH"
        assert "schema version 1" in caught.value.message
    finally:
        loop.run(stack.aclose())
        loop.close()

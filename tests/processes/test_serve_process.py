"""`thoughtgraph serve` as a real process: durability across SIGKILL, the data dir lock,
clean shutdown, and `thoughtgraph config`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support import free_port, serve_process

THOUGHTGRAPH = [sys.executable, "-m", "thoughtgraph"]
CONTRIBUTE = """
mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } revision } }
"""
GET = "query($id: ID!) { thought(id: $id) { id content } }"


def service_env(data_dir: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(
        TG_DATA_DIR=str(data_dir),
        TG_API_PORT=str(port),
        TG_EMBEDDER="hash",  # the process wiring is under test here, not the model
        TG_EMBEDDING_DIMENSION="64",
        TG_LOG_FORMAT="json",
    )
    return env


@contextmanager
def running_service(
    data_dir: Path, *, log_dir: Path | None = None, **env: str
) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client, Path]]:
    """`thoughtgraph serve` on a free port until ready, with ``env`` over the test's TG_
    variables; yields it, a client and its log (in ``log_dir``, by default beside the data
    dir)."""
    port = free_port()
    log = (log_dir or data_dir.parent) / f"serve-{port}.log"
    command = [*THOUGHTGRAPH, "serve"]
    environment = service_env(data_dir, port) | env
    with serve_process(command, port=port, env=environment, log=log) as (process, client):
        yield process, client, log


def post(client: httpx.Client, query: str, **variables: object) -> dict[str, object]:
    body: dict[str, object] = client.post(
        "/graphql", json={"query": query, "variables": variables}
    ).json()
    assert not body.get("errors"), body
    data = body["data"]
    assert isinstance(data, dict)
    return data


def serve_once(data_dir: Path) -> subprocess.CompletedProcess[str]:
    """`thoughtgraph serve` expected to fail at start-up: run it to its exit."""
    return subprocess.run(
        [*THOUGHTGRAPH, "serve"],
        env=service_env(data_dir, free_port()),
        capture_output=True,
        text=True,
        timeout=60,
    )


def engine_pid(data_dir: Path) -> int:
    return int((data_dir / "falkordb" / "engine.pid").read_text())


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    status = Path(f"/proc/{pid}/status").read_text() if Path(f"/proc/{pid}").exists() else ""
    return "State:\tZ" not in status


def test_acknowledged_writes_survive_sigkill_of_the_engine(data_dir: Path) -> None:
    acknowledged: dict[str, str] = {}
    with running_service(data_dir) as (_process, client, _log):
        for i in range(40):
            content = f"durable thought {i}"
            data = post(
                client, CONTRIBUTE, input={"content": content, "agentId": "d", "agentName": "D"}
            )
            acknowledged[data["contribute"]["thought"]["id"]] = content  # type: ignore[index]
        killed = engine_pid(data_dir)
        os.kill(killed, signal.SIGKILL)
        # The running service brings its engine back and still has every write.
        for thought_id, content in list(acknowledged.items())[:5]:
            got = post(client, GET, id=thought_id)["thought"]
            assert got == {"id": thought_id, "content": content}
        assert engine_pid(data_dir) != killed
        # Kill the engine once more and stop the service: a fresh start recovers from disk.
        os.kill(engine_pid(data_dir), signal.SIGKILL)
    with running_service(data_dir) as (_process, client, _log):
        for thought_id, content in acknowledged.items():
            assert post(client, GET, id=thought_id)["thought"] == {
                "id": thought_id,
                "content": content,
            }
        revision = post(client, "{ changes { revision } }")["changes"]
        assert revision == {"revision": 40}


def test_second_serve_on_the_same_data_dir_fails_clearly(data_dir: Path) -> None:
    with running_service(data_dir) as (process, client, _log):
        second = serve_once(data_dir)
        assert second.returncode == 2
        assert "DATA_DIR_LOCKED" in second.stderr
        assert f"pid {process.pid}" in second.stderr
        assert client.get("/healthz").status_code == 200  # the first one is unharmed


def test_ctrl_c_stops_service_and_engine(data_dir: Path) -> None:
    with running_service(data_dir) as (process, _client, log):
        engine = engine_pid(data_dir)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        output = log.read_text()
    deadline = time.monotonic() + 10
    while pid_alive(engine) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(engine)
    events = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    ready = next(e for e in events if e.get("event") == "service.ready")
    assert ready["engine"] == "falkordb"
    assert ready["data_dir"] == str(data_dir)
    assert ready["embedder"] == "hash:64"
    assert any(e.get("event") == "store.closed" for e in events)


def test_engine_that_cannot_start_is_reported(data_dir: Path, tmp_path: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "falkordb").write_text("a file where the engine dir should be")
    result = serve_once(data_dir)
    # Found before the model loads or a port is bound: a clear error, exit 2.
    assert result.returncode == 2
    assert "thoughtgraph: error [ENGINE_START_FAILED]: cannot create the data dir" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_prints_effective_settings_with_secrets_masked(data_dir: Path) -> None:
    env = service_env(data_dir, 8123)
    env.update(TG_NEO4J_PASSWORD="hunter2", TG_EMBEDDING_API_KEY="sk-secret")
    result = subprocess.run(
        [*THOUGHTGRAPH, "config"], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    shown = json.loads(result.stdout)
    assert "hunter2" not in result.stdout and "sk-secret" not in result.stdout
    assert shown["neo4j_password"] == "***"
    assert shown["embedding_api_key"] == "***"
    assert shown["api_port"] == 8123
    assert shown["data_dir"] == str(data_dir)
    assert shown["engine"] == "falkordb"


def test_settings_read_a_dotenv_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TG_API_PORT=9911\nTG_NEO4J_URI=bolt://db:7687\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    result = subprocess.run(
        [*THOUGHTGRAPH, "config"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    shown = json.loads(result.stdout)
    assert shown["api_port"] == 9911
    assert shown["engine"] == "neo4j"


def test_serve_flags_win_over_the_environment(data_dir: Path, tmp_path: Path) -> None:
    flag_port, flag_dir = free_port(), tmp_path / "flag-data"
    env = service_env(data_dir, free_port())  # TG_API_PORT and TG_DATA_DIR: both overridden
    env["TG_API_HOST"] = "192.0.2.1"  # not an address of this machine: binding it would fail
    command = [*THOUGHTGRAPH, "serve", "--host", "127.0.0.1", "--port", str(flag_port)]
    command += ["--data-dir", str(flag_dir)]
    log = tmp_path / "serve.log"
    with serve_process(command, port=flag_port, env=env, log=log) as (_process, client):
        post(client, CONTRIBUTE, input={"content": "flags win", "agentId": "f", "agentName": "F"})
        assert engine_pid(flag_dir) > 0
    assert not data_dir.exists()


SEARCH = "query($ns: String!, $q: String!) { search(namespace: $ns, query: $q) { score } }"


def young_collections(client: httpx.Client) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith('python_gc_collections_total{generation="0"}'):
            return float(line.split()[-1])
    raise AssertionError("no python_gc_collections_total for generation 0 in /metrics")


def test_a_serving_process_collects_its_garbage_rarely(data_dir: Path) -> None:
    """`thoughtgraph serve` sets the collector for serving once started
    (app/garbage_collection.py): forty searches over a hundred thoughts, each reading a
    few hundred candidate values, run with a handful of young collections, where
    CPython's default threshold (700 allocations) collects several times per search."""
    with running_service(data_dir) as (_, client, _):
        for i in range(100):
            post(
                client,
                CONTRIBUTE,
                input={
                    "namespace": "gc",
                    "content": f"Deploy note {i}: the pipeline {i % 7} retries the billing step",
                    "agentId": "agent-1",
                    "agentName": "Agent",
                },
            )
        before = young_collections(client)
        for i in range(40):
            assert post(client, SEARCH, ns="gc", q=f"which pipeline retries billing {i % 5}")
        assert young_collections(client) - before < 10


def _idle_connection_open_after(port: int, idle_s: float) -> bool:
    """Whether the service still holds a connection open ``idle_s`` after answering on it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200"), answer
        time.sleep(idle_s)
        sock.setblocking(False)
        try:
            return sock.recv(1, socket.MSG_PEEK) != b""  # b"": the service closed it
        except BlockingIOError:
            return True  # nothing to read and not closed


def test_an_idle_connection_outlives_the_clients_own_idle_limit(data_dir: Path) -> None:
    # httpx drops a connection idle for 5 s; a service that closed its side at 5 s too
    # reset the requests sent at that moment (a ReadError every so often in the soak).
    with running_service(data_dir) as (_, client, _):
        port = int(str(client.base_url.port))
        assert _idle_connection_open_after(port, 6.0)


def test_the_keep_alive_setting_closes_idle_connections(data_dir: Path) -> None:
    with running_service(data_dir, TG_HTTP_KEEP_ALIVE_S="1") as (_, client, _):
        port = int(str(client.base_url.port))
        assert not _idle_connection_open_after(port, 2.5)

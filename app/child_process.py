"""Child processes the service and its tools start and own (the embedded engine, the dev
Neo4j server, a service under load), the loopback ports they listen on, and waiting for a
started service to be ready."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import httpx

from thoughtgraph.domain.errors import EngineStartError

_PR_SET_PDEATHSIG = 1


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def wait_until_ready(
    process: subprocess.Popen[bytes], base_url: str, timeout_s: float
) -> str | None:
    """Poll a started ``thoughtgraph serve`` until ``/readyz`` answers 200; None when it
    did, else why it never will (it exited, or the time ran out)."""
    deadline = time.monotonic() + timeout_s
    with httpx.Client(base_url=base_url, timeout=5) as client:
        while True:
            if process.poll() is not None:
                return f"the service exited with {process.returncode}"
            with contextlib.suppress(httpx.TransportError):
                if client.get("/readyz").status_code == 200:
                    return None
            if time.monotonic() > deadline:
                return f"the service was not ready after {timeout_s:.0f} s"
            time.sleep(0.1)


def die_with_parent() -> None:
    """``preexec_fn`` for a child: the kernel sends it SIGTERM when the spawning thread
    exits, so a killed parent leaves no orphan behind. Runs between fork and exec."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def die_with_parent_privately() -> None:
    """``die_with_parent``, and every file the child creates private to this user."""
    os.umask(0o077)
    die_with_parent()


class OwnedProcess:
    """What every owner of one child process can tell about it."""

    _process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _spawn_child(
        self,
        command: Sequence[str],
        *,
        what: str,
        stdout: IO[bytes] | int,
        stderr: IO[bytes] | int,
        cwd: Path | None = None,
        private_files: bool = False,
    ) -> None:
        """Start the child in a session of its own (Ctrl-C reaches the parent, which stops
        the child in order) that dies with its parent, with files private to this user if
        asked; ``EngineStartError`` if it cannot."""
        try:
            self._process = subprocess.Popen(
                list(command),
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                cwd=cwd,
                start_new_session=True,
                preexec_fn=die_with_parent_privately if private_files else die_with_parent,
            )
        except OSError as exc:
            raise EngineStartError(f"cannot start {what}: {exc}") from exc

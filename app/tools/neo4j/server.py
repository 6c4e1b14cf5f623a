"""A local Neo4j Community server for development and tests: `thoughtgraph dev-neo4j`.

It runs the community server (Bolt, HTTP and Neo4j Browser) from the jars Maven resolved
(see ``neo4j_dist``) as a child process on loopback ports, with its configuration, data and
logs in one home directory. Authentication is off: it listens on 127.0.0.1 only and is
for a developer's own machine or a test run, never for data that matters.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import FrameType
from typing import IO

from neo4j import GraphDatabase
from neo4j.exceptions import DriverError, Neo4jError

from thoughtgraph.child_process import OwnedProcess, free_port, port_is_free
from thoughtgraph.domain.errors import EngineStartError
from thoughtgraph.tools.neo4j.dist import Neo4jDistribution, resolve

# Neo4j's own defaults from the distribution's neo4j.conf (server.jvm.additional), minus
# AlwaysPreTouch, which would make start-up touch the whole heap.
JVM_OPTIONS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dfile.encoding=UTF-8",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
]
DEFAULT_DATABASE = "neo4j"
# Neo4j 5.26's internal.dbms.index.vector.standard_merge_factor (default 50): how many
# Lucene segments of one level a vector index keeps before merging them.
VECTOR_MERGE_FACTOR = 4


class DevNeo4jServer(OwnedProcess):
    """One Neo4j server process for one home directory. Constructing it does no I/O."""

    def __init__(
        self,
        home: Path,
        *,
        bolt_port: int = 7687,
        http_port: int = 7474,
        heap: str = "1g",
        pagecache: str = "512m",
        start_timeout_s: float = 180.0,
    ) -> None:
        self.home = home.expanduser().resolve()
        self.bolt_port = bolt_port
        self.http_port = http_port
        self.heap = heap
        self.pagecache = pagecache
        self.start_timeout_s = start_timeout_s
        self.console_log = self.home / "logs" / "console.log"
        self._process: subprocess.Popen[bytes] | None = None
        self._console: IO[bytes] | None = None
        self.distribution: Neo4jDistribution | None = None

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def browser_url(self) -> str:
        return f"{self.http_url}/browser/"

    # --- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Resolve the jars, write the configuration, start the server and wait until
        Bolt answers queries on the default database. Call from the main thread
        (PR_SET_PDEATHSIG follows the spawning thread)."""
        self.distribution = resolve()
        self.bolt_port = self.bolt_port or free_port()
        self.http_port = self.http_port or free_port()
        for name, port in (("Bolt", self.bolt_port), ("HTTP", self.http_port)):
            # Otherwise the readiness check could be answered by whoever holds the port.
            if not port_is_free(port):
                raise EngineStartError(
                    f"the {name} port {port} on 127.0.0.1 is in use (another Neo4j?); "
                    "stop it or choose another port (0 picks a free one)"
                )
        for sub in ("conf", "data", "logs", "run", "plugins", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        (self.home / "conf" / "neo4j.conf").write_text(self._config(), encoding="utf-8")
        command = self.distribution.command(home=self.home, heap=self.heap, jvm_options=JVM_OPTIONS)
        self._console = self.console_log.open("ab")
        try:
            self._spawn_child(
                command, what="Neo4j", stdout=self._console, stderr=subprocess.STDOUT, cwd=self.home
            )
        except EngineStartError:
            self._close_console()
            raise
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout_s: float = 60.0) -> None:
        """SIGTERM (Neo4j shuts down cleanly on it), then SIGKILL after the timeout."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._close_console()

    def wait(self, stop_timeout_s: float = 60.0) -> int:
        """Block until the server exits; stop it on SIGINT or SIGTERM. Returns its exit code.

        The signal handler only asks the server to stop: waiting inside it would contend
        with this loop for the child, so the loop itself escalates to SIGKILL if the
        server has not stopped within ``stop_timeout_s``.
        """
        if self._process is None:
            raise EngineStartError("Neo4j is not running")
        process = self._process
        stop_requested_at: float | None = None

        def on_signal(signum: int, frame: FrameType | None) -> None:
            nonlocal stop_requested_at
            del frame
            if stop_requested_at is None:
                print(f"thoughtgraph: stopping Neo4j ({signal.Signals(signum).name})", flush=True)
                stop_requested_at = time.monotonic()
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            while (code := process.poll()) is None:
                if (
                    stop_requested_at is not None
                    and time.monotonic() - stop_requested_at > stop_timeout_s
                ):
                    process.kill()
                time.sleep(0.2)
            return code
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._process = None
            self._close_console()

    # --- internals ---------------------------------------------------------------------
    def _config(self) -> str:
        settings = {
            "server.directories.data": self.home / "data",
            "server.directories.logs": self.home / "logs",
            "server.directories.run": self.home / "run",
            "server.directories.plugins": self.home / "plugins",
            "server.directories.import": self.home / "import",
            "server.default_listen_address": "127.0.0.1",
            "server.default_advertised_address": "127.0.0.1",
            "server.bolt.listen_address": f"127.0.0.1:{self.bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{self.bolt_port}",
            "server.http.listen_address": f"127.0.0.1:{self.http_port}",
            "server.http.advertised_address": f"127.0.0.1:{self.http_port}",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "false",
            "dbms.usage_report.enabled": "false",
            "server.memory.pagecache.size": self.pagecache,
            # Browser guides and styles are fetched from the thoughtgraph service.
            "browser.remote_content_hostname_whitelist": "*",
            "client.allow_telemetry": "false",
            "db.tx_log.rotation.retention_policy": "2 files",
            # Merge the vector indexes' Lucene segments at 4 a level, not 50: a query
            # searches every segment, and a namespace written one thought a commit otherwise
            # keeps dozens (docs/operations/scaling.md, "Vector index segments on Neo4j").
            "internal.dbms.index.vector.standard_merge_factor": VECTOR_MERGE_FACTOR,
        }
        lines = [
            "# Written by `thoughtgraph dev-neo4j` on every start; edits are overwritten.",
            *(f"{key}={value}" for key, value in settings.items()),
        ]
        return "\n".join(lines) + "\n"

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        last_error = "no answer yet"
        while time.monotonic() < deadline:
            if self._process is None or self._process.poll() is not None:
                raise EngineStartError("Neo4j exited during start-up:\n" + self.log_tail())
            if self._port_open():
                try:
                    self._query_once()
                    return
                except (DriverError, Neo4jError, OSError) as exc:
                    last_error = str(exc)
            time.sleep(0.25)
        raise EngineStartError(
            f"Neo4j did not answer on {self.bolt_uri} within {self.start_timeout_s:.0f} s "
            f"({last_error}):\n{self.log_tail()}"
        )

    def _port_open(self) -> bool:
        with socket.socket() as sock:
            sock.settimeout(1.0)
            return sock.connect_ex(("127.0.0.1", self.bolt_port)) == 0

    def _query_once(self) -> None:
        """A query on the default database, answered by this server: its data directory
        is ours (a server that started elsewhere on the port in the meantime is not)."""
        with GraphDatabase.driver(self.bolt_uri, auth=None) as driver:
            records, _, _ = driver.execute_query(
                "SHOW SETTINGS YIELD name, value WHERE name = 'server.directories.data' "
                "RETURN value",
                database_=DEFAULT_DATABASE,
            )
        served_from = Path(str(records[0]["value"])).resolve() if records else None
        if served_from != self.home / "data":
            raise EngineStartError(
                f"the server on {self.bolt_uri} is not this one: it keeps its data in "
                f"{served_from}, not {self.home / 'data'}"
            )

    def log_tail(self, lines: int = 20) -> str:
        parts = []
        for path in (self.console_log, self.home / "logs" / "neo4j.log"):
            with contextlib.suppress(OSError):
                text = path.read_text(errors="replace").strip().splitlines()
                if text:
                    parts.append(f"--- {path}\n" + "\n".join(text[-lines:]))
        return "\n".join(parts) or f"no output; see {self.home / 'logs'}"

    def _close_console(self) -> None:
        if self._console is not None:
            self._console.close()
            self._console = None

"""A real ``thoughtgraph worker`` process for the benchmark, and what its log says it did.

The worker attaches to the engine of the service the benchmark runs in this process (the
same data dir; the engine's Redis is the broker) and consumes the scans that service
publishes. Its JSON log tells when each scan finished (``job.done``) and Celery's own
line for each task what the scan found, so the benchmark can wait for the queue to drain
and report that the scans did work.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.child_process import die_with_parent
from thoughtgraph.tools.bench.service import BenchSetupError
from thoughtgraph.workers import names

# Celery's INFO line for a finished task carries its result: the scan's counts.
_SUCCEEDED = re.compile(re.escape(names.SCAN_NEW) + r"\[[^\]]*\] succeeded in [\d.]+s: (\{.*\})")
_COUNT = re.compile(r"'(scanned|pairs_judged|links|contradictions_found)': (\d+)")


@dataclass
class ScanTotals:
    started: int = 0  # job.started
    done: int = 0  # job.done: the scan's work is over
    scanned: int = 0  # thoughts the scans Celery logged as succeeded covered (writes coalesce)
    pairs_judged: int = 0
    links: int = 0
    contradictions_found: int = 0
    busy_s: float = 0.0  # the scans' own durations, summed (job.done seconds)


class WorkerLog:
    """Reads the worker's log as it grows: only the bytes added since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.totals = ScanTotals()
        self._offset = 0
        self._partial = b""

    def poll(self) -> ScanTotals:
        with contextlib.suppress(FileNotFoundError), self.path.open("rb") as log:
            log.seek(self._offset)
            data = log.read()
            self._offset += len(data)
            lines = (self._partial + data).split(b"\n")
            self._partial = lines.pop()
            for line in lines:
                self._read(line.decode(errors="replace"))
        return self.totals

    def _read(self, line: str) -> None:
        if line.startswith("{"):
            with contextlib.suppress(json.JSONDecodeError):
                event = json.loads(line)
                if event.get("event") == "job.started" and event.get("task") == names.SCAN_NEW:
                    self.totals.started += 1
                if event.get("event") == "job.done" and event.get("task") == names.SCAN_NEW:
                    self.totals.done += 1
                    self.totals.busy_s += float(event.get("seconds") or 0.0)
            return
        found = _SUCCEEDED.search(line)
        if found:
            for name, value in _COUNT.findall(found[1]):
                setattr(self.totals, name, getattr(self.totals, name) + int(value))

    def tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.path.read_text(errors="replace")[-chars:]
        return ""


class WorkerProcess:
    """``python -m thoughtgraph worker --concurrency 1`` on ``data_dir``, in a session of its
    own (its pool processes are stopped with it), dying with this process."""

    def __init__(self, data_dir: Path, env: Mapping[str, str], log_path: Path) -> None:
        self.data_dir = data_dir
        self.env = dict(env)
        self.log = WorkerLog(log_path)
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [
            sys.executable, "-m", "thoughtgraph", "worker",
            "--data-dir", str(self.data_dir), "--concurrency", "1",
        ]  # fmt: skip
        with self.log.path.open("wb") as output:
            self._process = subprocess.Popen(
                command,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # Killed with this process; call from the main thread, which outlives it.
                preexec_fn=die_with_parent,
            )

    def check_alive(self) -> None:
        if self._process is None or self._process.poll() is not None:
            code = self._process.returncode if self._process else None
            raise BenchSetupError(f"the worker exited ({code}); its log:\n{self.log.tail()}")

    def wait_for_scans(self, count: int, timeout_s: float, *, pause_s: float = 0.002) -> float:
        """Until the worker's scans have covered ``count`` written thoughts in all (the
        service coalesces the scans of writes close together into one task); the seconds
        it took. A scan counts once Celery logged it as succeeded, bookkeeping included,
        so the worker uses no CPU any more."""
        started = time.perf_counter()
        deadline = started + timeout_s

        def finished() -> int:
            return self.log.poll().scanned

        while finished() < count:
            if time.perf_counter() > deadline:
                raise BenchSetupError(
                    f"the worker scanned {self.log.totals.scanned} of {count} thoughts within"
                    f" {timeout_s:.0f} s; its log:\n{self.log.tail()}"
                )
            self.check_alive()
            time.sleep(pause_s)
        return time.perf_counter() - started

    def wait_until_idle(self, queued: Callable[[], int], quiet_s: float, timeout_s: float) -> None:
        """Until no scan runs and none waits in the broker for ``quiet_s`` on end: the
        follow-up tasks of writes already scanned (no-ops) have run, so none of them is
        counted in what is measured next."""
        deadline = time.perf_counter() + timeout_s
        quiet_since: float | None = None
        while True:
            now = time.perf_counter()
            totals = self.log.poll()
            if totals.started == totals.done and queued() == 0:
                quiet_since = quiet_since or now
                if now - quiet_since >= quiet_s:
                    return
            else:
                quiet_since = None
            if now > deadline:
                raise BenchSetupError(f"the worker did not go idle within {timeout_s:.0f} s")
            self.check_alive()
            time.sleep(0.02)

    def stop(self, timeout_s: float = 20.0) -> None:
        """Warm shutdown (the scan at hand finishes), then the whole group is killed."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout_s)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # pool processes a stopped parent left
        process.wait()

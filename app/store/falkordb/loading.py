"""What the embedded engine's own log says about a start: whether its latest run is still
loading its data, and what it is doing meanwhile.

A large store loads for minutes (the engine rebuilds every index as it reads its file:
docs/operations/benchmark.md) and answers nothing until it is done, so the service reports
the step the log names while it waits: a graph being decoded, its indexes being built,
the log's tail being replayed after the base file was loaded.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

# "1234:M 28 Nov 2026 15:04:55.236 * <module> Graph 'g' Constructing indexes."
_LINE = re.compile(r"^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ [*#.-] (?:<module> )?(?P<message>.+)$")
_RUN_START = "Server initialized"
_READY = "Ready to accept connections"
_BASE_LOADED = "DB loaded from base file"
LOG_TAIL_BYTES = 64 * 1024  # enough for a run's start-up lines


def latest_run(text: str) -> str:
    """An engine log's lines from its latest run's start (all of them when no start is in
    the text)."""
    return text[text.rfind("\n", 0, max(text.rfind(_RUN_START), 0)) + 1 :]


def loading_in(text: str) -> bool:
    """Whether an engine log's latest run is loading its data: initialised and not yet
    ready to accept connections."""
    run = latest_run(text)
    return _RUN_START in run and _READY not in run


def loading_step(text: str) -> str:
    """What the latest line of an engine log's latest run says the engine is doing."""
    for line in reversed(latest_run(text).splitlines()):
        found = _LINE.match(line.strip())
        if found is None:
            continue
        message = found.group("message")
        if message.startswith(_BASE_LOADED):  # it goes on with the log's tail, unannounced
            return f"replaying the log written since its base file ({message})"
        return message
    return "starting"


class RunLog:
    """The lines one run of the engine adds to its log, and a report of a long load in the
    service's own log every ``report_every_s``."""

    def __init__(self, path: Path, *, report_every_s: float) -> None:
        self.path = path
        self.report_every_s = report_every_s
        self._offset = 0  # where the run's lines start
        self._began = 0.0
        self._next_report = 0.0

    def begin(self) -> None:
        """A run starts now: its lines follow what the log holds."""
        try:
            self._offset = self.path.stat().st_size
        except OSError:
            self._offset = 0
        self._began = time.monotonic()
        self._next_report = self._began + self.report_every_s

    def text(self) -> str:
        """The run's lines (the last LOG_TAIL_BYTES of them)."""
        try:
            with self.path.open("rb") as lines:
                size = lines.seek(0, os.SEEK_END)
                lines.seek(max(self._offset, size - LOG_TAIL_BYTES))
                return lines.read().decode(errors="replace")
        except OSError:
            return ""

    def report_if_loading(self, now: float, **fields: object) -> None:
        if now < self._next_report:
            return
        self._next_report = now + self.report_every_s
        text = self.text()
        if loading_in(text):
            log.info(
                "engine.loading",
                seconds=round(now - self._began, 1),
                doing=loading_step(text),
                **fields,
            )

"""Progress of long CLI work (bench loading, evaluation ingestion, imports): a bar on a
terminal, plain lines otherwise.

A log file or a CI job has no use for carriage returns and redrawn bars: there, a line
every few seconds (and one at the end) says how far the work got and how fast it goes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO

from tqdm import tqdm

LINE_EVERY_S = 5.0


class Progress(Protocol):
    def advance(self, n: int = 1) -> None: ...


class _Bar:
    def __init__(self, bar: tqdm[Any]) -> None:
        self._bar = bar

    def advance(self, n: int = 1) -> None:
        self._bar.update(n)


class _Lines:
    """``label: done/total (pct) rate`` at most every ``every_s`` seconds, and at the end."""

    def __init__(self, label: str, total: int | None, stream: TextIO, every_s: float) -> None:
        self._label = label
        self._total = total
        self._stream = stream
        self._every_s = every_s
        self._done = 0
        self._started = time.monotonic()
        self._last = self._started

    def advance(self, n: int = 1) -> None:
        self._done += n
        now = time.monotonic()
        if now - self._last >= self._every_s:
            self._last = now
            self.write()

    def write(self) -> None:
        elapsed = time.monotonic() - self._started
        rate = f", {self._done / elapsed:,.0f}/s" if elapsed > 0 and self._done else ""
        if self._total:
            share = f"{self._done:,}/{self._total:,} ({100 * self._done / self._total:.0f}%)"
        else:
            share = f"{self._done:,}"
        print(f"{self._label}: {share}{rate}", file=self._stream, flush=True)


@contextmanager
def progress(
    label: str,
    total: int | None = None,
    *,
    stream: TextIO | None = None,
    every_s: float = LINE_EVERY_S,
) -> Iterator[Progress]:
    """Report ``advance`` calls on ``stream`` (stderr by default): a tqdm bar when it is a
    terminal, plain lines when it is not."""
    out = stream if stream is not None else sys.stderr
    if out.isatty():
        with tqdm(total=total, desc=label, file=out, unit=" items", dynamic_ncols=True) as bar:
            yield _Bar(bar)
        return
    lines = _Lines(label, total, out, every_s)
    yield lines
    lines.write()

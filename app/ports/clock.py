"""What time it is, for everything that ages knowledge (forgetting, purge, windows).

Production reads the wall clock. Tests move time forward across every process of a
deployment (API, worker, beat) through a shared file holding an offset in milliseconds
(``TG_CLOCK_FILE``), so a worker started as a real process sees the same "now".
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from thoughtgraph.domain.models import now_ms


class Clock(Protocol):
    def now_ms(self) -> int: ...


class SystemClock:
    def now_ms(self) -> int:
        return now_ms()


class OffsetFileClock:
    """The wall clock plus the offset written in ``path`` (0 while the file is absent)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def offset_ms(self) -> int:
        try:
            text = self._path.read_text().strip()
        except FileNotFoundError:
            return 0
        return int(text or 0)

    def advance(self, ms: int) -> None:
        self._path.write_text(str(self.offset_ms() + ms))

    def now_ms(self) -> int:
        return now_ms() + self.offset_ms()


def build_clock(clock_file: Path | None) -> Clock:
    return OffsetFileClock(clock_file) if clock_file else SystemClock()

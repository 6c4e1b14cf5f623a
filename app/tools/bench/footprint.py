"""What the loaded thoughts cost the machine, for sizing one: resident memory of this
process (the service and the bench's client share it) and of the embedded engine's
process, and the bytes under the data dir, read from Linux's /proc and the file system
after each load. Per thought is the total over N, fixed overheads included, so it falls
as N grows. On Neo4j the server is another process the bench does not own: its memory
and disk are not measured here."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.tools.bench.report import Row

LABEL = "footprint after load (RSS, disk)"


@dataclass(frozen=True)
class Footprint:
    process_rss: int | None  # bytes; None where /proc cannot tell
    engine_rss: int | None
    disk_bytes: int | None

    def describe(self, thoughts: int) -> str:
        parts = []
        if self.process_rss is not None:
            total = self.process_rss + (self.engine_rss or 0)
            split = f"service {_size(self.process_rss)}"
            split += f" + engine {_size(self.engine_rss)}" if self.engine_rss is not None else ""
            parts.append(f"RSS {_size(total)} ({split}), {_per(total, thoughts)}")
        if self.disk_bytes is not None:
            parts.append(f"disk {_size(self.disk_bytes)}, {_per(self.disk_bytes, thoughts)}")
        return "; ".join(parts) or "not measured (no /proc or data dir)"


def resident_bytes(pid: int) -> int | None:
    """A process's resident set (VmRSS), or None when it cannot be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return None


def disk_bytes(root: Path) -> int | None:
    """Bytes of the regular files under ``root`` (sockets and vanished files skipped)."""
    if not root.is_dir():
        return None
    total = 0
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file():
                total += path.stat().st_size
    return total


def measure(store_description: Mapping[str, str]) -> Footprint:
    """From what the store says of itself: its data dir and its engine's pid (embedded)."""
    engine_pid = store_description.get("engine_pid")
    data_dir = store_description.get("data_dir")
    return Footprint(
        process_rss=resident_bytes(os.getpid()),
        engine_rss=resident_bytes(int(engine_pid)) if engine_pid else None,
        disk_bytes=disk_bytes(Path(data_dir)) if data_dir else None,
    )


def footprint_row(size: int, store_description: Mapping[str, str]) -> Row:
    return Row(size, LABEL, value=measure(store_description).describe(size))


def _size(value: int | None) -> str:
    if value is None:
        return "-"
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{value} B"


def _per(total: int, thoughts: int) -> str:
    return f"{total / max(1, thoughts):,.0f} B/thought"

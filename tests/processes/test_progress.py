"""Long CLI work shows a bar on a terminal and plain lines elsewhere (a log, a CI job)."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from thoughtgraph.progress import progress

SCRIPT = """
import sys, time
from thoughtgraph.progress import progress
with progress("loading", 30, every_s=0.05) as shown:
    for _ in range(3):
        time.sleep(0.08)
        shown.advance(10)
"""


def test_plain_lines_when_the_output_is_not_a_terminal() -> None:
    out = io.StringIO()
    with progress("loading", 20, stream=out, every_s=0.0) as shown:
        shown.advance(5)
        shown.advance(15)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("loading: 5/20 (25%)")
    assert lines[-1].startswith("loading: 20/20 (100%)")
    assert "\r" not in out.getvalue()


def test_lines_are_spaced_out_by_the_interval() -> None:
    out = io.StringIO()
    with progress("embedding", None, stream=out, every_s=3600) as shown:
        for _ in range(1000):
            shown.advance()
    assert out.getvalue().splitlines() == [out.getvalue().splitlines()[-1]]
    assert out.getvalue().startswith("embedding: 1,000")


def test_a_bar_on_a_terminal(tmp_path: Path) -> None:
    """A real child process whose stderr is a pseudo-terminal draws a redrawn bar."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], stderr=terminal, stdout=subprocess.DEVNULL, env=env
    )
    os.close(terminal)
    received = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    assert child.wait(timeout=60) == 0
    os.close(controller)
    text = received.decode("utf-8", "replace")
    assert "\r" in text and "30/30" in text and "loading" in text
    assert "loading: 30/30 (100%)" not in text  # not the plain lines
